"""The library API: what `arena run` and `arena match` do, callable from Python (docs/API.md).

A match series is a two-bot tournament: `play_match` builds the config `arena run` would read for it and
goes through the same path (schedule, runner, store), so both commands give the same two bots the same
deals, seats and results, and both write the same database.

Bad input raises ArenaError (ConfigError, StoreError) with a message that says what to fix; the CLI turns
it into one line and exit code 2.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError, ConfigError
from arena.seeds import guessable_seed_warning
from arena.stats import MeanSprt, PairSprt

if TYPE_CHECKING:
    from arena.botspec import BotProvenance
    from arena.game.variants import RuleSet
    from arena.referee.clock import TimeControl
    from arena.referee.policy import ViolationPolicy
    from arena.referee.record import MatchRecord, MatchSpec
    from arena.stats.sprt import Sprt
    from arena.stats.standings import MatchFacts
    from arena.stats.swiss import SwissRound
    from arena.store import Store
    from arena.tournament.config import ExecutorConfig, TournamentConfig
    from arena.tournament.runner import Progress

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def log_to_stderr(message: str) -> None:
    print(f"arena: {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------- tournaments
@dataclass(frozen=True)
class TournamentOutcome:
    """What a call of `run_tournament` left: the database holds every finished match."""

    name: str
    database: Path
    report: Path | None  # the report's index.html, None with report=False
    seed: int
    total: int  # matches in the schedule (a Swiss: in all its rounds, also those not paired yet)
    left: int  # matches not played yet (a later run resumes them)
    interrupted: bool  # by Ctrl-C, SIGTERM or SIGHUP


def run_tournament(
    config: str | os.PathLike[str] | TournamentConfig,
    *,
    fresh: bool = False,
    force: bool = False,
    concurrency: int | None = None,
    sandbox: str | None = None,
    report: bool = True,
    on_progress: Callable[[Progress, MatchRecord | None], None] | None = None,
    log: Log = _quiet,
    executor: str | None = None,
    workers: int | None = None,
) -> TournamentOutcome:
    """Run (or resume) a tournament: a YAML file's path, or a config loaded with `load_config`.

    ``fresh`` deletes the tournament's database first; ``force`` continues one whose config changed.
    ``on_progress`` is called once before the first match (with None) and after each stored match.
    ``executor`` (``local``, ``dask:local``, ``dask:tcp://HOST:PORT``) and ``workers`` override the config's
    (docs/DISTRIBUTED.md); neither changes a result.
    """
    from arena.referee.sandbox import check_bot_files, resolve_sandbox
    from arena.store import RunLock, fresh_files
    from arena.tournament.build import bot_provenance, run_builds
    from arena.tournament.config import TournamentConfig, load_config
    from arena.tournament.runner import shown_files

    if not isinstance(config, TournamentConfig):
        config = load_config(config)
    if concurrency is not None:
        config = dataclasses.replace(config, concurrency=concurrency)
    config = _with_executor(config, executor, workers)
    if config.executor.kind == "dask":  # before the builds: one line saying what to install
        from arena.tournament.dask_executor import require_distributed

        require_distributed("--executor" if executor is not None else f"{config.where('executor')}: executor")
    # Decided once, before anything runs: bubblewrap when it works, an error if asked for and missing.
    config = dataclasses.replace(config, sandbox=resolve_sandbox(sandbox or config.sandbox))
    if config.sandbox == "bwrap":
        for bot in config.bots:
            check_bot_files(bot.name, shown_files(config, bot.name))
    # Everything cheap that can refuse the run comes before the builds: bad output paths, another run on
    # the database, a --fresh that would delete a file that is not this tournament's database.
    db_label = f"{config.where('output.database')}: output.database"
    check_output_path(Path(config.database).absolute(), db_label, directory=False)
    if report:
        check_output_path(Path(config.report_dir).absolute(), f"{config.where('output.report')}: output.report",
                          directory=True)
    check_database_path(Path(config.database), db_label)  # only now makes the database's folder
    if report:
        Path(config.report_dir).mkdir(parents=True, exist_ok=True)  # now, so a bot's sandbox can hide it
    with RunLock(config.database):
        doomed = fresh_files(config.database, config.name) if fresh else []
        builds = run_builds(config)
        if config.sandbox == "bwrap":  # what a build wrote into its bot's folders is shown too
            for bot in config.bots:
                if bot.build is not None:
                    check_bot_files(bot.name, shown_files(config, bot.name))
        provenance = bot_provenance(config, builds)
        if config.executor.kind == "local":  # (a Dask cluster's workers start the bots from their own files)
            preflight_config(config)
        for path in doomed:  # only now: a failed build must not have cost the old results
            path.unlink(missing_ok=True)
            log(f"--fresh: removed {path}")
        chosen = config.seed
        with _open_store(config.database) as store:
            config, seed_note = _with_seed(config, store)
            _begin(store, config, provenance, force)
            # (after every refusal: a refused run says one line)
            warning = guessable_seed_warning(chosen, f"seed: {chosen} ({config.where('seed')})")
            if warning:
                log(warning)
            if seed_note:
                log(f"seed {config.seed} ({seed_note})")
            writer = _ReportWriter(store, config) if report else None
            interrupted = _play(config, store, on_progress, writer, log)
            store.finish(config.name)
            if writer is not None:
                writer.write()
            total = _total(config, store)
            left = total - store.count(config.name, "done")
            assert config.seed is not None
            return TournamentOutcome(config.name, Path(config.database), writer.index if writer else None,
                                     config.seed, total, left, interrupted)


def preflight_config(config: TournamentConfig) -> None:
    """Start every bot of ``config`` once, as its matches will (sandbox, limits, time control, what it may
    see), and take its handshake: BotStartError (exit 2) naming each bot that fails, before any match is
    played or stored, instead of a tournament of its crashes (arena.tournament.preflight)."""
    from arena.tournament.preflight import preflight
    from arena.tournament.runner import player_for

    players = [player_for(config, bot.name) for bot in config.bots]
    where = [f"{config.where(f'bots[{i}].command')}: bots[{i}]" for i in range(len(config.bots))]
    preflight(players, config.concurrency, where)


def _with_executor(config: TournamentConfig, executor: str | None, workers: int | None) -> TournamentConfig:
    """The config with ``--executor`` and ``--workers`` applied."""
    chosen, local_workers = executor_options(config.executor, config.workers, executor, workers)
    return dataclasses.replace(config, executor=chosen, workers=local_workers)


def executor_options(base: ExecutorConfig, base_workers: int, executor: str | None,
                     workers: int | None) -> tuple[ExecutorConfig, int]:
    """``--executor`` and ``--workers`` over a config's executor and local workers: ``workers`` sizes the
    local executor or a dask:local cluster (which takes one per CPU without it); a scheduler's workers are
    its own. ConfigError names the option at fault."""
    from arena.tournament.config import MAX_WORKERS, ExecutorConfig, cpu_count, parse_executor

    if executor is not None:
        try:
            base = parse_executor(executor)
        except ValueError as e:
            raise ConfigError(f"--executor: {e}") from None
        if base.kind == "dask" and base.address is None:
            base = ExecutorConfig("dask", None, workers or min(cpu_count(), MAX_WORKERS))
    if workers is not None:
        if base.kind == "local":
            base_workers = workers
        elif base.address is None:
            base = dataclasses.replace(base, workers=workers)
        else:
            raise ConfigError(f"--workers: the Dask scheduler at {base.address} plays on its own workers "
                              "(start more with dask worker); expected no --workers, or --executor local or "
                              "dask:local")
    return base, base_workers


def _open_store(path: Path) -> Store:
    from arena.store import Store

    return Store(path)


def _with_seed(config: TournamentConfig, store: Store) -> tuple[TournamentConfig, str]:
    """The config with the seed its schedule is built from, and a note to print when the config lacks it.

    Without ``seed:`` a first run draws one (63 bits from `secrets`: nobody, a bot author included, can
    predict the deals), and a resume takes the one stored by the first run, so it plays what an
    uninterrupted run would have. --fresh deleted the database before this, so it draws anew. The config's
    hash stays that of the seed as written.
    """
    from arena.seeds import random_seed

    if config.seed is not None:
        return config, ""
    stored = store.stored_seed(config.name)
    if stored is not None:
        note = (f"random, kept in the database since the first run; a config with seed: {stored} and a new "
                "database plays these deals again")
        return dataclasses.replace(config, seed=stored), note
    seed = random_seed()
    return dataclasses.replace(config, seed=seed), (f"random; a config with seed: {seed} and a new database "
                                                    "plays these deals again")


def _begin(store: Store, config: TournamentConfig, provenance: Sequence[BotProvenance], force: bool,
           limit: int | None = None) -> None:
    from arena.tournament.config import total_matches
    from arena.tournament.schedule import build_schedule

    schedule = build_schedule(config)
    if limit is not None:
        schedule = schedule[:limit]
    assert config.seed is not None
    store.begin(config.name, str(config.source), config.text, config.hash, config.rules.to_dict(), config.seed,
                config.format, schedule, provenance, force=force,
                total=total_matches(config) if config.format == "swiss" else None)


def _total(config: TournamentConfig, store: Store) -> int:
    """The tournament's matches: those scheduled, and for a Swiss also its rounds not paired yet."""
    from arena.tournament.config import total_matches

    return total_matches(config) if config.format == "swiss" else store.count(config.name)


def _play(
    config: TournamentConfig,
    store: Store,
    on_progress: Callable[[Progress, MatchRecord | None], None] | None,
    writer: _ReportWriter | None,
    log: Log,
    on_record: Callable[[MatchSpec, MatchRecord], bool | None] | None = None,
    secrets: Sequence[Path] = (),
) -> bool:
    """Play the pending matches of a begun tournament; True if interrupted."""
    import trio

    from arena.tournament.runner import Progress, play_tournament

    pending = store.pending(config.name)
    total = _total(config, store)
    done_before = store.count(config.name, "done")
    progress = Progress(total=total, name=config.name, done=done_before, done_before=done_before)
    for winner, bots in store.outcomes(config.name):
        progress.add(winner, bots)
    progress.done = progress.done_before
    where = "" if config.executor.kind == "local" else f", executor {config.executor}"
    log(f"{config.name}: {total} matches, {total - done_before} to play, concurrency {config.concurrency}{where}, "
        f"database {config.database}")
    if on_progress is not None:
        on_progress(progress, None)

    def done(spec: MatchSpec, rec: MatchRecord) -> bool | None:
        if on_progress is not None:
            on_progress(progress, rec)
        if writer is not None:
            writer.maybe()
        return on_record(spec, rec) if on_record is not None else None

    def paired(r: SwissRound) -> None:
        progress.round = f"round {r.index + 1}/{config.rounds}"
        log(f"{progress.round}: {len(r.pairings)} pairings{', bye ' + ', '.join(r.byes) if r.byes else ''}")

    return trio.run(_until_interrupted, play_tournament, config, store, pending, progress, done, secrets, paired)


async def _until_interrupted(fn: Callable[..., Any], *args: Any) -> bool:
    """Run ``fn``; Ctrl-C (SIGINT), SIGTERM or SIGHUP cancels it cleanly. True if it was interrupted.

    Cancelling abandons the running matches (their bots are stopped; nothing of them is stored), while
    every finished match is already in the database. SIGHUP counts too: a closed terminal or ssh session
    then keeps every finished match, like Ctrl-C, instead of killing the run outright.
    A full disk (`DiskFull`, from saving a match or writing the report) stops every match and is raised
    as itself, not inside trio's exception group, so the user sees its one line; so is any other ArenaError
    that stops a run (a Dask scheduler that went away).
    """
    import signal

    import trio

    from arena.store import DiskFull

    interrupted = False
    try:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    nonlocal interrupted
                    async for _ in signals:
                        interrupted = True
                        nursery.cancel_scope.cancel()

                nursery.start_soon(watch)
                await fn(*args)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        full = _find(group, DiskFull) or _find(group, ArenaError)
        if full is None:
            raise
        raise full from None
    return interrupted


def _find(error: BaseException, kind: type[ArenaError]) -> ArenaError | None:
    """The first ``kind`` in an exception or in its (nested) exception groups."""
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    return None


class _ReportWriter:
    """Renders the report at most every few seconds while a tournament runs, and once at the end."""

    INTERVAL_S = 5.0

    def __init__(self, store: Store, config: TournamentConfig) -> None:
        self.store = store
        self.config = config
        self.last = 0.0
        self.index = Path(config.report_dir) / "index.html"

    def maybe(self) -> None:
        if time.monotonic() - self.last >= self.INTERVAL_S:
            self.write(final=False)

    def write(self, final: bool = True) -> None:
        from arena.report import render_report
        from arena.store import DiskFull, is_disk_full

        self.last = time.monotonic()
        out = Path(self.config.report_dir)
        try:
            render_report(self.store, out, index_only=not final)
        except OSError as e:  # the results are safe in the database; say what failed in one line
            if is_disk_full(e):
                raise DiskFull(out, e) from None
            raise ArenaError(f"cannot write the report to {out}: {e.strerror or e}; the results are in "
                             f"{self.config.database} (arena report renders it again)") from None


# Pseudo file systems where a database or a report would be meaningless or harmful (/dev/null, /proc/...);
# /dev/shm is an ordinary tmpfs and stays allowed.
_PSEUDO_FS = ("proc", "sys", "dev")


def check_database_path(path: Path, label: str) -> None:
    """Refuse a database path that cannot work, in one line starting with ``label``; creates its folder
    (the lock file goes there)."""
    db = path.absolute()
    check_output_path(db, label, directory=False)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{label}: cannot create {db.parent} ({e.strerror or e}); expected a path in a "
                          "writable directory") from None


