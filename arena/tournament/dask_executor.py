"""The Dask executor: every match one task on a Dask cluster (`executor: {dask: ...}`, docs/DISTRIBUTED.md).

`arena run` stays the one coordinator: its runner (arena.tournament.runner) decides which match is played
when and how many are in flight, and only it writes the database and the report. ``DaskExecutor.play``
submits one task per match (``play_task``: ``trio.run`` of the same referee code the local executor runs,
with fresh bot processes) and returns the MatchRecord the task sends back. A worker that dies mid-match costs
nothing but time: the scheduler runs the task again on another worker, and since a match replays exactly
from its seeds, the record is the one the first worker would have made. The future resolves once, so the
coordinator stores it once.

Waiting without blocking trio: a Dask future calls its done-callbacks from a thread of the client's;
the callback hands ``Event.set`` to the trio loop through ``TrioToken.run_sync_soon`` (the one trio call
that is safe from another thread). No thread is held while a match is played and nothing polls; only the
short fetch of a finished result runs in a worker thread (``trio.to_thread``), since the client's
``result()`` blocks on a network round trip. A lost scheduler cancels every future at once (reason
``scheduler-connection-lost``), which wakes every waiting slot: the run stops with one line, and the
matches that were in flight are pending again for the next run.

Bots on the workers: either the same paths exist there (a shared filesystem), or ``ship:`` on a bot sends
its files with a worker plugin, which every worker (also one that joins or restarts later) unpacks into its
local directory and verifies against the sha256 of each file; the task then points the bot's command,
working directory and sandbox view at that copy. Importing this module imports ``distributed`` if it is
installed; nothing on the local path imports this module.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import shutil
import stat
import sys
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.botspec import fingerprint, script_argument
from arena.errors import ArenaError, ConfigError
from arena.game.variants import RuleSet
from arena.referee.match import Player
from arena.referee.policy import ViolationPolicy
from arena.referee.record import MatchRecord, MatchSpec
from arena.tournament.config import ExecutorConfig, TournamentConfig, cpu_count
from arena.units import MiB


def _plugin_base() -> Any:
    """A plugin must be a WorkerPlugin (the client dispatches on its type); without the extra there is none,
    and require_distributed() says so before any plugin is made."""
    try:
        from distributed.diagnostics.plugin import WorkerPlugin
    except ImportError:
        return object
    return WorkerPlugin


_WorkerPlugin: Any = _plugin_base()

INSTALL_HINT = "pip install 'arena[dask]'"
MAX_SHIP_BYTES = 64 * MiB  # of one bot's shipped files: more is almost surely a folder shipped by mistake
_SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
_PYTHON_PLACEHOLDER = "<python>"  # stands for the interpreter in the fingerprint of a bot's other parts
_VERIFIED = ".arena-verified"  # written last into a shipped folder: the folder is complete and checked


class DaskRunError(ArenaError):
    """The run cannot go on on the cluster: the scheduler is gone, a match killed every worker it was given,
    or shipping a bot's files failed. Finished matches are stored; the same command resumes."""


class WorkerSetupError(ArenaError):
    """A worker cannot play matches as asked (e.g. sandbox bwrap where bubblewrap does not work): raised by
    the task on that worker, and shown by `arena run` as one line."""


def require_distributed(where: str = "") -> Any:
    """The ``distributed`` module, or ConfigError: one line saying what to install."""
    try:
        import distributed
    except ImportError as e:
        prefix = f"{where}: " if where else ""
        raise ConfigError(f"{prefix}the Dask executor needs the distributed package, which cannot be imported "
                          f"({e}); install it with {INSTALL_HINT}") from None
    return distributed


# ----------------------------------------------------------------------------------------- shipping
@dataclass(frozen=True)
class Bundle:
    """A bot's shipped files: relative to ``root`` on the coordinator, with each file's mode and sha256."""

    bot: str
    root: str
    files: tuple[tuple[str, int, str], ...]  # (path relative to root, mode, sha256 hex)
    data: tuple[bytes, ...]
    digest: str  # of the manifest: names the folder on the workers


