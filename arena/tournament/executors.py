"""Executors: where a match is played. Each takes a MatchSpec and returns its MatchRecord.

The runner (arena.tournament.runner) decides which match is played when and how many at once; an executor
only plays what it is handed. ``local`` plays in this process's trio loop; ``workers`` hands each match to
one of N referee processes (arena.tournament.worker); ``dask`` submits each match as a task to a Dask cluster
(arena.tournament.dask_executor, imported only then). All are opened with ``open_executor`` and closed by
leaving its ``async with``, which stops every bot they started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Protocol

import trio

from arena.game.variants import RuleSet
from arena.referee.match import Player
from arena.referee.policy import ViolationPolicy
from arena.referee.pool import MatchPool
from arena.referee.record import MatchRecord, MatchSpec

if TYPE_CHECKING:
    from arena.tournament.dask_executor import DaskPlan


class Executor(Protocol):
    async def play(self, spec: MatchSpec) -> MatchRecord:
        """Play one match to its end (every ending is a record, never an exception from a bot)."""
        ...


class LocalExecutor:
    """Matches played in this trio loop; bot processes kept across matches when ``reuse`` is on."""

    def __init__(self, pool: MatchPool, players: Mapping[str, Player], rules: RuleSet,
                 policy: ViolationPolicy) -> None:
        self.pool = pool
        self.players = players
        self.rules = rules
        self.policy = policy

    async def play(self, spec: MatchSpec) -> MatchRecord:
        return await self.pool.play(spec, self.players, self.rules, self.policy)


@asynccontextmanager
async def open_local_executor(players: Mapping[str, Player], rules: RuleSet, policy: ViolationPolicy,
                              reuse: bool) -> AsyncIterator[LocalExecutor]:
    async with trio.open_nursery() as nursery:
        pool = MatchPool(nursery, reuse)
        try:
            yield LocalExecutor(pool, players, rules, policy)
        finally:
            await pool.close()
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_executor(players: Mapping[str, Player], rules: RuleSet, policy: ViolationPolicy, reuse: bool,
                        workers: int, concurrency: int, dask: DaskPlan | None = None) -> AsyncIterator[Executor]:
    """``dask``: tasks on a Dask cluster (never reusing bots); else ``workers`` > 1: that many referee processes
    share ``concurrency`` slots; else the local executor."""
    if dask is not None:
        from arena.tournament.dask_executor import open_dask_executor

        async with open_dask_executor(players, rules, policy, concurrency, dask) as cluster:
            yield cluster
    elif workers > 1:
        from arena.tournament.worker import open_worker_executor

        async with open_worker_executor(players, rules, policy, reuse, workers, concurrency) as remote:
            yield remote
    else:
        async with open_local_executor(players, rules, policy, reuse) as local:
            yield local
