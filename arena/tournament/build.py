"""Build steps before a tournament, and the provenance of every bot (what exactly played).

A bot's ``build`` is a shell command run once before the tournament in the config file's directory; bots
sharing the same build command (``make -C bots/c`` for several C bots) share one run. A bot with a build
has its command checked only here, after the build, since the build may be what produces the program.

A build runs what a stranger wrote (a Makefile, a build script), so it runs in the sandbox the bots run in
(arena.referee.sandbox, ``build=``): the same namespaces and view of the system, the config's folder
readable, the folders of the bots it builds writable, no network unless a bot's ``build_network`` asks for
it, at most ``BUILD_TIMEOUT_S`` and ``BUILD_OUTPUT_LIMIT`` bytes of output, ``BUILD_MEMORY_BYTES`` of memory,
files of ``BUILD_FILE_BYTES`` at most, ``BUILD_DISK_BYTES`` and ``BUILD_DISK_FILES`` of the disk of the folders
it writes, and all CPUs but one (`build_cpus`): a ladder builds a stranger's upload while its matches play, and
a build must neither starve their clocks nor fill the disk their database is on.
"""

from __future__ import annotations

import dataclasses
import os
import select
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.botspec import BotProvenance, fingerprint, own_files
from arena.referee.process import bot_environment
from arena.referee.sandbox import (
    PASS_FDS,
    SANDBOX_TMP,
    BuildAccess,
    SandboxPlan,
    plan_sandbox,
    resolve_sandbox,
    sandbox_hint,
    unreadable,
)
from arena.tournament.config import BotConfig, ConfigFileError, Problem, TournamentConfig, check_bot_command
from arena.units import size_text

__all__ = ["BUILD_TIMEOUT_S", "BuildLimits", "BuildResult", "bot_provenance", "run_builds"]

BUILD_TIMEOUT_S = 300.0
BUILD_OUTPUT_LIMIT = 8 * 1024 * 1024  # bytes of output (stdout and stderr together) a build may print
BUILD_PROCESSES = 256  # processes of one sandboxed build at once (make -j, a compiler's subprocesses)
BUILD_MEMORY_BYTES = 4 * 1024**3  # memory a sandboxed build's processes hold together (a cgroup, as root)
BUILD_FILE_BYTES = 1024**3  # the largest file a sandboxed build may write; its /tmp and /dev/shm hold as much
BUILD_DISK_BYTES = 2 * 1024**3  # what a sandboxed build may take of the free space of the disk it writes
BUILD_DISK_FILES = 100_000  # files and folders it may make there (a disk runs out of inodes too)
_DISK_CHECK_S = 0.5  # how often the folders a build writes are measured while it runs
_TAIL_LINES = 20
_TAIL_CHARS = 2000


@dataclass(frozen=True)
class BuildResult:
    """What one build printed (stdout and stderr together) and whether it succeeded."""

    output: str
    ok: bool