@dataclass(frozen=True)
class DaskPlan:
    """What the Dask executor needs beyond the players: where the cluster is, and the bundles to ship."""

    executor: ExecutorConfig
    bundles: Mapping[str, Bundle]


def plan_dask(config: TournamentConfig, secrets: Iterable[Path] = ()) -> DaskPlan:
    """Read every ``ship:`` bot's files now (after the builds); ConfigError names the file and line."""
    hidden = {os.path.abspath(p) for p in secrets}
    bundles: dict[str, Bundle] = {}
    for index, bot in enumerate(config.bots):
        if bot.ship is False:
            continue
        where = f"{config.where(f'bots[{index}].ship')}: bots[{index}].ship"
        if bot.ship is True:
            program = bot.command[0] if "/" in bot.command[0] else None
            main = script_argument(bot.command) or program
            if bot.cwd is not None:
                roots = [str(bot.cwd)]
            elif main is not None:
                roots = [os.path.dirname(os.path.abspath(main))]
            else:
                raise ConfigError(f"{where}: the command names no file to ship (its program is found on PATH); "
                                  "expected a list of the bot's files and folders, e.g. ship: [mybot.jar]")
        else:
            roots = [str(p) for p in bot.ship]
        bundles[bot.name] = _bundle(bot.name, roots, hidden, where)
    return DaskPlan(config.executor, bundles)


def _bundle(bot: str, paths: Sequence[str], hidden: set[str], where: str) -> Bundle:
    for p in paths:
        if not os.path.exists(p):
            raise ConfigError(f"{where}: {p} not found; expected files and folders of the bot "
                              "(relative to the config's directory)")
    tops = [p if os.path.isdir(p) else os.path.dirname(p) for p in paths]
    root = os.path.commonpath(tops)
    found: list[str] = []
    for p in paths:
        if os.path.isfile(p):
            found.append(p)
            continue
        for folder, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and os.path.join(folder, d) not in hidden)
            found.extend(os.path.join(folder, n) for n in sorted(names))
    files: list[tuple[str, int, str]] = []
    data: list[bytes] = []
    total = 0
    for path in sorted(set(found)):
        if os.path.abspath(path) in hidden or not os.path.isfile(path):
            continue  # the run's config, database and report; sockets, FIFOs, dangling links
        with open(path, "rb") as f:
            content = f.read(MAX_SHIP_BYTES + 1)
        total += len(content)
        if total > MAX_SHIP_BYTES:
            raise ConfigError(f"{where}: the files under {root} are more than {MAX_SHIP_BYTES // MiB} MiB; "
                              "expected a bot's own files (list them: ship: [bot.py, lib/])")
        mode = 0o755 if os.stat(path).st_mode & stat.S_IXUSR else 0o644
        files.append((os.path.relpath(path, root), mode, hashlib.sha256(content).hexdigest()))
        data.append(content)
    if not files:
        raise ConfigError(f"{where}: no files to ship under {root}; expected the bot's files and folders")
    digest = hashlib.sha256(json.dumps(files, separators=(",", ":")).encode()).hexdigest()
    return Bundle(bot, root, tuple(files), tuple(data), digest)


class ShipPlugin(_WorkerPlugin):  # type: ignore[misc]  # Any: the base exists only with the extra
    """Unpacks the bundles on every worker (those that join or restart later too) into
    ``<worker local directory>/arena-ship/<folder>``, checking each file's sha256, and removes them when the
    run ends."""

    def __init__(self, folders: Mapping[str, Bundle]) -> None:
        self.folders = dict(folders)  # folder name -> bundle

    def setup(self, worker: Any) -> None:
        base = Path(worker.local_directory) / "arena-ship"
        for name, bundle in self.folders.items():
            unpack(bundle, base / name)

    def teardown(self, worker: Any) -> None:
        base = Path(worker.local_directory) / "arena-ship"
        for name in self.folders:
            shutil.rmtree(base / name, ignore_errors=True)


