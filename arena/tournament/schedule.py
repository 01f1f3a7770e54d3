"""Who plays whom, in which seat, on which deals: a pure function of the config.

Every pairing plays ``rounds`` pairs of matches. The two matches of a pair are adjacent and swap seats;
with ``duplicate`` they also share their deals (``deal_seed``), so luck of the cards cancels out within a
pair. The order runs round by round (pair 0 of every pairing before pair 1 of any), so a tournament cut
short, or looked at early, has results for every pairing.

Seeds depend on the tournament seed and the bot *names*, never on the bots' positions in the file: listing
the bots in another order gives every pairing the same deals (the match ids and the order may change,
since they follow the file's order).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.referee.record import MatchSpec
from arena.tournament.config import TournamentConfig
from arena.tournament.pairs import pair_specs
from arena.tournament.swiss import first_round

__all__ = ["MatchSpec", "build_schedule", "pair_specs", "pairings", "schedule"]


def pairings(names: Sequence[str], challenger: str | None = None) -> list[tuple[str, str]]:
    """The pairings, each in config order, in the order a round plays them.

    Round robin uses the circle method, so each consecutive block of pairings has every bot at most once
    (with N matches running at once, early results spread over all bots). Gauntlet: the challenger against
    each other bot in config order.
    """
    if challenger is not None:
        return [(challenger, n) for n in names if n != challenger]
    position = {n: i for i, n in enumerate(names)}
    ring: list[str | None] = list(names) + ([None] if len(names) % 2 else [])
    out: list[tuple[str, str]] = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        for a, b in zip(ring[:half], reversed(ring[half:]), strict=True):
            if a is not None and b is not None:
                out.append((a, b) if position[a] < position[b] else (b, a))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return out


def build_schedule(config: TournamentConfig, seed: int | None = None) -> list[MatchSpec]:
    """Every match of the tournament in playing order; the same config always gives the same list. A Swiss's
    schedule begins with its first round only: each later one is paired from results
    (arena.tournament.swiss).

    ``seed`` stands in for a config without ``seed:`` (the run draws one, or takes the stored one).
    """
    tournament_seed = config.seed if seed is None else seed
    assert tournament_seed is not None, "a tournament without a seed is scheduled with the one drawn for it"
    if config.format == "swiss":
        return first_round(config, tournament_seed)
    challenger = config.challenger if config.format == "gauntlet" else None
    return schedule([b.name for b in config.bots], config.rounds, tournament_seed, config.duplicate, challenger)


def schedule(
    names: Sequence[str], rounds: int, seed: int, duplicate: bool = True, challenger: str | None = None,
    limit: int | None = None,
) -> list[MatchSpec]:
    """The schedule of a round robin (or, with ``challenger``, a gauntlet) between ``names``.

    ``limit`` cuts it after that many matches: `arena match --matches 5` plays the first five matches of a
    two-bot round robin of three rounds, so it and `arena run` give the same two bots the same deals.
    """
    specs: list[MatchSpec] = []
    for pair_index in range(rounds):
        for a, b in pairings(names, challenger):
            specs.extend(pair_specs(a, b, pair_index, seed, duplicate, len(specs)))
            if limit is not None and len(specs) >= limit:
                return specs[:limit]
    return specs