def build_cpus() -> float:
    """How many CPUs a sandboxed build may keep busy together: all but one, and at least one."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return float(max(1, cpus - 1))


@dataclass(frozen=True)
class BuildLimits:
    """What one sandboxed build may use (the module's constants; tests lower them)."""

    timeout: float = BUILD_TIMEOUT_S
    memory_bytes: int = BUILD_MEMORY_BYTES
    disk_bytes: int = BUILD_DISK_BYTES
    disk_files: int = BUILD_DISK_FILES


def run_builds(config: TournamentConfig, *, timeout: float | None = None,
               limits: BuildLimits | None = None, check: bool = True) -> dict[str, BuildResult]:
    """Run each distinct build command once; return the result for every bot that has a build.

    Raises ConfigFileError (file:line of each failed bot's ``build`` key, and the tail of the output) when a
    build fails or times out, and — once all builds succeeded, and ``check`` — when a built bot's command
    still cannot be started. All failing builds are run and reported together.

    A confined bot's build (`BotConfig.confined`: an upload) sees and writes its bot's folder alone; the
    config's folder is not shown to it.
    """
    by_command: dict[str, list[int]] = {}
    for index, bot in enumerate(config.bots):
        if bot.build is not None:
            by_command.setdefault(bot.build, []).append(index)

    limits = limits or BuildLimits()
    if timeout is not None:
        limits = dataclasses.replace(limits, timeout=timeout)
    results: dict[str, BuildResult] = {}
    problems: list[Problem] = []
    sandboxed = (config.sandbox if config.sandbox in ("bwrap", "none") else resolve_sandbox(config.sandbox)) == "bwrap"
    # One at a time, not through the runner's slots: two builds may share a Makefile or an output folder,
    # and make runs its own jobs in parallel when asked to (make -j).
    for command, indexes in by_command.items():
        access = None
        if sandboxed:
            bots = [config.bots[i] for i in indexes]
            others = [bot for i, bot in enumerate(config.bots) if i not in indexes]
            access = BuildAccess(tuple(folder for bot in bots for folder in build_folders(bot)),
                                 network=any(bot.build_network for bot in bots),
                                 protected=tuple(path for bot in others for path in bot_paths(bot)),
                                 readable=tuple(str(path) for bot in bots for path in bot.sandbox_paths),
                                 confined=all(bot.confined for bot in bots))
        result, failure = _run(command, config, limits, access)
        for i in indexes:
            results[config.bots[i].name] = result
        if failure is not None:
            first = indexes[0]
            key = f"bots[{first}].build"
            shared = [config.bots[i].name for i in indexes[1:]]
            also = f" (also the build of {', '.join(shared)})" if shared else ""
            problems.append(Problem(
                str(config.source), config.lines.get(key), key,
                f"build {command!r}{also} {failure}",
                "a build command that succeeds (it runs with sh in the config's directory)",
                _tail(result.output),
            ))
    if problems:
        raise ConfigFileError(problems)

    for bot in config.bots:
        if bot.build is not None and check:
            try:
                check_bot_command(config, bot)
            except ConfigFileError as e:
                problems.extend(e.problems)
    if problems:
        raise ConfigFileError(problems)
    return results


def bot_provenance(config: TournamentConfig, builds: dict[str, BuildResult]) -> list[BotProvenance]:
    """One per bot, in config order."""
    return [
        BotProvenance(bot.name, bot.command_text, tuple(bot.command), fingerprint(bot.command),
                      None if bot.name not in builds else builds[bot.name].output)
        for bot in config.bots
    ]


def bot_paths(bot: BotConfig) -> list[str]:
    """A bot's program (unless a system one), script and `build_folders`: what another bot's build must not
    write."""
    return [*own_files(bot.command), *build_folders(bot)]


def build_folders(bot: BotConfig) -> list[str]:
    """The folders a bot's build may write: its ``cwd``, and the folders of its program and script (the
    nearest existing one above, for a folder the build is to make); a confined bot's ``cwd`` alone. From
    the resolved command (absolute paths), never from the text as written."""
    if bot.confined and bot.cwd is not None:
        return [str(bot.cwd)]
    paths = [str(bot.cwd)] if bot.cwd is not None else []
    paths += [os.path.dirname(p) for p in own_files(bot.command)]
    folders = []
    for path in paths:
        path = os.path.abspath(path)
        while not os.path.isdir(path) and os.path.dirname(path) != path:
            path = os.path.dirname(path)
        folders.append(path)
    return folders


def _sandbox(command: str, config: TournamentConfig, access: BuildAccess, memory_bytes: int) -> SandboxPlan:
    workdir = Path(access.writable[0]) if access.confined and access.writable else config.directory
    return plan_sandbox(["/bin/sh", "-c", command], workdir, _shown(config, access), memory_bytes,
                        BUILD_PROCESSES, None, BUILD_FILE_BYTES, bot_environment(SANDBOX_TMP), cpus=build_cpus(),
                        build=access)


def _shown(config: TournamentConfig, access: BuildAccess) -> tuple[str, ...]:
    """What a build's sandbox shows beyond the system (as `arena.referee.sandbox.bot_files` gives a bot's)."""
    from arena.tournament.runner import run_secrets

    shown = access.writable if access.confined else (str(config.directory),)
    return (*shown, *access.readable, *(f"!{os.path.abspath(p)}" for p in run_secrets(config)))


def _run(command: str, config: TournamentConfig, limits: BuildLimits,
         access: BuildAccess | None = None) -> tuple[BuildResult, str | None]:
    """Run one build, in a sandbox with ``access`` (None: unsandboxed); the failure text is None on success."""
    plan = None
    restore: Callable[[], None] = _nothing
    out_of_memory = False
    disk = _DiskWatch(access.writable, limits) if access is not None else None
    read_end, write_end = os.pipe()
    output = bytearray()
    try:
        try:
            if access is not None:
                plan = _sandbox(command, config, access, limits.memory_bytes)
                if plan.uid is not None:
                    hidden = unreadable(_shown(config, access))
                    if hidden is not None:
                        plan.release()
                        return BuildResult("", False), (
                            f"cannot run: it runs as a user of its own, and {hidden[0]} is not readable by other "
                            f"users (mode {hidden[1]:04o}); make it readable (chmod a+rX {hidden[0]})")
                    wrong = _unlendable(access.writable)
                    if wrong is not None:
                        plan.release()
                        return BuildResult("", False), f"cannot run: {wrong}; give its bot a folder of its own"
                    restore = _lend(access, plan.uid)
                proc = subprocess.Popen(plan.argv, cwd=plan.cwd, env={"PATH": "/usr/bin:/bin"},
                                        stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.STDOUT,
                                        start_new_session=True, preexec_fn=plan.preexec, pass_fds=PASS_FDS)
            else:
                proc = subprocess.Popen(
                    command, shell=True, cwd=config.directory, stdin=subprocess.DEVNULL, stdout=write_end,
                    stderr=subprocess.STDOUT, start_new_session=True,
                )
        except OSError as e:
            if plan is not None:
                plan.release()
            return BuildResult(str(e), False), f"could not be started ({e.strerror})"
        finally:
            os.close(write_end)
        try:
            ended = _collect(proc, read_end, output, limits.timeout, disk)
        finally:
            _kill_group(proc)  # what the build left running (or all of it, interrupted or out of time)
            proc.wait()
            if plan is not None:
                out_of_memory = plan.cgroup is not None and plan.cgroup.oom_kills() > 0
                plan.release()
    finally:
        os.close(read_end)
        restore()
    text = bytes(output[:BUILD_OUTPUT_LIMIT]).decode("utf-8", "replace")
    if ended == "timeout":
        return BuildResult(text, False), f"did not finish within {limits.timeout:g} s"
    if disk is not None and (disk.reason or disk.over()):  # (looked at again: a quick build may be done)
        return BuildResult(text, False), f"{disk.reason}; it was stopped (docs/SECURITY.md)"
    if ended == "output":
        return BuildResult(text, False), f"printed more than {size_text(BUILD_OUTPUT_LIMIT)}"
    if access is not None and proc.returncode == 1 and text.startswith("bwrap:"):
        return BuildResult(text, False), "could not start in the sandbox (docs/SECURITY.md)"
    if proc.returncode != 0 and out_of_memory:
        limit = size_text(limits.memory_bytes)
        return BuildResult(text, False), f"ran out of memory: a build's processes may hold {limit} together " \
                                         "(docs/SECURITY.md)"
    if proc.returncode != 0:
        how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"failed with exit status {proc.returncode}")
        if access is not None:
            hint = sandbox_hint(["/bin/sh", "-c", command], config.directory, _shown(config, access), text)
            how += f" in the sandbox; {hint}" if hint else " in the sandbox (docs/SECURITY.md)"
        return BuildResult(text, False), how
    return BuildResult(text, True), None


