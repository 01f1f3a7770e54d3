"""A series of matches between two bots, as `arena match` plays it.

Seats alternate; with duplicate deals, matches 2k and 2k+1 share their deals (seats swapped). Matches run
concurrently, at most ``concurrency`` at a time; a callback sees each record as it is final, and may ask to
stop (the SPRT does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import trio

from arena.game.variants import RuleSet
from arena.referee.match import Player, Policy, play_match
from arena.referee.record import MatchRecord
from arena.seeds import derive_seed


@dataclass(frozen=True)
class SeriesMatch:
    index: int
    a_seat: int  # the seat bot A sits in
    deal_seed: int
    match_seed: int


def plan_series(n: int, seed: int, duplicate: bool) -> list[SeriesMatch]:
    out = []
    for i in range(n):
        pair = i // 2 if duplicate else i
        out.append(
            SeriesMatch(i, i % 2, derive_seed(seed, "series", "deals", pair), derive_seed(seed, "series", "match", i))
        )
    return out


async def play_series(
    a: Player,
    b: Player,
    rules: RuleSet,
    n: int,
    seed: int,
    duplicate: bool = True,
    concurrency: int = 1,
    policy: Policy = "lose-match",
    on_record: Callable[[SeriesMatch, MatchRecord], bool] | None = None,
) -> list[tuple[SeriesMatch, MatchRecord]]:
    """Play up to n matches; ``on_record`` returning True stops the series (running matches are cancelled)."""
    plan = iter(plan_series(n, seed, duplicate))
    done: list[tuple[SeriesMatch, MatchRecord]] = []

    async with trio.open_nursery() as nursery:

        async def slot() -> None:
            # ``concurrency`` slots pull from one iterator, so matches start in order (an SPRT fed in match
            # order can stop early only if the early matches are the ones played first)
            for sm in plan:
                players = (a, b) if sm.a_seat == 0 else (b, a)
                rec = await play_match(f"m{sm.index}", players, rules, sm.deal_seed, sm.match_seed, policy)
                done.append((sm, rec))
                if on_record is not None and on_record(sm, rec):
                    nursery.cancel_scope.cancel()

        for _ in range(max(1, concurrency)):
            nursery.start_soon(slot)
    done.sort(key=lambda item: item[0].index)
    return done
