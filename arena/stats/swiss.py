"""A Swiss tournament's table: each round's pairings, its bye and every bot's Swiss points.

A pairing of a Swiss round plays one duplicate pair (two matches on the same deals, seats swapped), and its
points are the pair's match points: 1 for each match won, 0.5 to each bot for a match nobody won, so 2, 1
or 0 a round (2-0, 1-1, 0-2). In an odd field one bot sits each round out: the bye, worth `BYE_POINTS`, what
an even pair gives, so a bye neither lifts a weak bot over those who played nor costs it a round. docs/
STATISTICS.md says the same. The bye is the bot without a pairing in a round; nothing else marks it.

Pure code: no I/O; arena.tournament.swiss pairs the next round from this table, the report shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

BYE_POINTS = 1.0  #: a bye's Swiss points: half a pair's two


@dataclass(frozen=True, slots=True)
class SwissGame:
    """One scheduled match of a Swiss round: its round (0-based), its pairing and, once it is finished,
    the winner's name (None for a match nobody won)."""

    round: int
    pairing: tuple[str, str]
    done: bool
    winner: str | None = None


@dataclass(frozen=True, slots=True)
class SwissPairing:
    """One pairing of a round: ``points`` are a's and b's match points in it so far, of ``matches``
    finished matches (2 when the pair is complete)."""

    a: str
    b: str
    points: tuple[float, float]
    matches: int
    scheduled: int  # the pair's matches in the schedule (2)

    @property
    def complete(self) -> bool:
        return self.matches == self.scheduled


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One round (``index`` 0-based): its pairings in table order, its byes (one in an odd field), and each
    bot's Swiss points before it (who floated up or down to meet whom)."""

    index: int
    pairings: tuple[SwissPairing, ...]
    byes: tuple[str, ...]
    points_before: Mapping[str, float]

    @property
    def complete(self) -> bool:
        return all(p.complete for p in self.pairings)


@dataclass(frozen=True, slots=True)
class SwissTable:
    """Every round scheduled so far, and each bot's Swiss points (finished matches and byes)."""

    rounds: tuple[SwissRound, ...]
    points: Mapping[str, float]

    def ranking(self) -> list[str]:
        """The bots by Swiss points, most first; ties in the order the table was given its bots."""
        order = {b: i for i, b in enumerate(self.points)}
        return sorted(self.points, key=lambda b: (-self.points[b], order[b]))

    def met(self) -> set[frozenset[str]]:
        """Every two bots paired in some round."""
        return {frozenset((p.a, p.b)) for r in self.rounds for p in r.pairings}


def swiss_table(bots: Sequence[str], games: Iterable[SwissGame]) -> SwissTable:
    """The table of a Swiss between ``bots`` from its scheduled matches (finished or not)."""
    by_round: dict[int, dict[tuple[str, str], list[SwissGame]]] = {}
    for g in games:
        by_round.setdefault(g.round, {}).setdefault(g.pairing, []).append(g)
    points = {b: 0.0 for b in bots}
    rounds = []
    for index in sorted(by_round):
        before = dict(points)
        pairings = []
        for (a, b), pair in by_round[index].items():
            got = [0.0, 0.0]
            for g in pair:
                if not g.done:
                    continue
                if g.winner is None:
                    got = [got[0] + 0.5, got[1] + 0.5]
                elif g.winner in (a, b):
                    got[g.winner == b] += 1.0
            for bot, p in zip((a, b), got, strict=True):
                points[bot] = points.get(bot, 0.0) + p
            pairings.append(SwissPairing(a, b, (got[0], got[1]), sum(g.done for g in pair), len(pair)))
        playing = {x for p in pairings for x in (p.a, p.b)}
        byes = tuple(b for b in bots if b not in playing)
        for b in byes:
            points[b] += BYE_POINTS
        rounds.append(SwissRound(index, tuple(pairings), byes, before))
    return SwissTable(tuple(rounds), points)
