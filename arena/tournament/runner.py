"""Run a tournament: every scheduled match, N at a time, each stored the moment it is final.

One owner of concurrency (the habit is cutechess's game manager): a trio nursery bounded by a
CapacityLimiter. A match that is running when the run is interrupted is not stored; it is still 'running'
in the database and goes back to 'pending' on the next run, which replays it from its seed.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from arena.referee.clock import TimeControl
from arena.referee.match import BotHandle, Player, play_match
from arena.referee.process import BotSpec, Limits
from arena.referee.record import MatchRecord
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import MatchSpec
from arena.tournament.store import Store


@dataclass
class Progress:
    """What the progress display shows; updated by the runner as matches finish."""

    total: int
    done: int = 0
    done_before: int = 0  # already in the database when this run started
    started: float = field(default_factory=time.monotonic)
    wins: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)
    last: str = ""

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return (self.done - self.done_before) / elapsed if elapsed > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        r = self.rate
        return (self.total - self.done) / r if r > 0 else None

    def leader(self) -> str:
        if not self.played:
            return "-"
        name = max(self.played, key=lambda n: (self.wins[n] / self.played[n], self.wins[n], n))
        return f"{name} {self.wins[name]}/{self.played[name]}"

    def add(self, winner: str | None, bots: tuple[str, str]) -> None:
        self.done += 1
        for b in bots:
            self.played[b] += 1
        if winner is not None:
            self.wins[winner] += 1


def player_for(config: TournamentConfig, name: str) -> Player:
    bot = next(b for b in config.bots if b.name == name)
    lim = config.limits
    return Player(
        BotSpec(
            name=bot.name,
            argv=tuple(bot.command),
            cwd=bot.cwd,
            limits=Limits(lim.memory_bytes, lim.cpu_seconds, lim.processes, lim.file_size_bytes),
        ),
        TimeControl(bot.time.move_ms, bot.time.bank_ms, bot.time.handshake_ms, bot.time.grace_ms),
    )


def schedule_rows(schedule: list[MatchSpec]) -> list[dict[str, Any]]:
    return [
        {
            "id": s.match_id, "ord": s.order, "bot_a": s.pairing[0], "bot_b": s.pairing[1],
            "pair_index": s.pair_index, "game": s.game, "seat0": s.seat0, "seat1": s.seat1,
            "deal_seed": s.deal_seed, "match_seed": s.match_seed,
        }
        for s in schedule
    ]


class _Pool:
    """Idle bot processes kept across matches when the config asks for reuse."""

    def __init__(self, nursery: trio.Nursery, reuse: bool) -> None:
        self.nursery = nursery
        self.reuse = reuse
        self.idle: dict[str, list[BotHandle]] = defaultdict(list)

    def take(self, player: Player) -> BotHandle:
        idle = self.idle[player.spec.name]
        return idle.pop() if idle else BotHandle(player, self.nursery)

    async def give_back(self, handle: BotHandle) -> None:
        if self.reuse and handle.bot is not None and handle.bot.alive:
            self.idle[handle.name].append(handle)
        else:
            await handle.quit()

    async def close(self) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as n:
                for handles in self.idle.values():
                    for h in handles:
                        n.start_soon(h.quit)
            self.idle.clear()


async def run_matches(
    config: TournamentConfig,
    store: Store,
    pending: list[dict[str, Any]],
    progress: Progress,
    on_done: Callable[[MatchRecord], None] | None = None,
) -> None:
    limiter = trio.CapacityLimiter(max(1, config.concurrency))
    players = {b.name: player_for(config, b.name) for b in config.bots}
    async with trio.open_nursery() as nursery:
        pool = _Pool(nursery, config.reuse_bots)
        try:
            async with trio.open_nursery() as matches:

                async def one(row: dict[str, Any]) -> None:
                    async with limiter:
                        store.mark_running(row["id"])
                        handles = (pool.take(players[row["seat0"]]), pool.take(players[row["seat1"]]))
                        try:
                            rec = await play_match(
                                row["id"], (handles[0].player, handles[1].player), config.rules,
                                row["deal_seed"], row["match_seed"], config.on_violation, handles=handles,
                            )
                        finally:
                            with trio.CancelScope(shield=True):
                                for h in handles:
                                    await pool.give_back(h)
                        store.save(rec)
                    progress.add(rec.winner_name, rec.bots)
                    progress.last = f"{rec.bots[0]} {rec.score[0]}-{rec.score[1]} {rec.bots[1]}" + (
                        f" ({rec.reason} by {rec.terminations[0].bot})" if rec.reason != "target" else "")
                    if on_done is not None:
                        on_done(rec)

                for row in pending:
                    matches.start_soon(one, row)
        finally:
            await pool.close()
            nursery.cancel_scope.cancel()


class ProgressDisplay:
    """A live line on a terminal (rich); plain log lines, at most one a second, otherwise (CI, pipes)."""

    def __init__(self, progress: Progress, name: str, stream: Any = None) -> None:
        self.p = progress
        self.name = name
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last_log = 0.0
        self._live: Any = None

    def __enter__(self) -> ProgressDisplay:
        if self.tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            from rich.console import Console

            self._live = Progress(
                TextColumn(f"[bold]{self.name}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), TextColumn("leader {task.fields[leader]}"),
                console=Console(file=self.stream), transient=False,
            )
            self._live.start()
            self._task = self._live.add_task("matches", total=self.p.total, completed=self.p.done,
                                             rate="", leader=self.p.leader())
        return self

    def update(self) -> None:
        p = self.p
        if self._live is not None:
            self._live.update(self._task, completed=p.done, rate=f"{p.rate:.1f}/s", leader=p.leader())
            return
        now = time.monotonic()
        if now - self._last_log < 1.0 and p.done < p.total:
            return
        self._last_log = now
        eta = "-" if p.eta_s is None else f"{p.eta_s:.0f}s"
        print(f"[{p.done}/{p.total}] {p.rate:.1f} matches/s, eta {eta}, leader {p.leader()}; last: {p.last}",
              file=self.stream, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
