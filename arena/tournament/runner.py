"""Run matches: every scheduled match, N at a time, each stored the moment it is final.

One owner of concurrency (the habit is cutechess's game manager): `run_matches`, N slots that pull match
specs in schedule order and hand each to an executor (arena.tournament.executors). `arena run`, `arena
match` and the library all go through it. A match that is running when the run is interrupted is not
stored; it is still 'pending' in the database, and the next run replays it from its seed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.botspec import fingerprint
from arena.referee.match import Player
from arena.referee.process import BotSpec
from arena.referee.record import MatchRecord, MatchSpec
from arena.referee.sandbox import bot_files
from arena.stats.swiss import SwissRound, swiss_table
from arena.store import Store
from arena.tournament.config import TournamentConfig
from arena.tournament.executors import Executor, open_executor
from arena.tournament.swiss import next_round


@dataclass
class Progress:
    """What the progress display shows; updated by the runner as matches finish."""

    total: int
    name: str = ""
    done: int = 0
    done_before: int = 0  # already in the database when this run started
    started: float = field(default_factory=time.monotonic)
    wins: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)
    last: str = ""
    round: str = ""  # a Swiss's round being played, "round 2/5"; "" for the other formats

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
    shared-memory and lock files, and a ladder's uploaded bots beside it, each shown only its own) and the
    report."""
    db = str(config.database)
    return [config.source, config.report_dir,
            *(Path(db + suffix) for suffix in ("", "-wal", "-shm", ".lock", ".files"))]


def player_for(config: TournamentConfig, name: str, secrets: Iterable[Path] = ()) -> Player:
    """The bot as the referee runs it, fingerprinted now: a program that changes later ends in ``tampered``.
    ``secrets``: files beyond the run's own (`run_secrets`) that no bot may see."""
    bot = config.bot(name)
    spec = BotSpec(name=bot.name, argv=tuple(bot.command), cwd=bot.cwd, limits=config.limits,
                   sandbox=config.sandbox or "auto", fingerprint=fingerprint(bot.command),
                   files=shown_files(config, name, secrets))
    return Player(spec, bot.time)


def shown_files(config: TournamentConfig, name: str, secrets: Iterable[Path] = ()) -> tuple[str, ...]:
    """What the sandbox of bot ``name`` shows of its own, and hides (`arena.referee.sandbox.bot_files`)."""
    bot = config.bot(name)
    others = [b.command for b in config.bots if b.name != name]
    return bot_files(bot.command, bot.cwd, others, [*run_secrets(config), *secrets], bot.sandbox_paths)


async def run_matches(
    specs: Iterable[MatchSpec],
    executor: Executor,
    concurrency: int,
    on_start: Callable[[MatchSpec], None] | None = None,
    on_record: Callable[[MatchSpec, MatchRecord], bool | None] | None = None,
) -> None:
    """Play ``specs`` on ``executor``, at most ``concurrency`` at a time, starting them in order.

    The one place matches are scheduled onto slots, whatever plays them. ``on_record`` sees each record as
    it is final; returning True stops the run (matches still running are cancelled: the SPRT does this).
    Two matches on the same deals (the games of a duplicate pair) never run at the same time (`TwinGate`).
    """
    queue = TwinGate(specs)
    async with trio.open_nursery() as slots:

        async def slot() -> None:
            while (spec := await queue.next()) is not None:
                if on_start is not None:
                    on_start(spec)
                try:
                    rec = await executor.play(spec)
                finally:
                    queue.done(spec)
                if on_record is not None and on_record(spec, rec):
                    slots.cancel_scope.cancel()

        for _ in range(max(1, concurrency)):
            slots.start_soon(slot)


class TwinGate:
    """Match specs in schedule order, except that a match waits while another on the same deals is playing.

    The two games of a duplicate pair deal each seat the cards its opponent held in the other game. Run at
    once, a bot in one could learn them from its twin in the other through anything the two sandboxes still
    share in real time (CPU load, memory pressure: docs/SECURITY.md). One after the other, only what
    outlives a match could carry them, and nothing a bot makes does. The slot that would have waited plays
    the next match instead, so slots stay busy; the schedule's order is kept otherwise (both games of a
    pair still run close together, for the SPRT)."""

    def __init__(self, specs: Iterable[MatchSpec]) -> None:
        self._specs = iter(specs)
        self._held: list[MatchSpec] = []  # taken from the schedule, waiting for their twin to finish
        self._playing: Counter[int] = Counter()  # deal seed -> matches on it now playing
        self._finished = trio.Event()  # set (and replaced) each time a match finishes

    async def next(self) -> MatchSpec | None:
        """The next match free to start now; waits while every match left waits for a twin; None at the end."""
        while True:
            for i, spec in enumerate(self._held):
                if not self._playing[spec.deal_seed]:
                    return self._start(self._held.pop(i))
            for spec in self._specs:
                if not self._playing[spec.deal_seed]:
                    return self._start(spec)
                self._held.append(spec)
            if not self._held:
                return None
            await self._finished.wait()

    def _start(self, spec: MatchSpec) -> MatchSpec:
        self._playing[spec.deal_seed] += 1
        return spec

    def done(self, spec: MatchSpec) -> None:
        self._playing[spec.deal_seed] -= 1
        self._finished.set()
        self._finished = trio.Event()


async def play_tournament(
    config: TournamentConfig,
    store: Store,
    pending: list[MatchSpec],
    progress: Progress,
    on_done: Callable[[MatchSpec, MatchRecord], bool | None] | None = None,
    secrets: Iterable[Path] = (),
    on_round: Callable[[SwissRound], None] | None = None,
) -> None:
    """Play a begun tournament's pending matches, storing each record the moment it is final; a Swiss then
    pairs and plays its next rounds, one at a time (``on_round`` hears of each before it is played)."""
    players = {b.name: player_for(config, b.name, secrets) for b in config.bots}
    stopped = False

    def finished(spec: MatchSpec, rec: MatchRecord) -> bool | None:
        nonlocal stopped
        store.save(rec)
        progress.add(rec.winner_name, rec.bots)
        deciding = rec.result.deciding
        progress.last = rec.result.line(rec.bots) + (f" ({rec.reason} by {deciding.bot})" if deciding else "")
        stop = on_done(spec, rec) if on_done is not None else None
        stopped = stopped or bool(stop)
        return stop

    def announce() -> None:
        rounds = swiss_table([b.name for b in config.bots], store.swiss_games(config.name)).rounds
        if rounds and on_round is not None:
            on_round(rounds[-1])

    dask = None
    if config.executor.kind == "dask":  # the bots' shipped files are read now, after the builds
        from arena.tournament.dask_executor import plan_dask

        dask = plan_dask(config, [*run_secrets(config), *secrets])
    async with open_executor(players, config.rules, config.on_violation, config.reuse_bots, config.workers,
                             config.concurrency, dask) as executor:
        # no "running" mark per match: a resume replays every match not 'done' (Store.pending), so that
        # would be one more commit per match for nothing
        batch = pending
        while True:
            if config.format == "swiss" and batch:
                announce()
            await run_matches(batch, executor, config.concurrency, None, finished)
            if config.format != "swiss" or stopped:
                return
            table = swiss_table([b.name for b in config.bots], store.swiss_games(config.name))
            assert config.seed is not None
            # in a thread: pairing a large field takes seconds, during which Ctrl-C must still stop the run
            batch = await trio.to_thread.run_sync(next_round, config, table, config.seed, abandon_on_cancel=True)
            if not batch:  # the last round is over
                return
            store.schedule_more(config.name, batch)
