"""One bot process: spawn it in its own session, drain its pipes, stop its whole process group.

Bots are strangers' code. Each runs in a new session (so its process group is ours to kill), in its own
working directory, with a minimal environment and resource limits. stdout is split into lines by the
protocol's LineSplitter (so a 10 MB line without a newline is caught at 4 KiB); stderr is read all the
time into a capped log, so a chatty bot never blocks on a full pipe. Stopping sends SIGTERM to the group,
waits a short grace, sends SIGKILL, and reaps what is left: the referee makes itself a child subreaper,
so a bot's forked children that outlive it are re-parented to us and reaped here, not left as zombies.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

import trio

from arena.protocol.codec import BotProtocolError, LineSplitter
from arena.referee.sandbox import (
    PASS_FDS,
    SANDBOX_TMP,
    SandboxKind,
    SandboxPlan,
    plan_sandbox,
    process_gone,
    reap_orphaned_inits,
    resolve_sandbox,
)

STDERR_CAP = 64 * 1024
TRANSCRIPT_LINE_CAP = 4200  # characters of one transcript line kept (bot lines are capped at 4 KiB anyway)
# bytes of a bot's `info` lines kept per match (docs/PROTOCOL.md): a bot that floods commentary for all its
# time would otherwise fill the referee's memory and the database (100 MB a second is easy)
INFO_CAP = 256 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot (None = unlimited). In the sandbox, memory and processes hold for the whole
    bot (a cgroup), and file_size also caps its private /tmp; without one, each holds per process."""

    memory_bytes: int | None = 2 * 1024**3
    cpu_seconds: int | None = None
    # None: DEFAULT_PROCESSES in the sandbox; unlimited without one (RLIMIT_NPROC would count every process
    # of the user running arena there)
    processes: int | None = None
    file_size_bytes: int | None = 64 * 1024**2
    # CPUs the whole bot may keep busy at once (its cgroup's quota, in the sandbox as root): a bot that starts
    # busy loops slows only itself, not its opponent's replies (docs/SECURITY.md)
    cpus: float | None = 1.0


@dataclass(frozen=True)
class BotSpec:
    """One bot's command and how to run it. ``sandbox``: bwrap, none, or auto (bwrap where it works).
    ``fingerprint``: what `arena.botspec.fingerprint` gave for the program when the run began; a process
    is started only while the program is still the same (else the seat ends in ``tampered``)."""

    name: str
    argv: tuple[str, ...]
    cwd: Path | None = None  # None: a fresh private directory per process (/tmp in the sandbox)
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "auto"
    fingerprint: str | None = None
    files: tuple[str, ...] | None = None  # what its sandbox shows of its own (None: sandbox.bot_files)
    # descriptors the process inherits at the same numbers, without a sandbox only: arena's own seats
    # (`arena play` passes the person's terminal to the human seat, arena.human); never a stranger's bot
    pass_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class Line:
    """A complete line from the bot's stdout, with its arrival time (trio clock, seconds)."""

    raw: bytes
    at: float


@dataclass(frozen=True)
class Eof:
    """stdout closed (or the process exited and its stdout is drained)."""

    at: float
    exited: bool
    returncode: int | None


@dataclass(frozen=True)
class Broken:
    """The bot's byte stream broke the protocol below the line level (over-long line)."""

    error: BotProtocolError
    at: float


Incoming = Line | Eof | Broken


try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None
_subreaper = False


def _make_subreaper() -> None:
    """Once per referee process, before its first bot starts."""
    global _subreaper
    if _subreaper:
        return
    _subreaper = True
    try:
        if _LIBC is not None:
            _LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except AttributeError:  # not Linux: orphans go to init as usual
        pass


_swept = False
_WORKDIR = re.compile(r"arena-.*-p(\d+)-[a-z0-9_]{8}")  # what start_bot's mkdtemp makes


