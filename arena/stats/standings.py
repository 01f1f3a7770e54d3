"""Standings: every per-bot total, computed in one place from typed facts about finished matches.

The report's standings, bot pages and terminal table, `arena run`'s closing table and `arena match`'s
summary (and its JSON) all read their per-bot figures from :func:`standings`. Its input is
:class:`MatchFacts`, one per finished match, which the store reads back from the database and
``MatchRecord.facts()`` builds from a match record, the same way, so the two cannot disagree.

Pure code: no I/O, no clock, no trio, no sqlite.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from arena.stats.ratings import quantile


@dataclass(frozen=True, slots=True)
class DealFacts:
    """One deal of a finished match, as the standings count it."""

    winner: int | None  # seat; None for a deal cut short by a forfeited match (nobody won it)
    game_points: int = 0  # the game points the winner got (0 when nobody won)
    closes: tuple[int, int] = (0, 0)  # by seat: times the seat closed the talon (or turned the trump)
    marriages: tuple[int, int] = (0, 0)  # by seat: marriages declared


@dataclass(frozen=True, slots=True)
class TerminationFacts:
    """One violation: who committed it and its kind (``timeout``, ``malformed``, ...; see PROTOCOL.md)."""

    bot: str
    kind: str


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """One finished match, as the standings count it."""

    match_id: str
    bots: tuple[str, str]  # by seat
    winner: int | None  # seat; None for an abandoned match
    score: tuple[int, int]  # game points by seat
    deals: tuple[DealFacts, ...] = ()  # every deal played, in order
    terminations: tuple[TerminationFacts, ...] = ()  # every violation, in order
    think_ms: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())  # by seat: every decision's think time


@dataclass(frozen=True, slots=True)
class ThinkTime:
    """A bot's think time per decision over all its matches; the figures are None without decisions."""

    ms: tuple[float, ...] = ()  # every decision's think time in ms, ascending

    @property
    def decisions(self) -> int:
        return len(self.ms)

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.ms) if self.ms else None

    @property
    def p90_ms(self) -> float | None:
        """The 90th percentile (linear interpolation between order statistics)."""
        return quantile(self.ms, 0.9) if self.ms else None

    @property
    def worst_ms(self) -> float | None:
        return self.ms[-1] if self.ms else None

    @property
    def total_ms(self) -> float:
        return sum(self.ms)


@dataclass(frozen=True, slots=True)
class BotStanding:
    """One bot's totals over the finished matches it played.

    ``deals`` counts the decided deals it sat in (a deal cut short by a forfeited match has no winner and
    counts for nobody), ``deal_game_points`` the game points it won in them. ``closes`` counts the times
    it closed the talon, ``closes_won`` the deals it closed and won. ``terminations`` counts its
    violations by kind, in the order they first happened. Rates are None when their denominator is 0.
    """

    bot: str
    matches: int = 0
    wins: int = 0
    losses: int = 0
    game_points: int = 0  # match score: game points summed over its matches
    game_points_against: int = 0
    deals: int = 0
    deals_won: int = 0
    deal_game_points: int = 0
    closes: int = 0
    closes_won: int = 0
    marriages: int = 0
    terminations: Mapping[str, int] = field(default_factory=dict)
    think: ThinkTime = ThinkTime()

    @property
    def score(self) -> float | None:
        """The share of matches won."""
        return _ratio(self.wins, self.matches)

    @property
    def deal_win_rate(self) -> float | None:
        return _ratio(self.deals_won, self.deals)

    @property
    def game_points_per_deal(self) -> float | None:
        return _ratio(self.deal_game_points, self.deals)

    @property
    def close_win_rate(self) -> float | None:
        return _ratio(self.closes_won, self.closes)

    @property
    def marriages_per_deal(self) -> float | None:
        return _ratio(self.marriages, self.deals)

    @property
    def terminations_total(self) -> int:
        return sum(self.terminations.values())

    @property
    def terminations_by_count(self) -> list[tuple[str, int]]:
        """(kind, count), most frequent first (ties by kind)."""
        return sorted(self.terminations.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass(frozen=True, slots=True)
class Standings:
    """Every bot's :class:`BotStanding` (in the order :func:`standings` was given, then as they first
    played), and the totals over all finished matches."""

    bots: Mapping[str, BotStanding]
    matches: int = 0
    deals: int = 0  # every deal played, decided or not
    terminations: int = 0  # every violation

    def __getitem__(self, bot: str) -> BotStanding:
        return self.bots[bot]

    def __iter__(self) -> Iterator[BotStanding]:
        return iter(self.bots.values())

    def __len__(self) -> int:
        return len(self.bots)


@dataclass
class _Tally:
    matches: int = 0
    wins: int = 0
    losses: int = 0
    game_points: int = 0
    game_points_against: int = 0
    deals: int = 0
    deals_won: int = 0
    deal_game_points: int = 0
    closes: int = 0
    closes_won: int = 0
    marriages: int = 0
    terminations: Counter[str] = field(default_factory=Counter)
    think: list[float] = field(default_factory=list)

    def standing(self, bot: str) -> BotStanding:
        return BotStanding(
            bot=bot, matches=self.matches, wins=self.wins, losses=self.losses, game_points=self.game_points,
            game_points_against=self.game_points_against, deals=self.deals, deals_won=self.deals_won,
            deal_game_points=self.deal_game_points, closes=self.closes, closes_won=self.closes_won,
            marriages=self.marriages, terminations=dict(self.terminations), think=ThinkTime(tuple(sorted(self.think))),
        )


def standings(matches: Iterable[MatchFacts], bots: Iterable[str] = ()) -> Standings:
    """Every bot's totals over ``matches`` (finished matches). ``bots`` come first, in their order, also
    those without a match; a bot that sits in a match but is not among them follows, as it first appears."""
    tally: dict[str, _Tally] = {b: _Tally() for b in bots}
    n_matches = n_deals = n_terminations = 0
    for m in matches:
        n_matches += 1
        n_deals += len(m.deals)
        seats = (tally.setdefault(m.bots[0], _Tally()), tally.setdefault(m.bots[1], _Tally()))
        for s in (0, 1):
            t = seats[s]
            t.matches += 1
            t.game_points += m.score[s]
            t.game_points_against += m.score[1 - s]
            if m.winner == s:
                t.wins += 1
            elif m.winner == 1 - s:
                t.losses += 1
            t.think.extend(m.think_ms[s])
            for d in m.deals:
                if d.winner is None:
                    continue  # cut short by a forfeited match: nobody won it
                t.deals += 1
                t.closes += d.closes[s]
                t.marriages += d.marriages[s]
                if d.winner == s:
                    t.deals_won += 1
                    t.deal_game_points += d.game_points
                    if d.closes[s]:
                        t.closes_won += 1
        for v in m.terminations:
            n_terminations += 1
            if v.bot in tally:  # always one of the match's bots, unless the facts are corrupt
                tally[v.bot].terminations[v.kind] += 1
    return Standings({b: t.standing(b) for b, t in tally.items()}, n_matches, n_deals, n_terminations)


def _ratio(part: float, whole: float) -> float | None:
    """A rate, None when there is nothing to divide by (no matches, no deals, no closes)."""
    return part / whole if whole else None