def _nothing() -> None:
    pass


def _lend(access: BuildAccess, uid: int) -> Callable[[], None]:
    """Make the folders a build may write its uid's (the build runs as a uid of its own, not as root), and
    return what gives them back: every path to the owner it had, a path the build made to its folder's
    owner, with no set-user-ID or set-group-ID bit and not writable by others. Links are not followed. The
    other bots' files in those folders (``access.protected``) are lent too, but shown read-only to it."""
    owners: dict[str, tuple[int, int]] = {}
    folders = [os.path.normpath(f) for f in access.writable if os.path.isdir(f)]
    for folder in folders:
        for path in _walk(folder):
            try:
                st = os.lstat(path)
                owners[path] = (st.st_uid, st.st_gid)
                os.lchown(path, uid, uid)
            except OSError:
                continue

    def give_back() -> None:
        for folder in folders:
            top = owners.get(folder, (0, 0))
            for path in _walk(folder):
                try:
                    st = os.lstat(path)
                    if st.st_uid != uid and path not in owners:
                        continue  # not the build's, not lent: left alone
                    os.lchown(path, *owners.get(path, top))
                    if not stat.S_ISLNK(st.st_mode):
                        os.chmod(path, stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH))
                except OSError:
                    continue

    return give_back


# Folders never lent to a build, nor any folder that holds one: the system's, users' homes, and the Python
# that runs arena (a build that owned them could rewrite what the referee runs).
_NEVER_LENT = ("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/var", "/boot", "/dev", "/proc", "/sys", "/run",
               "/home", "/root", "/opt", "/srv", "/tmp", "/mnt", "/media")