def _sweep_dead_workdirs() -> None:
    """Once per referee process: remove the working folders of unsandboxed bots whose referee died without
    removing them (SIGKILLed: its bots died with it, as its subreaper children). A folder whose referee's pid
    is running (it, or a process that has its number now) is left alone, as is one of another user."""
    global _swept
    if _swept:
        return
    _swept = True
    base = tempfile.gettempdir()
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        match = _WORKDIR.fullmatch(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        path = os.path.join(base, name)
        try:
            mine = os.lstat(path).st_uid == os.geteuid() and os.path.isdir(path)
        except OSError:
            continue
        if mine and process_gone(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def die_with_parent(parent: int) -> Callable[[], None]:
    """A ``preexec_fn`` that has the child SIGKILLed when ``parent`` (the spawning thread) dies.

    Only for children spawned from the main thread (see DirectProcess): the signal follows the thread.
    """

    def preexec() -> None:  # in the child, before exec: plain system calls only
        if _LIBC is not None:
            _LIBC.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return preexec


def _apply_limits(pid: int, limits: Limits) -> None:
    """Set the bot's resource limits from outside, right after it started.

    Not in a preexec_fn: that forces fork() instead of vfork/posix_spawn (about 3 ms more per bot), and a
    PR_SET_PDEATHSIG set there fires when trio's spawning *thread* exits, killing bots 10 s after start.
    The price is a window of microseconds after exec before the limits hold, far shorter than any bot's
    start-up.
    """
    for res, value in (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes),
    ):
        if value is not None:
            try:
                resource.prlimit(pid, res, (value, value))
            except ProcessLookupError:  # it already exited; the exit watcher reports that
                return


def bot_environment(cwd: str) -> dict[str, str]:
    """A minimal environment: enough to find interpreters and speak UTF-8, nothing of the referee's."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": cwd,
        "TMPDIR": cwd,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _capped(text: str) -> str:
    if len(text) > TRANSCRIPT_LINE_CAP:
        return text[:TRANSCRIPT_LINE_CAP] + f"... [{len(text)} characters]"
    return text


class Transcript:
    """Every line both ways with a timestamp (ms since the transcript began), plus notes.

    ``entries`` is the list of ``(ms, direction, text)``. The referee adds a batch of lines and a reply per
    decision, so an addition only appends the raw seconds, direction and text to three flat lists;
    ``entries`` makes the tuples of what was added since it was last read, in C (``map``/``zip``): the
    milliseconds rounded to the microsecond, over-long lines capped."""

    def __init__(self) -> None:
        self.start = trio.current_time()
        self._entries: list[tuple[float, str, str]] = []
        self._t: list[float] = []  # seconds since start, one per line
        self._dir: list[str] = []
        self._text: list[str] = []
        self.info_bytes = 0  # of the `info` lines kept since the entries were last taken (`keep_info`)
        self.info_dropped = 0  # `info` lines not kept since then

    @property
    def entries(self) -> list[tuple[float, str, str]]:
        texts = self._text
        if texts:
            if max(map(len, texts)) > TRANSCRIPT_LINE_CAP:
                texts = [_capped(text) for text in texts]
            ms = map(round, map(_MS.__mul__, self._t), repeat(3))  # round(t * 1000, 3)
            self._entries.extend(zip(ms, self._dir, texts, strict=True))
            self._t, self._dir, self._text = [], [], []
        return self._entries

    @entries.setter
    def entries(self, value: list[tuple[float, str, str]]) -> None:
        self._entries = value
        self._t, self._dir, self._text = [], [], []
        self.info_bytes = self.info_dropped = 0  # (taken by the match: the next one starts afresh)

    def keep_info(self, size: int, at: float) -> bool:
        """Whether an ``info`` line of ``size`` bytes that arrived at ``at`` goes into the transcript: no
        once the match's kept ones reach INFO_CAP. The first one dropped leaves a note that says so."""
        if self.info_bytes + size <= INFO_CAP:
            self.info_bytes += size
            return True
        if not self.info_dropped:
            self.add("!", f"info lines past {INFO_CAP // 1024} KiB in a match are not kept; from here on "
                          "this match's are dropped", at)
        self.info_dropped += 1
        return False

    def add(self, direction: str, text: str, at: float | None = None) -> None:
        self._t.append((trio.current_time() if at is None else at) - self.start)
        self._dir.append(direction)
        self._text.append(text)

    def add_lines(self, direction: str, lines: Sequence[str], at: float | None = None) -> None:
        """`add` for several lines written at once: one timestamp for all (the referee's batches)."""
        n = len(lines)
        self._t.extend(repeat((trio.current_time() if at is None else at) - self.start, n))
        self._dir.extend(repeat(direction, n))
        self._text.extend(lines)


_MS = 1000.0  # t * 1000 == 1000.0 * t: the same float


class DirectProcess:
    """A child started with ``subprocess.Popen`` on the referee's own (main) thread, with the parts of
    ``trio.Process`` the referee uses: pid, returncode, the three pipes as trio streams, and ``wait()``.

    Why not ``trio.lowlevel.open_process``: it forks from a worker thread, and bubblewrap's
    ``--die-with-parent`` (PR_SET_PDEATHSIG) fires when the *thread* that forked it exits, which trio's
    idle worker threads do after 10 s. Forked from the main thread, the sandbox dies exactly when the
    referee does.
    """

    def __init__(self, popen: subprocess.Popen[bytes], stdin: int, stdout: int, stderr: int | None) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.returncode: int | None = None
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self.stderr = None if stderr is None else trio.lowlevel.FdStream(stderr)

    @classmethod
    def spawn(cls, argv: Sequence[str], cwd: str | None, env: dict[str, str] | None, preexec: Any,
              pass_fds: Sequence[int] = (), *, new_session: bool = True, capture_stderr: bool = True) -> DirectProcess:
        """Start ``argv`` with pipes for stdin, stdout and (unless ``capture_stderr`` is false: then it is
        ours) stderr; ``preexec`` runs in the child before exec."""
        ours: list[int] = []
        theirs: list[int] = []
        try:
            for child_reads in (True, False, False)[: 3 if capture_stderr else 2]:
                r, w = os.pipe2(os.O_CLOEXEC)
                ours.append(w if child_reads else r)
                theirs.append(r if child_reads else w)
            popen = subprocess.Popen(
                list(argv), stdin=theirs[0], stdout=theirs[1], stderr=theirs[2] if capture_stderr else None,
                cwd=cwd, env=env, start_new_session=new_session, preexec_fn=preexec, close_fds=True,
                pass_fds=pass_fds,
            )
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        return cls(popen, ours[0], ours[1], ours[2] if capture_stderr else None)

    def kill(self) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    async def wait(self) -> int:
        if self.returncode is None:
            pidfd = os.pidfd_open(self.pid)
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                trio.lowlevel.notify_closing(pidfd)
                os.close(pidfd)
            self.returncode = self._popen.wait()
        return self.returncode


class BotProcess:
    """A running bot. Create with ``start_bot``; ``stop()`` ends and reaps its whole process group."""

    def __init__(self, spec: BotSpec, proc: trio.Process | DirectProcess, own_dir: str | None, kill_grace: float,
                 sandbox: SandboxPlan | None = None) -> None:
        self.spec = spec
        self.proc = proc
        self.sandbox = sandbox
        self.own_dir = own_dir  # a temporary working directory to remove after the process
        self.kill_grace = kill_grace
        self._scope = trio.CancelScope()
        self._stopped = False
        self.transcript = Transcript()
        self.stderr = bytearray()
        self.stderr_dropped = 0
        # stdout is read in the task that waits for a reply (no reader task, no channel: a decision costs
        # one wake-up, not three); lines that arrive unasked wait in the inbox
        assert proc.stdout is not None and proc.stdin is not None
        self._stdout_fd: int = proc.stdout.fileno()  # type: ignore[attr-defined]  # an FdStream
        self._stdin_fd: int = proc.stdin.fileno()  # type: ignore[attr-defined]  # an FdStream
        # "is there anything on stdout?" asked without a read that fails (an exception costs more than poll)
        self._ready = select.poll()
        self._ready.register(self._stdout_fd, select.POLLIN)
        self._now = trio.lowlevel.current_clock().current_time  # trio.current_time, minus two calls
        self.sent_at = 0.0  # trio time of the last batch written: the clock of a decision starts there
        self._splitter = LineSplitter()
        self._inbox: deque[Incoming] = deque()
        self._eof = False
        self._broken = False
        self._waiter: trio.CancelScope | None = None  # the receive() waiting on stdout, for the exit watcher
        # The deadline of a wait for stdout is kept by one task per bot (`_alarm_loop`) instead of a cancel
        # scope per wait: entering and leaving a scope with a deadline was a tenth of the referee's CPU in
        # a tournament. It ends a wait that outlives its deadline (or the process) with notify_closing.
        self._alarm: trio.CancelScope | None = None
        self._alarm_running = False
        self._wait_deadline = math.inf  # the deadline of the wait in progress (inf: none)
        self._woken = False  # the wait in progress was ended on purpose (deadline, exit), not by a close
        self._hot = True  # the last look at stdout found a line waiting
        self._missed = False  # the last look found nothing, and nothing has been read since
        self.exited = trio.Event()
        self.returncode: int | None = None
        self.name = spec.name

    # -- background tasks
    async def _run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        with self._scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read_stderr)
                nursery.start_soon(self._watch_exit)
                nursery.start_soon(self._alarm_loop)
                task_status.started()

    async def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        while True:
            try:
                data = await stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            if not data:
                return
            self._keep_stderr(data)

    def _keep_stderr(self, data: bytes | bytearray) -> None:
        room = STDERR_CAP - len(self.stderr)
        if room > 0:
            self.stderr += data[:room]
        self.stderr_dropped += max(0, len(data) - max(room, 0))

    def drain_stderr(self) -> None:
        """Take what is still in the stderr pipe once the bot has ended, before its reader is cancelled.

        The reader task may not have run since the bot's last write (a traceback, a goodbye after ``quit``):
        without this, those last lines, often the ones that say why, would be lost. The pipe is non-blocking,
        and the reads are bounded in case a stray process outside the group still writes to it.
        """
        stream = self.proc.stderr
        if stream is None:
            return
        for _ in range(2 * STDERR_CAP // 65536 + 2):
            try:
                data = os.read(stream.fileno(), 65536)  # type: ignore[attr-defined]  # an FdStream
            except OSError:  # BlockingIOError: nothing more now; or the pipe is already closed
                return
            if not data:
                return
            self._keep_stderr(data)

    async def _watch_exit(self) -> None:
        self._has_exited(await self.proc.wait())

    def _has_exited(self, returncode: int) -> None:
        if self.exited.is_set():
            return
        self.returncode = returncode
        self.exited.set()
        if self._waiter is not None:  # wake a receive(): a forked child may hold stdout open forever
            self._waiter.cancel()
        self._wake_waiter()

    async def _alarm_loop(self) -> None:
        """Wake the wait for stdout in progress when its deadline passes. The alarm's cancel scope is made
        again only when it goes off; a wait moves its deadline only when it needs an earlier one, which in
        a match is almost never (each decision's deadline lies after the last one's)."""
        self._alarm_running = True
        try:
            while True:
                # (once it has woken a wait, nothing until that wait has ended and another one begins)
                with trio.CancelScope(deadline=math.inf if self._woken else self._wait_deadline) as alarm:
                    self._alarm = alarm
                    await trio.sleep_forever()
                self._alarm = None
                if self._now() >= self._wait_deadline:
                    self._wake_waiter()
        finally:
            self._alarm_running = False
            self._alarm = None

    def _wake_waiter(self) -> None:
        """End the wait for stdout in progress, if one is (its task sees ClosedResourceError, and `_woken`)."""
        if self._wait_deadline != math.inf and not self._woken:
            self._woken = True
            trio.lowlevel.notify_closing(self._stdout_fd)

    async def wait_exit(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the process to exit; True if it has.

        Waits on the process itself, not on the exit watcher: when a run is interrupted the watcher is
        cancelled with its nursery, and waiting for its event would always take the whole ``seconds``.
        """
        with trio.move_on_after(seconds):
            if not self.exited.is_set():
                self._has_exited(await self.proc.wait())
        return self.exited.is_set()

    # -- protocol-level I/O
    async def send(self, lines: Sequence[str]) -> bool:
        """Write lines in one write. False if the bot's stdin is gone (it exited or closed it)."""
        rest = self.send_now(lines)
        if rest is None:
            return False
        return await self.send_rest(rest) if rest else True

    def send_now(self, lines: Sequence[str]) -> bytes | None:
        """`send` without waiting: what the pipe did not take at once (b"" when it took everything), or
        None if the bot's stdin is gone. Finish a remainder with `send_rest`."""
        if not lines:
            return b""
        data = ("\n".join(lines) + "\n").encode()
        try:
            # The pipe is non-blocking: one os.write almost always takes the whole batch, without the
            # cost of a cancel scope and trio's send machinery (a fifth of the referee's CPU per decision).
            written = os.write(self._stdin_fd, data)
        except BlockingIOError:
            written = 0
        except OSError:  # EPIPE: the bot is gone or closed its stdin
            self.transcript.add_lines(">", lines)
            return None
        # written: a decision's clock starts now (PROTOCOL.md, "Time"); the transcript's time of the lines too
        self.sent_at = now = self._now()
        self.transcript.add_lines(">", lines, now)
        return data[written:]

    async def send_rest(self, rest: bytes) -> bool:
        """The remainder `send_now` left, written as the pipe takes it; False if stdin is gone meanwhile."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            # A bot that stopped reading can fill the pipe; never wait on it for long.
            with trio.fail_after(5):
                await stdin.send_all(rest)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            return False
        return True

    def _fill(self) -> None:
        """Read whatever stdout has now (the pipe is non-blocking) into the inbox: at most 1 MiB a call, so
        that a bot that never stops writing cannot keep the referee reading (and its inbox growing)."""
        for _ in range(16):
            if self._eof or self._broken:
                return
            try:
                data = os.read(self._stdout_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._eof = True
                return
            now = self._now()
            try:
                lines = self._splitter.feed(data)
            except BotProtocolError as e:
                self._inbox.append(Broken(e, now))
                self._broken = True
                return
            if len(lines) == 1:
                self._inbox.append(Line(lines[0], now))
            else:
                self._inbox.extend([Line(raw, now) for raw in lines])
            if len(data) < 65536:
                return

    def _fill_if_ready(self) -> None:
        """`_fill`, when stdout has something to read (or has closed): most of the time it has nothing, and
        a poll(2) that says so is cheaper than a read(2) that fails."""
        if not self._eof and not self._broken and self._ready.poll(0):
            self._fill()

    def poll(self) -> Incoming | None:
        """The next line (or stream error) that has arrived, without waiting."""
        inbox = self._inbox
        if not inbox:
            # Where the last look found the reply waiting (one CPU, or several matches at once), it
            # usually is again: read at once. Where it did not, ask poll(2) first (a read that finds
            # nothing costs an exception).
            if self._hot:
                self._fill()
            else:
                self._fill_if_ready()
            self._missed = not inbox
            self._hot = not self._missed
        return inbox.popleft() if inbox else None

    def waiting_lines(self) -> int:
        """How many lines (or stream errors) have arrived and wait to be received, after one more look."""
        self._fill_if_ready()
        return len(self._inbox)

    def pending_now(self) -> list[Incoming]:
        """Every line (or stream error) that arrived and was not received yet, without waiting."""
        self._fill_if_ready()
        if not self._inbox:
            return []
        out = list(self._inbox)
        self._inbox.clear()
        return out

    async def receive(self) -> Incoming:
        """The next line, stream error, or end of stdout (which also ends when the process exits)."""
        item = await self.receive_until(math.inf)
        assert item is not None
        return item

    async def receive_until(self, deadline: float) -> Incoming | None:
        """`receive`, or None when the trio clock reaches ``deadline`` first (the pipe is read once more
        then: a reply that is there already counts). The referee waits like this once per decision: the
        deadline is the alarm task's (`_alarm_loop`), not a cancel scope of each wait's own, and a reply
        that is on the pipe already is taken without awaiting anything."""
        # a look that found nothing just now (the referee's `line_now`) need not be repeated before the wait
        looked, self._missed = self._missed, False
        while True:
            if looked:
                looked = False
                item = self._inbox.popleft() if self._inbox else None
            else:
                item = self.poll()
            if item is not None:
                return item
            if self._eof or self._broken or self.exited.is_set():
                with trio.move_on_at(deadline):
                    return await self._ending()
                return self.poll()
            if self._now() >= deadline:
                return self.poll()  # one more look: a reply that is there already counts
            if self._alarm_running:
                if await self._wait_readable(deadline):
                    self._fill()  # readable: no need to ask poll(2) first
                continue
            with trio.CancelScope(deadline=deadline) as waiter:  # before the alarm's task has started
                self._waiter = waiter
                try:
                    await trio.lowlevel.wait_readable(self._stdout_fd)
                except trio.ClosedResourceError:
                    self._eof = True
                finally:
                    self._waiter = None
            if not waiter.cancelled_caught:
                self._fill()

    async def _wait_readable(self, deadline: float) -> bool:
        """Wait until stdout is readable (True), or the alarm or the exit watcher ends the wait (False)."""
        self._wait_deadline = deadline
        alarm = self._alarm
        if alarm is not None and alarm.deadline > deadline:
            alarm.deadline = deadline
        try:
            await trio.lowlevel.wait_readable(self._stdout_fd)
            return True
        except trio.ClosedResourceError:
            if not self._woken:  # closed for real
                self._eof = True
            return False
        finally:
            self._wait_deadline = math.inf
            self._woken = False

    async def _ending(self) -> Incoming:
        """What `receive` returns once stdout is closed or the process has exited."""
        while True:
            if self._eof or self._broken:
                # stdout closed: the process may or may not be exiting; give it a moment to tell
                await self.wait_exit(0.2)
                return Eof(trio.current_time(), self.exited.is_set(), self.returncode)
            # exited, but a forked child may hold stdout open: let the pipe drain, then the exit counts
            with trio.move_on_after(0.2):
                await trio.lowlevel.wait_readable(self._stdout_fd)
            item = self.poll()
            if item is not None:
                return item
            if not self._eof:
                return Eof(trio.current_time(), True, self.returncode)

    def stderr_text(self) -> str:
        text = self.stderr.decode("utf-8", "replace")
        if self.stderr_dropped:
            text += f"\n[arena: {self.stderr_dropped} more bytes of stderr dropped]"
        return text

    def take_stderr(self) -> str:
        text = self.stderr_text()
        self.stderr = bytearray()
        self.stderr_dropped = 0
        return text

    @property
    def alive(self) -> bool:
        return not self.exited.is_set()

    def exit_description(self) -> str:
        rc = self.returncode
        if rc is None:
            return "still running"
        if self.sandbox is not None and rc > 128:
            rc = 128 - rc  # bubblewrap reports a signal as 128 + its number
        if rc < 0:
            try:
                return f"killed by signal {signal.Signals(-rc).name}"
            except ValueError:
                return f"killed by signal {-rc}"
        return f"exited with status {rc}"

    async def stop(self) -> None:
        """SIGTERM the group, wait the grace, SIGKILL the group, reap everything of it. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        pgid = self.proc.pid
        with trio.CancelScope(shield=True):
            if not self.exited.is_set():
                _killpg(pgid, signal.SIGTERM)
                await self.wait_exit(self.kill_grace)
            _killpg(pgid, signal.SIGKILL)
            await self.wait_exit(5)
            _reap_group(pgid)
            if self.sandbox is not None:
                # its namespace's init, re-parented to us when bubblewrap's monitor exited first
                await reap_orphaned_inits()
            self.drain_stderr()
            self._scope.cancel()
            # the descriptors' numbers may be reused once closed: nothing of this bot reads or writes them now
            # (a read finds the end of stdout, a write a closed stdin, as they would on the closed pipes)
            self._eof = True
            self._stdin_fd = -1
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    await stream.aclose()
        if self.sandbox is not None:
            # (in a thread: reclaiming what the bot loaded takes a millisecond or more, during which the other
            # matches' clocks must still be served)
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self.sandbox.release)
        if self.own_dir:
            shutil.rmtree(self.own_dir, ignore_errors=True)


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _reap_group(pgid: int) -> None:
    """Reap children of ours that were in the bot's process group (its orphans, re-parented to us)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return  # the group is empty: the usual case, and it spares a scan of /proc
    except PermissionError:
        pass
    me = os.getpid()
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # fields after the command (which may contain spaces) start after the last ')'
        rest = stat[stat.rfind(b")") + 2:].split()
        ppid, pg = int(rest[1]), int(rest[2])
        if ppid == me and pg == pgid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def effective_sandbox(spec: BotSpec) -> SandboxKind:
    """The sandbox a spec's bot runs in (``auto`` becomes bwrap where it works, with a warning where not).

    ``none`` was chosen by the caller, who warned about it when it resolved the user's choice; it is not
    warned about again at every start (arena play's own seat is unsandboxed on purpose)."""
    if spec.sandbox == "none":
        return "none"
    return resolve_sandbox(None if spec.sandbox == "auto" else spec.sandbox)


async def start_bot(spec: BotSpec, nursery: trio.Nursery, kill_grace: float = 1.0) -> BotProcess:
    """Start the bot; its pipe readers run in ``nursery`` until ``bot.stop()``.

    Raises OSError if the program cannot be started at all (the caller names that a crash).
    """
    _make_subreaper()
    if effective_sandbox(spec) == "bwrap":
        limits = spec.limits
        plan = plan_sandbox(spec.argv, spec.cwd, spec.files, limits.memory_bytes, limits.processes, limits.cpu_seconds,
                            limits.file_size_bytes, bot_environment(SANDBOX_TMP), cpus=limits.cpus)
        try:
            direct = DirectProcess.spawn(plan.argv, plan.cwd, {"PATH": "/usr/bin:/bin"}, plan.preexec, PASS_FDS)
        except BaseException:
            plan.release()
            raise
        bot = BotProcess(spec, direct, None, kill_grace, plan)
        await nursery.start(bot._run)
        return bot
    own_dir = spec.cwd is None
    if own_dir:
        _sweep_dead_workdirs()
    # (the referee's pid in the name: a SIGKILLed referee cannot remove its bots' folders, the next one does)
    workdir = tempfile.mkdtemp(prefix=f"arena-{spec.name[:20]}-p{os.getpid()}-") if own_dir else str(spec.cwd)
    try:
        proc = await trio.lowlevel.open_process(
            list(spec.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=bot_environment(workdir),
            start_new_session=True,
            pass_fds=spec.pass_fds,
        )
    except BaseException:
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
        raise
    _apply_limits(proc.pid, spec.limits)
    bot = BotProcess(spec, proc, workdir if own_dir else None, kill_grace)
    await nursery.start(bot._run)
    return bot
