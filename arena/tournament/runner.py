"""Run a tournament: every scheduled match, N at a time, each stored the moment it is final.

One owner of concurrency (the habit is cutechess's game manager): a trio nursery bounded by a
CapacityLimiter. A match that is running when the run is interrupted is not stored; it is still 'running'
in the database and goes back to 'pending' on the next run, which replays it from its seed.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.botspec import fingerprint
from arena.referee.match import Player
from arena.referee.pool import MatchPool
from arena.referee.process import BotSpec
from arena.referee.record import MatchRecord
from arena.referee.sandbox import bot_files
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule import MatchSpec
from arena.tournament.store import Store
from arena.tournament.worker import player_to_dict, run_in_workers


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


def run_secrets(config: TournamentConfig) -> list[Path]:
    """What no bot may see even when it lies in a bot's folder: the config, the database (with its WAL,
    shared-memory and lock files) and the report."""
    db = str(config.database)
    return [config.source, config.report_dir, *(Path(db + suffix) for suffix in ("", "-wal", "-shm", ".lock"))]


def player_for(config: TournamentConfig, name: str) -> Player:
    """The bot as the referee runs it, fingerprinted now: a program that changes later ends in ``tampered``."""
    bot = next(b for b in config.bots if b.name == name)
    others = [b.command for b in config.bots if b.name != name]
    spec = BotSpec(name=bot.name, argv=tuple(bot.command), cwd=bot.cwd, limits=config.limits,
                   sandbox=config.sandbox or "auto", fingerprint=fingerprint(bot.command),
                   files=bot_files(bot.command, bot.cwd, others, run_secrets(config)))
    return Player(spec, bot.time)


def schedule_rows(schedule: list[MatchSpec]) -> list[dict[str, Any]]:
    return [
        {
            "id": s.match_id, "ord": s.order, "bot_a": s.pairing[0], "bot_b": s.pairing[1],
            "pair_index": s.pair_index, "game": s.game, "seat0": s.seat0, "seat1": s.seat1,
            "deal_seed": s.deal_seed, "match_seed": s.match_seed,
        }
        for s in schedule
    ]


async def run_matches(
    config: TournamentConfig,
    store: Store,
    pending: list[dict[str, Any]],
    progress: Progress,
    on_done: Callable[[MatchRecord], None] | None = None,
) -> None:
    players = {b.name: player_for(config, b.name) for b in config.bots}

    def finished(rec: MatchRecord) -> None:
        store.save(rec)
        progress.add(rec.winner_name, rec.bots)
        progress.last = f"{rec.bots[0]} {rec.score[0]}-{rec.score[1]} {rec.bots[1]}" + (
            f" ({rec.reason} by {rec.terminations[0].bot})" if rec.reason != "target" else "")
        if on_done is not None:
            on_done(rec)

    if config.workers > 1:
        setup = {
            "players": [player_to_dict(p) for p in players.values()], "rules": config.rules.to_dict(),
            "policy": config.on_violation, "reuse": config.reuse_bots, "concurrency": config.concurrency,
        }
        await run_in_workers(config.workers, setup, pending, lambda row: store.mark_running(row["id"]), finished)
        return
    rows = iter(pending)  # slots pull in schedule order: both games of a duplicate pair run close together
    async with trio.open_nursery() as nursery:
        pool = MatchPool(nursery, config.reuse_bots)
        try:
            async with trio.open_nursery() as matches:

                async def slot() -> None:
                    for row in rows:
                        store.mark_running(row["id"])
                        finished(await pool.play(row, players, config.rules, config.on_violation))

                for _ in range(max(1, config.concurrency)):
                    matches.start_soon(slot)
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
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

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