def _unlendable(folders: Sequence[str]) -> str | None:
    """Why one of ``folders`` may not be lent to a build (None: all may be)."""
    import arena

    runtime = (sys.prefix, sys.base_prefix, os.path.dirname(arena.__file__))
    keep = [*_NEVER_LENT, *{os.path.realpath(p) for p in runtime}]
    for folder in folders:
        real = os.path.realpath(folder)
        inner = next((k for k in keep if k == real or k.startswith(real.rstrip("/") + "/")), None)
        if inner is not None:
            what = "is" if inner == real else "holds"
            return f"its build would write {folder}, which {what} {inner}"
    return None


def _walk(folder: str) -> Iterator[str]:
    """``folder`` and everything below it, not following links."""
    yield folder
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            yield os.path.join(root, name)


class _DiskWatch:
    """What a build takes of the disks of the folders it may write, against its limits: their free space and
    free inodes before it starts, then every ``_DISK_CHECK_S`` (a build writing at full speed overshoots by
    what it writes in that time). A disk's free space, not the folders' size: it costs one system call
    however many files a folder holds, and it is what a full disk takes from everyone else. (Another program
    writing gigabytes to the same disk meanwhile would count too.)"""

    def __init__(self, folders: Sequence[str], limits: BuildLimits) -> None:
        self.limits = limits
        self.disks: dict[int, str] = {}  # one folder per file system
        for folder in folders:
            try:
                self.disks.setdefault(os.stat(folder).st_dev, folder)
            except OSError:
                pass
        self.before = {dev: self._free(folder) for dev, folder in self.disks.items()}
        self.checked = time.monotonic()
        self.reason: str | None = None  # the first time it was over

    @staticmethod
    def _free(folder: str) -> tuple[int, int]:
        try:
            st = os.statvfs(folder)
        except OSError:
            return 0, 0
        return st.f_bavail * st.f_frsize, st.f_favail

    def due(self) -> bool:
        return time.monotonic() - self.checked >= _DISK_CHECK_S

    def over(self) -> str | None:
        """Why the build has written too much (kept in ``reason``), or None."""
        self.checked = time.monotonic()
        for dev, folder in self.disks.items():
            size, files = self._free(folder)
            if self.before[dev][1] - files > self.limits.disk_files:
                self.reason = f"made more than {self.limits.disk_files:,} files and folders on the disk of {folder}"
            elif self.before[dev][0] - size > self.limits.disk_bytes:
                self.reason = f"wrote more than {size_text(self.limits.disk_bytes)} to the disk of {folder}"
            if self.reason is not None:
                return self.reason
        return None


def _collect(proc: subprocess.Popen[bytes], out: int, output: bytearray, timeout: float,
             disk: _DiskWatch | None = None) -> str:
    """Read the build's output into ``output`` until its shell exits: "exit", "timeout", "output" as soon as
    it has printed more than BUILD_OUTPUT_LIMIT (read as it comes, so no more than that is ever kept), or
    "disk" once it has written more than ``disk`` allows.

    The build is over when its shell exits, even where it left a process behind (`server &`) that holds the
    pipe open: what is in the pipe then is read, and nothing is waited for."""
    deadline = time.monotonic() + timeout
    os.set_blocking(out, False)
    open_pipe = True
    while True:
        exited = proc.poll() is not None
        left = deadline - time.monotonic()
        if open_pipe and select.select([out], [], [], 0 if exited else max(0.0, min(0.2, left)))[0]:
            try:
                chunk = os.read(out, 1 << 16)
            except BlockingIOError:
                continue
            if chunk:
                output += chunk
                if len(output) > BUILD_OUTPUT_LIMIT:
                    return "output"
                continue
            open_pipe = False  # every writer is gone: only the shell's exit is left to wait for
        if exited:
            return "exit"
        if left <= 0:
            return "timeout"
        if disk is not None and disk.due() and disk.over() is not None:
            return "disk"
        if not open_pipe:
            try:
                proc.wait(timeout=max(0.0, min(0.2, left)))
            except subprocess.TimeoutExpired:
                pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tail(output: str) -> str:
    lines = output.rstrip().splitlines()
    if not lines:
        return "  (the build printed nothing)"
    tail = "\n".join(lines[-_TAIL_LINES:])[-_TAIL_CHARS:]
    head = f"  last {_TAIL_LINES} lines of its output:" if len(lines) > _TAIL_LINES else "  its output:"
    return head + "\n" + "\n".join("    " + line for line in tail.splitlines())