def check_output_path(path: Path, label: str, directory: bool) -> None:
    expected = ("a directory for the HTML report (or a path where one can be created)" if directory else
                "the path of a database file in a writable directory, e.g. reports/NAME/arena.db")

    def bad(what: str) -> ConfigError:
        return ConfigError(f"{label}: {path} {what}; expected {expected}")

    for p in (path, Path(os.path.realpath(path))):
        top = p.parts[1:2]
        if top and top[0] in _PSEUDO_FS and p.parts[1:3] != ("dev", "shm"):
            raise bad(f"is under /{top[0]}, a system directory")
    if directory:
        if path.exists() and not path.is_dir():
            raise bad("is not a directory")
    elif path.is_dir():
        raise bad("is a directory")
    elif path.exists():
        if not path.is_file():
            raise bad("is not a regular file")
        if not os.access(path, os.R_OK | os.W_OK):
            raise bad("is not writable")
    existing = path if directory else path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise bad(f"cannot be created: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise bad(f"cannot be written: {existing} is not writable")


# ----------------------------------------------------------------------------------------- a match series
@dataclass(frozen=True)
class SeriesOutcome:
    """What `play_match` played: ``summary`` is the JSON `arena match --json` prints."""

    names: tuple[str, str]
    seed: int
    summary: dict[str, Any]
    database: Path | None  # the --db file, None when the series used a temporary one
    interrupted: bool


def play_match(
    bot_a: str | Sequence[str],
    bot_b: str | Sequence[str],
    *,
    matches: int = 2,
    seed: int | None = None,
    rules: RuleSet | str = "santase",
    time_control: TimeControl | None = None,
    policy: ViolationPolicy | str = "lose-match",
    duplicate: bool = True,
    concurrency: int | None = None,
    names: tuple[str, str] | None = None,
    sandbox: str | None = None,
    db: str | os.PathLike[str] | None = None,
    sprt: Sprt | PairSprt | MeanSprt | None = None,
    luck_adjusted: bool = False,
    secrets: Sequence[Path] = (),
    on_record: Callable[[MatchSpec, MatchRecord], None] | None = None,
    log: Log = _quiet,
) -> SeriesOutcome:
    """Play ``matches`` matches between two bots, each a command line (a string, or an argv list).

    The same schedule as `run_tournament` for a two-bot round robin of ``ceil(matches / 2)`` rounds with the
    same seed, cut after ``matches``: seats alternate and, with ``duplicate``, matches 2k and 2k+1 share
    their deals. ``db`` keeps the results in that database (the schema of `arena run`, resumed if it holds
    this same series); without it they go to a temporary one. ``sprt`` stops the series once it decides;
    with ``luck_adjusted`` it decides on the luck-adjusted score (a `MeanSprt`, docs/STATISTICS.md).
    ``names=None`` names each bot by its handshake (`handshake_names`), else by its command line.
    """
    from arena.botspec import resolve_command
    from arena.game.variants import PRESETS
    from arena.referee.clock import TimeControl
    from arena.referee.sandbox import bot_files, check_bot_files, resolve_sandbox
    from arena.store import RunLock
    from arena.tournament.build import bot_provenance
    from arena.tournament.config import MAX_CONCURRENCY

    if isinstance(rules, str):
        rules = PRESETS[rules]
    commands = [c if isinstance(c, str) else " ".join(c) for c in (bot_a, bot_b)]
    argv = [tuple(resolve_command(c, Path.cwd())) if isinstance(c, str) else tuple(c) for c in (bot_a, bot_b)]
    fallback = default_names(commands[0], commands[1])
    chosen = resolve_sandbox(sandbox)
    if chosen == "bwrap":
        for i in (0, 1):
            check_bot_files((names or fallback)[i], bot_files(argv[i], None, [argv[1 - i]], secrets))
    database = None if db is None else Path(db)
    if database is not None:  # before any bot starts, the handshake probe included
        check_database_path(database, "--db")
    # every bot is started once first: one that cannot complete its handshake stops the series here
    # (BotStartError), and the names it gives are its display names unless `names` are given
    hellos = hello_names((argv[0], argv[1]), chosen, time_control or TimeControl(), secrets, strict=True,
                         labels=names or fallback)
    if names is None:
        names = display_names((hellos[0], hellos[1]), fallback)
    concurrency = concurrency or min(os.cpu_count() or 1, MAX_CONCURRENCY)
    with tempfile.TemporaryDirectory(prefix="arena-match-") as scratch:
        path = database or Path(scratch) / "match.db"
        config = series_config(names, argv, commands, rules, time_control or TimeControl(), policy, duplicate,
                               seed, matches, concurrency, chosen, path)
        with RunLock(path), _open_store(path) as store:
            config, seed_note = _with_seed(config, store)
            assert config.seed is not None
            if seed_note and seed is None:
                log(f"seed {config.seed} (random; pass --seed {config.seed} to replay)")
            _begin(store, config, bot_provenance(config, {}), force=False, limit=matches)
            if sprt is not None and store.count(config.name, "done"):
                raise ConfigError(f"--sprt: {path} already holds {store.count(config.name, 'done')} matches of this "
                                  "series, and an SPRT decides from the first match on; use a new --db file")
            warning = guessable_seed_warning(seed, f"--seed {seed}")  # (after every refusal: one line)
            if warning:
                log(warning)
            if sprt is not None and luck_adjusted:
                # a continuous score per unit: the pair's mean adjusted score, or one match's
                sprt = MeanSprt(sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, per_unit=2 if duplicate else 1)
            elif sprt is not None and duplicate and not isinstance(sprt, PairSprt):
                # matches 2k and 2k+1 share their deals: the pair is the unit (STATISTICS.md)
                sprt = PairSprt(sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
            stop = _SprtFeed(sprt, names[0]) if sprt is not None else None
            played: dict[int, str] = {}  # order -> match id, of the matches this call played

            def recorded(spec: MatchSpec, rec: MatchRecord) -> bool:
                played[spec.order] = spec.match_id
                if on_record is not None:
                    on_record(spec, rec)
                return stop.feed(spec, rec) if stop is not None else False

            interrupted = _play(config, store, None, None, _quiet, recorded, secrets)
            store.finish(config.name)
            # after a verdict, the matches it counted (others may have been under way); without one, all of
            # them, a duplicate pair's lone last match included
            counted = (None if stop is None or stop.sprt.verdict is None
                       else {played[order] for order in range(stop.games)})
            summary = series_summary(store, config, names, counted)
            if stop is not None and sprt is not None:
                summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                                   "verdict": sprt.verdict, "llr": round(sprt.llr, 4),
                                   "bounds": [round(x, 4) for x in sprt.bounds], "matches": stop.games,
                                   "games": stop.games,  # games: the older name of matches, kept
                                   "unit": "pair" if stop.step == 2 else "match",
                                   "luck_adjusted": isinstance(sprt, MeanSprt)}
        return SeriesOutcome(names, config.seed, summary, database, interrupted)


class _SprtFeed:
    """Feeds the SPRT in match order, so its verdict does not depend on which match finished first; a
    `PairSprt` gets each duplicate pair (matches 2k and 2k+1) once both are in. ``games``: the matches the
    verdict counted."""

    def __init__(self, sprt: Sprt | PairSprt | MeanSprt, first: str) -> None:
        self.sprt = sprt
        self.first = first
        self.fed: dict[int, float] = {}
        self.games = 0
        self.step = 2 if isinstance(sprt, PairSprt) or (isinstance(sprt, MeanSprt) and sprt.per_unit == 2) else 1

    def feed(self, spec: MatchSpec, rec: MatchRecord) -> bool:
        score = 1.0 if rec.winner_name == self.first else 0.0
        if isinstance(self.sprt, MeanSprt):  # the first bot's luck-adjusted score
            from arena.stats.luck import adjusted
            from arena.store import record_luck

            luck = record_luck(rec)
            score = adjusted(score, luck if rec.bots[0] == self.first else -luck)
        self.fed[spec.order] = score
        step = self.step
        while all(self.games + i in self.fed for i in range(step)):
            scores = [self.fed.pop(self.games + i) for i in range(step)]
            self.sprt.update(sum(scores) / step)
            self.games += step
            if self.sprt.verdict is not None:
                return True
        return False


def series_config(
    names: tuple[str, str], argv: Sequence[tuple[str, ...]], commands: Sequence[str], rules: RuleSet,
    time_control: TimeControl, policy: ViolationPolicy | str, duplicate: bool, seed: int | None, matches: int,
    concurrency: int, sandbox: str | None, database: Path,
) -> TournamentConfig:
    """The two-bot round robin a match series is: what `arena run` would read from an equivalent file."""
    import yaml

    from arena.referee.policy import ViolationPolicy
    from arena.referee.process import Limits
    from arena.tournament.config import BotConfig, TournamentConfig, settings_hash

    rounds = math.ceil(matches / 2)
    text = yaml.safe_dump({
        "name": f"{names[0]}-vs-{names[1]}", "seed": seed, "rounds": rounds, "duplicate": duplicate,
        "variant": rules.to_dict(),
        "time": {key: f"{ms}ms" for key, ms in (("move", time_control.move_ms), ("bank", time_control.bank_ms),
                                                  ("handshake", time_control.handshake_ms),
                                                  ("grace", time_control.grace_ms)) if ms is not None},
        "on_violation": str(policy),
        # the resolved command lines: the file may be run from anywhere
        "bots": [{"name": n, "command": shlex.join(a)} for n, a in zip(names, argv, strict=True)],
    }, sort_keys=False)
    config = TournamentConfig(
        name=f"{names[0]}-vs-{names[1]}", rules=rules, format="round-robin", challenger=None, rounds=rounds,
        duplicate=duplicate, seed=seed, concurrency=concurrency, workers=1, time=time_control,
        on_violation=ViolationPolicy(policy),
        limits=Limits(), reuse_bots=False,
        bots=tuple(BotConfig(n, a, c, time=time_control) for n, a, c in zip(names, argv, commands, strict=True)),
        database=database, report_dir=Path(f"{database}.report"),  # a match series writes no report
        source=Path("arena-match.yaml"),
        text=f"# arena match, {matches} matches: `arena run` plays the same matches from this file\n{text}", hash="",
        sandbox=sandbox,  # type: ignore[arg-type]
    )
    return dataclasses.replace(config, hash=settings_hash(config.settings()))


def series_summary(store: Store, config: TournamentConfig, names: tuple[str, str],
                   only: set[str] | None) -> dict[str, Any]:
    """The summary `arena match` prints (and --json gives), over the matches ``only`` names if given."""
    facts = store.match_facts(config.name, think_times=False)
    if only is not None:
        facts = [f for f in facts if f.match_id in only]
    assert config.seed is not None
    from arena.report.context import pair_keys

    pair_of = pair_keys(store.matches(config.name))
    return summarize(names, facts, config.rules, config.seed, store.match_luck(config.name), pair_of)


def summarize(names: tuple[str, str], facts: Sequence[MatchFacts], rules: RuleSet, seed: int,
              lucks: Mapping[str, float] | None = None,
              pair_of: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """The summary `arena match` prints (and gives as JSON): the per-bot figures are the standings'
    (arena.stats.standings), from the facts the store reads back for the report. ``lucks`` (seat 0's luck by
    match id, `Store.match_luck`) adds the first bot's luck-adjusted score, by duplicate pair (``pair_of``)."""
    from arena.stats import Result, standings
    from arena.stats.luck import luck_table

    totals = standings(facts, bots=names)
    elo = None
    decided = [r for r in facts if r.winner is not None]
    # the two matches of a duplicate pair are one unit of every interval, as in the report (STATISTICS.md)
    results = {r.match_id: Result(r.bots[0], r.bots[1], 1.0 if r.winner == 0 else 0.0, (pair_of or {}).get(r.match_id))
               for r in decided}
    luck = None
    if decided and lucks is not None:
        scored = [match_id for match_id in results if match_id in lucks]
        table = luck_table([results[m] for m in scored], [lucks[m] for m in scored])
        luck = table[names[0]].as_dict() if names[0] in table else None
    if decided:
        from arena.stats import ratings

        rt = ratings(list(results.values()), anchor=names[1], bootstrap=300, seed=seed)
        a = rt[names[0]]
        elo = {"bot": names[0], "against": names[1], "elo": round(a.elo, 1),
               "interval": None if a.lo is None or a.hi is None else [round(a.lo, 1), round(a.hi, 1)],
               "units": a.units, "approximate": a.approximate}
    return {
        "variant": rules.name,
        "elo_difference": elo,
        "seed": seed,
        "matches": totals.matches,
        "bots": list(names),
        "wins": {n: totals[n].wins for n in names},
        "game_points": {n: totals[n].game_points for n in names},
        "deals": {"played": totals.deals, "won": {n: totals[n].deals_won for n in names}},
        "terminations": {n: dict(totals[n].terminations) for n in names},
        "luck_adjusted": luck,
    }



def handshake_names(
    argv: tuple[Sequence[str], Sequence[str]], fallback: tuple[str, str], sandbox: str = "auto",
    time_control: TimeControl | None = None, secrets: Sequence[Path] = (),
) -> tuple[str, str]:
    """Display names for two bots from the names they give in their handshake (``bot 1 NAME``): `hello_names`,
    then `display_names` with ``fallback`` (the names from their command lines, `default_names`)."""
    a, b = hello_names(argv, sandbox, time_control, secrets)
    return display_names((a, b), fallback)


def hello_names(
    argvs: Sequence[Sequence[str]], sandbox: str = "auto", time_control: TimeControl | None = None,
    secrets: Sequence[Path] = (), strict: bool = False, labels: Sequence[str] | None = None,
) -> list[str | None]:
    """The name each bot gives in its handshake, or None for a bot that gives no hello (it crashes, stays
    silent or answers wrongly: the match that follows shows why). ``strict``: such a bot is an error instead
    (BotStartError, naming its command, why and the end of its stderr). The bots are started at once, each
    in its sandbox as a match would start it (every other bot's program hidden), answer ``arena ...`` and
    are sent ``quit``. ``labels``: the bots' names in such an error (default bot0, bot1, ...)."""
    import trio

    from arena.referee.clock import TimeControl
    from arena.referee.process import BotSpec, Limits
    from arena.referee.sandbox import bot_files
    from arena.referee.session import Player
    from arena.tournament.preflight import BotStartError, failures, probe_all

    tc = time_control or TimeControl()
    commands = [tuple(a) for a in argvs]
    players = [Player(BotSpec(name=labels[i] if labels else f"bot{i}", argv=command, limits=Limits(), sandbox=sandbox,
                              files=bot_files(command, None, commands[:i] + commands[i + 1:], secrets)), tc)
               for i, command in enumerate(commands)]
    probes = trio.run(probe_all, players, len(players))
    failed = failures(players, probes, [shlex.join(c) for c in commands])
    if strict and failed:
        raise BotStartError(failed)
    return [None if p.hello is None else p.hello.name for p in probes]


def display_names(hellos: tuple[str | None, str | None], fallback: tuple[str, str]) -> tuple[str, str]:
    """Display names from the handshake names: a hello name that is not a valid bot name (`name_problem`, or
    one with ``-vs-``, which separates the names in match ids) gives way to the ``fallback`` (the command's
    name); two equal names become NAME-1 and NAME-2, as two equal commands do, or the fallbacks when that
    would make them too long."""
    from arena.tournament.config import name_problem, splits_match_ids

    def valid(name: str | None) -> bool:
        return name is not None and name_problem(name) is None and not splits_match_ids(name)

    a, b = (h if h is not None and valid(h) else f for h, f in zip(hellos, fallback, strict=True))
    if a != b:
        return a, b
    suffixed = (a + "-1", b + "-2")
    return suffixed if all(valid(n) for n in suffixed) else fallback


def default_names(a: str, b: str) -> tuple[str, str]:
    """Names for two bot commands: the script an interpreter runs (python bots/greedy.py -> greedy), else
    the program (bots/c/random 1 -> random); -1 and -2 when they are the same."""

    def name(cmd: str) -> str:
        tokens = cmd.split() or ["bot"]
        script = next((t for t in tokens[1:] if "/" in t or Path(t).suffix in (".py", ".sh", ".js")), tokens[0])
        return Path(script).stem or "bot"

    na, nb = name(a), name(b)
    if na == nb:
        na, nb = na + "-1", nb + "-2"
    return na, nb
