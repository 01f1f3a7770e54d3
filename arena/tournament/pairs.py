"""One duplicate pair: two matches on the same deals, seats swapped (a round robin's pairs, a Swiss round's).

Its own module so that the round robin (arena.tournament.schedule) and the Swiss (arena.tournament.swiss)
both deal a pair alike without importing each other.
"""

from __future__ import annotations

from arena.referee.record import MatchSpec
from arena.seeds import derive_seed

__all__ = ["pair_specs"]


def pair_specs(a: str, b: str, pair_index: int, seed: int, duplicate: bool, order: int) -> list[MatchSpec]:
    """The two matches of pair ``pair_index`` of the pairing (a, b), seats swapped, the first at ``order``.

    With ``duplicate`` both play the same deals. The seeds depend on the two names and ``pair_index``
    only: a Swiss round (arena.tournament.swiss, where ``pair_index`` is the round) deals as a round robin's
    pair with that index would.
    """
    lo, hi = sorted((a, b))  # seeds by name, not by position in the file
    specs: list[MatchSpec] = []
    for game in (0, 1):
        seat0, seat1 = (a, b) if game == 0 else (b, a)
        deal_parts: tuple[object, ...] = (seed, lo, hi, pair_index, "deals")
        if not duplicate:
            deal_parts += (seat0,)
        specs.append(MatchSpec(
            match_id=f"{a}-vs-{b}-p{pair_index}-g{game}",
            pairing=(a, b),
            pair_index=pair_index,
            game=game,
            seat0=seat0,
            seat1=seat1,
            deal_seed=derive_seed(*deal_parts),
            match_seed=derive_seed(seed, lo, hi, pair_index, "match", seat0),
            order=order + game,
        ))
    return specs