class IgnoreInterrupt(_WorkerPlugin):  # type: ignore[misc]  # Any: the base exists only with the extra
    """dask:local's workers share `arena run`'s terminal: Ctrl-C is for `arena run`, which stops the cluster
    (its workers also exit when `arena run` does), not for each worker to print a traceback of its own."""

    def setup(self, worker: Any) -> None:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def unpack(bundle: Bundle, dest: Path) -> None:
    """Write a bundle to ``dest`` (readable by every user: a sandboxed bot runs as a uid of its own), each file
    checked against its sha256 as received and as written; the marker file comes last."""
    if (dest / _VERIFIED).is_file():
        return
    staging = dest.with_name(dest.name + f".part-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        staging.mkdir(parents=True, mode=0o755)
        for (rel, mode, sha), content in zip(bundle.files, bundle.data, strict=True):
            if hashlib.sha256(content).hexdigest() != sha:
                raise WorkerSetupError(f"bot {bundle.bot}: {rel} arrived damaged (sha256 differs); not unpacked")
            target = staging / rel
            if os.path.isabs(rel) or ".." in Path(rel).parts:
                raise WorkerSetupError(f"bot {bundle.bot}: {rel} is outside the bot's folder; not unpacked")
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            target.write_bytes(content)
            os.chmod(target, mode)
            if hashlib.sha256(target.read_bytes()).hexdigest() != sha:
                raise WorkerSetupError(f"bot {bundle.bot}: {rel} was not written intact to {target}")
        for folder, dirs, _ in os.walk(staging):
            for d in dirs:
                os.chmod(os.path.join(folder, d), 0o755)
        os.chmod(staging, 0o755)
        (staging / _VERIFIED).write_text(bundle.digest)
        os.chmod(dest.parent, 0o755)
        try:
            staging.rename(dest)
        except OSError:  # another thread of this worker got there first
            if not (dest / _VERIFIED).is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ----------------------------------------------------------------------------------------- the task
def play_task(setup: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """One match on a Dask worker, with the referee of the local executor; returns ``MatchRecord.to_dict()``.

    Runs in one of the worker's threads: its own ``trio.run``, its bots started for this match and stopped
    before it returns (no reuse across tasks, so a task rerun after a worker died starts from nothing).
    """
    from arena.referee.sandbox import bwrap_problem
    from arena.tournament.worker import player_from_dict

    match = MatchSpec.from_dict(spec)
    pin = setup.get("pin")
    if pin:
        _pin_thread(pin)
    players = {d["name"]: player_from_dict(_on_this_worker(d, setup)) for d in setup["players"]}
    if any(p.spec.sandbox == "bwrap" for p in players.values()):
        problem = bwrap_problem()
        if problem is not None:
            raise WorkerSetupError(f"Dask worker {_worker_address()}: the run asks for sandbox bwrap, but {problem}; "
                                   "install bubblewrap on every worker, or use sandbox: none (docs/DISTRIBUTED.md)")
    rules = RuleSet.from_dict({"preset": "santase", **setup["rules"]})
    policy = ViolationPolicy(setup["policy"])
    record = trio.run(_play_one, match, players, rules, policy)
    return record.to_dict()


async def _play_one(spec: MatchSpec, players: Mapping[str, Player], rules: RuleSet,
                    policy: ViolationPolicy) -> MatchRecord:
    from arena.referee.pool import MatchPool

    async with trio.open_nursery() as nursery:
        pool = MatchPool(nursery, reuse=False)
        try:
            return await pool.play(spec, players, rules, policy)
        finally:
            await pool.close()
            nursery.cancel_scope.cancel()


def _worker() -> Any:
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):  # not in a Dask task (a test calling play_task directly)
        return None


def _worker_address() -> str:
    worker = _worker()
    return "(not a Dask worker)" if worker is None else str(worker.address)


def _pin_thread(cpus: Sequence[int]) -> None:
    """dask:local pins each worker process to a CPU of its own, as `workers: N` does: this task's thread and
    so the bots it starts (they inherit the mask) stay on the worker's CPU."""
    worker = _worker()
    if worker is None or not isinstance(worker.name, int):
        return
    try:
        os.sched_setaffinity(0, {cpus[worker.name % len(cpus)]})
    except (AttributeError, OSError):
        pass


def _on_this_worker(player: dict[str, Any], setup: dict[str, Any]) -> dict[str, Any]:
    """A player as the coordinator described it, with its paths made true on this worker.

    - a shipped bot's paths under its folder point into the worker's unpacked copy;
    - ``python`` in a command means the interpreter running arena: the coordinator's becomes this worker's,
      and the fingerprint is taken anew only if the rest of the command (script and files, by content) has
      the coordinator's fingerprint, so a different bot on this worker still ends in ``tampered``;
    - a program or script that does not exist here is not fingerprinted: starting it fails, and the seat
      ends in ``crash`` ("cannot start ..."), not in a misleading ``tampered``.
    """
    moves: list[tuple[str, str]] = []
    ship = player.get("ship")
    worker = _worker()
    if ship is not None and worker is not None:
        dest = Path(worker.local_directory) / "arena-ship" / ship["folder"]
        if (dest / _VERIFIED).is_file():
            moves.append((ship["root"], str(dest)))
    coordinator_python, here = setup.get("python"), sys.executable
    argv = [_moved(a, moves) for a in player["argv"]]
    swapped = bool(argv) and argv[0] == coordinator_python and here != coordinator_python
    if swapped:
        argv[0] = here
    files = None if player["files"] is None else [_moved_file(f, moves, coordinator_python, here)
                                                  for f in player["files"]]
    cwd = None if player["cwd"] is None else _moved(player["cwd"], moves)
    fp = player["fingerprint"]
    if fp is not None and not _startable(argv):
        fp = None
    elif fp is not None and swapped:
        rest = fingerprint([_PYTHON_PLACEHOLDER, *argv[1:]])
        fp = fingerprint(argv) if rest == player.get("fingerprint_rest") else fp
    return {**player, "argv": argv, "cwd": cwd, "files": files, "fingerprint": fp}


def _moved(text: str, moves: Sequence[tuple[str, str]]) -> str:
    """``text`` (a path, or ``--opt=path``) with a shipped folder's path replaced by its copy's."""
    if text.startswith("-") and "=" in text:
        option, value = text.split("=", 1)
        return f"{option}={_moved(value, moves)}"
    for root, dest in moves:
        if text == root or text.startswith(root.rstrip("/") + "/"):
            return dest + text[len(root.rstrip("/")):]
    return text


def _moved_file(entry: str, moves: Sequence[tuple[str, str]], python: str | None, here: str) -> str:
    hidden = entry.startswith("!")
    path = entry[1:] if hidden else entry
    path = here if path == python else _moved(path, moves)
    return f"!{path}" if hidden else path


def _startable(argv: Sequence[str]) -> bool:
    program = argv[0]
    if "/" in program and not os.path.isfile(program):
        return False
    if "/" not in program and shutil.which(program) is None:
        return False
    script = script_argument(argv)
    return script is None or os.path.isfile(script)


# ----------------------------------------------------------------------------------------- the coordinator
class DaskExecutor:
    """Plays each match as one task on the cluster; the runner's concurrency bounds the tasks in flight."""

    def __init__(self, client: Any, players: Mapping[str, dict[str, Any]], common: dict[str, Any], nonce: str,
                 address: str, concurrency: int) -> None:
        self.client = client
        self.players = players  # as described for the workers (`_describe`)
        self.common = common
        self.nonce = nonce
        self.address = address
        self.fetch_limiter = trio.CapacityLimiter(max(1, concurrency))

    async def play(self, spec: MatchSpec) -> MatchRecord:
        distributed: Any = require_distributed()

        # only the match's two players travel with its task
        setup = {**self.common, "players": [self.players[spec.seat0], self.players[spec.seat1]]}
        future = self.client.submit(play_task, setup, spec.to_dict(), key=f"arena-{spec.match_id}-{self.nonce}",
                                    pure=False)
        done = trio.Event()
        token = trio.lowlevel.current_trio_token()

        def wake(_: Any) -> None:  # in a thread of the client's
            try:
                token.run_sync_soon(done.set)
            except trio.RunFinishedError:
                pass

        future.add_done_callback(wake)
        try:
            await done.wait()
        finally:
            if not future.done():  # cancelled here (Ctrl-C, an SPRT decision): the cluster may drop the task
                future.release()
        if future.status == "cancelled":  # not by us: the scheduler went away (or someone cancelled it there)
            reason = "the connection to it was lost"
            try:
                await trio.to_thread.run_sync(future.result, limiter=self.fetch_limiter)
            except Exception as e:  # noqa: BLE001 - only its reason is wanted
                reason = getattr(e, "reason", None) or reason
            raise self.gone(spec, reason)
        try:
            data = await trio.to_thread.run_sync(future.result, limiter=self.fetch_limiter)
        except distributed.KilledWorker as e:
            raise DaskRunError(f"match {spec.match_id} was lost: every Dask worker that played it died ({e}); "
                               "finished matches are stored, and the same command resumes (see "
                               "docs/DISTRIBUTED.md, Faults)") from None
        except ArenaError:  # raised by the task (WorkerSetupError): its one line says what to fix
            raise
        except Exception as e:
            if future.status == "error":  # the task raised: a bug in arena, with its traceback from the worker
                raise
            raise self.gone(spec, f"the connection broke while fetching a result: {type(e).__name__}") from None
        return MatchRecord.from_dict(data)

    def gone(self, spec: MatchSpec, reason: str) -> DaskRunError:
        return DaskRunError(f"the Dask scheduler at {self.address} is gone ({reason}) while match {spec.match_id} "
                            "was in flight; finished matches are stored: run the same command again to resume once "
                            "the scheduler is back")


def _describe(players: Mapping[str, Player], bundles: Mapping[str, Bundle], nonce: str) -> dict[str, dict[str, Any]]:
    """Each player as plain data for the tasks (worker.py's form), with what a worker needs to find it."""
    from arena.tournament.worker import player_to_dict

    described: dict[str, dict[str, Any]] = {}
    for name, player in players.items():
        d = player_to_dict(player)
        d["fingerprint_rest"] = fingerprint([_PYTHON_PLACEHOLDER, *player.spec.argv[1:]])
        bundle = bundles.get(name)
        if bundle is not None:
            d["ship"] = {"root": bundle.root, "folder": _folder(bundle, nonce)}
        described[name] = d
    return described


def _folder(bundle: Bundle, nonce: str) -> str:
    return f"{bundle.bot}-{bundle.digest[:16]}-{nonce}"


def _connect(executor: ExecutorConfig, concurrency: int) -> tuple[Any, Any, str, list[int] | None]:
    """Blocking (in a thread): a client of the configured scheduler, or of a new LocalCluster."""
    import logging

    distributed: Any = require_distributed()
    if executor.address is not None:
        try:
            client = distributed.Client(executor.address, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise DaskRunError(f"cannot reach the Dask scheduler at {executor.address} ({e}); start one with "
                               "`dask scheduler`, or check the address (docs/DISTRIBUTED.md)") from None
        return client, None, executor.address, None
    workers = executor.workers or cpu_count()
    try:
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=max(1, math.ceil(concurrency / workers)), processes=True,
            # any free port for the scheduler's HTTP server (without one it takes 8787, with a warning when
            # that is in use), and no dashboard
            host="127.0.0.1", scheduler_port=0, dashboard_address="127.0.0.1:0", worker_dashboard_address=None,
            # and the worker processes' own log kept to critical errors: a worker that loses the scheduler while
            # the cluster shuts down logs a heartbeat failure with a traceback into arena's stderr; what a
            # worker's trouble means for a match, arena says itself (a rerun, a crash)
            scheduler_kwargs={"dashboard": False}, memory_limit=0, silence_logs=logging.CRITICAL,
        )
    except RuntimeError as e:  # a worker process that could not start (interrupted, out of memory, ...)
        raise DaskRunError(f"could not start a Dask LocalCluster of {workers} workers on 127.0.0.1: {e}") from None
    try:
        client = distributed.Client(cluster)
        client.register_plugin(IgnoreInterrupt(), name="arena-ignore-interrupt")
    except BaseException:
        cluster.close()
        raise
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return client, cluster, str(cluster.scheduler_address), cpus if len(cpus) >= workers else None


def _close(client: Any, cluster: Any, plugin: str | None) -> None:
    """Best effort, never raising: the run's own outcome (or error) is what the user must see. A worker that
    keeps a shipped folder after a lost scheduler has it removed with its local directory when it closes."""
    try:
        if plugin is not None and client.status == "running":
            try:
                client.unregister_worker_plugin(plugin)
            except Exception:  # noqa: BLE001
                pass
        try:
            client.close(timeout=10)
        except Exception:  # noqa: BLE001
            pass
        if cluster is not None:
            try:
                cluster.close(timeout=10)
            except Exception:  # noqa: BLE001
                pass
    except Exception:  # noqa: BLE001
        pass


class _OnlyCritical:
    """A logging filter: while `arena run` is a Dask client, the client's own log (reconnection attempts with
    their tracebacks when the scheduler goes away) stays out of the terminal; arena says what happened in one
    line. Dask's handler sits on the ``distributed`` logger, which every ``distributed.*`` logger reaches."""

    def filter(self, record: Any) -> bool:
        return bool(record.levelno >= 50)


@asynccontextmanager
async def _quiet_client_log() -> AsyncIterator[None]:
    import logging

    handlers = list(logging.getLogger("distributed").handlers)
    only = _OnlyCritical()
    for h in handlers:
        h.addFilter(only)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(only)


@asynccontextmanager
async def open_dask_executor(players: Mapping[str, Player], rules: RuleSet, policy: ViolationPolicy,
                             concurrency: int, plan: DaskPlan) -> AsyncIterator[DaskExecutor]:
    """Connect to the scheduler (or start a LocalCluster), ship the bundles, and yield the executor; on the
    way out the shipped files are removed from the workers and a LocalCluster is stopped."""
    require_distributed()
    async with _quiet_client_log():
        async with _open_dask_executor(players, rules, policy, concurrency, plan) as executor:
            yield executor


@asynccontextmanager
async def _open_dask_executor(players: Mapping[str, Player], rules: RuleSet, policy: ViolationPolicy,
                              concurrency: int, plan: DaskPlan) -> AsyncIterator[DaskExecutor]:
    client, cluster, address, pin = await trio.to_thread.run_sync(_connect, plan.executor, concurrency)
    plugin_name: str | None = None
    try:
        nonce = secrets.token_hex(6)
        if plan.bundles:
            plugin_name = f"arena-ship-{nonce}"
            plugin = ShipPlugin({_folder(b, nonce): b for b in plan.bundles.values()})
            try:
                await trio.to_thread.run_sync(lambda: client.register_plugin(plugin, name=plugin_name))
            except ArenaError as e:
                raise DaskRunError(f"shipping the bots' files to the workers failed: {e}") from None
            except OSError as e:
                raise DaskRunError(f"shipping the bots' files to the workers failed ({e}); check the workers' "
                                   "local directory (dask worker --local-directory)") from None
        threads = sum(w.get("nthreads", 0) for w in client.scheduler_info().get("workers", {}).values())
        if plan.executor.address is not None and 0 < concurrency < threads:
            print(f"arena: note: concurrency {concurrency} keeps at most {concurrency} of the cluster's {threads} "
                  f"worker threads busy; set concurrency: {min(threads, 256)} (or --concurrency) to use them all",
                  file=sys.stderr, flush=True)
        common = {"rules": rules.to_dict(), "policy": str(policy), "python": sys.executable, "pin": pin}
        yield DaskExecutor(client, _describe(players, plan.bundles, nonce), common, nonce, address, concurrency)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_close, client, cluster, plugin_name)
