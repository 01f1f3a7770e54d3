"""Each bot in its own bubblewrap sandbox: what it may see, which user it runs as, and its whole-bot limits.

A bot is a stranger's program. Under ``sandbox: bwrap`` (the default wherever bubblewrap works) it runs in
new PID, network, IPC, UTS, cgroup and mount namespaces, so it sees no other process, has no network, and
every process it starts dies with the sandbox (``--die-with-parent``: also when the referee is SIGKILLed).
Its filesystem is a minimal read-only view: the system directories (/usr and the /bin, /lib links), a few
files of /etc the dynamic linker needs, the Python that runs arena (so ``python`` bots work) with arena's
own package (for the bot kit), and the bot's own files, each at its real path. Nothing else: not /root,
/home, other bots' files, the config or the database. /tmp is a private tmpfs with a size cap.

As root, the bot must not be root outside the namespace either (or every root-only file would be its own):
bubblewrap runs privileged but keeps only CAP_SETUID/CAP_SETGID, and ``setpriv`` inside the sandbox drops
to a uid of its own (one per running bot, from ``UID_BASE``) with no capabilities and no_new_privs before
the bot starts. As an ordinary user, bubblewrap makes a user namespace and the bot runs as that user.

Limits for the whole bot, not per process: as root, a cgroup per bot (memory and process count), joined
before bubblewrap starts so every descendant is in it. Without usable cgroups, RLIMIT_NPROC under the bot's
own uid bounds its processes, and memory falls back to a per-process address-space limit. As an ordinary
user, RLIMIT_NPROC set inside the bot's user namespace bounds its processes (Linux 5.14+); memory is per
process.

Nothing a bot loads outlives it for its twin (the other game of a duplicate pair, docs/SECURITY.md): its
cgroup is reclaimed before it is removed (`_reclaim`: the pages it read first, the names it looked up), its
own files are read into the page cache by the referee before it starts (`_warm`: cached whatever it does),
and its /proc shows none of the machine's counters (`_proc_masks`).

The uids of one arena process come from a block it holds under a lock for its life (`_UidPool`), so bots
of two arena processes never share one; the sandboxes' inits re-parented to the referee are reaped
(`reap_orphaned_inits`).
"""

from __future__ import annotations

import fcntl
import functools
import math
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from arena.botspec import SYSTEM_DIRS, own_files, script_argument
from arena.errors import ConfigError
from arena.referee.syscalls import seccomp_filter

__all__ = [
    "DEFAULT_PROCESSES",
    "SANDBOX_KINDS",
    "BuildAccess",
    "SandboxKind",
    "SandboxPlan",
    "bot_files",
    "bwrap_problem",
    "check_bot_files",
    "plan_sandbox",
    "resolve_sandbox",
    "sandbox_hint",
    "unreadable",
]

SandboxKind = Literal["bwrap", "none"]
SANDBOX_KINDS: tuple[SandboxKind, ...] = ("bwrap", "none")
UID_BASE = 1_660_000  # in the range left to dynamic allocation (above 65535); no passwd entry needed
UIDS_PER_REFEREE = 1024  # a block of uids per referee process, held under a lock (see _UidPool)
CPU_PERIOD_US = 10_000  # the period of a bot's CPU quota (cgroup cpu.cfs_period_us / cpu.max)
DEFAULT_PROCESSES = 64  # processes per sandboxed bot when limits.processes is not set
RECLAIM = True  # reclaim a bot's cgroup before removing it (`_reclaim`); a switch for tests that show why
_BWRAP_OWN_PROCESSES = 2  # bubblewrap's monitor and the namespace's init count against the bot's limit

# System directories bound read-only (or recreated as the same symlink) when the host has them.
_SYSTEM_DIRS = SYSTEM_DIRS
# What of /etc a program needs to start: the dynamic linker's cache, the alternatives links of /usr/bin,
# the time zone, and OpenSSL's configuration (node refuses to start without it).
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
              "/etc/ssl/openssl.cnf")
SANDBOX_TMP = "/tmp"
SANDBOX_SHM = "/dev/shm"
# What of /etc a build with the network needs: name resolution and the certificate authorities.
_NETWORK_ETC = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ssl/certs", "/etc/ca-certificates")


@dataclass(frozen=True)
class BuildAccess:
    """What a build step may do beyond a bot: write ``writable`` (the folders it builds), and reach the
    network when ``network`` (the config's ``build_network``). ``protected``: the other bots' files and
    folders, shown read-only where they lie in a writable folder (a build must not rewrite another bot).
    ``readable``: more paths shown read-only (the ``sandbox_paths`` of the bots it builds: a toolchain).
    ``confined``: the build of uploaded bots, which sees its bots' folders alone (not the config's)."""

    writable: tuple[str, ...]
    network: bool = False
    protected: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    confined: bool = False


@dataclass
class SandboxPlan:
    """How to start one sandboxed bot: the full command line, its environment, what runs in the child
    before exec (cgroup, rlimits), and what to undo once its process is gone."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    preexec: Callable[[], None]
    uid: int | None
    cgroup: _BotCgroup | None
    _released: bool = field(default=False, repr=False)
    # whether what it loaded into the page cache is reclaimed at its end (`_reclaim`); off only for a sandbox
    # that can have learned no card (a build, a bot's start check before a run's first match), whose pages
    # then stay cached for the bot's matches
    reclaim: bool = True

    def release(self) -> None:
        """Give back the uid and remove the cgroup (after reclaiming what it charged, unless ``reclaim`` is
        off); call after the sandbox's process has exited."""
        if self._released:
            return
        self._released = True
        if self.cgroup is not None:
            self.cgroup.remove(RECLAIM and self.reclaim)
        if self.uid is not None:
            _UIDS.release(self.uid)


# ------------------------------------------------------------------------------------------ choosing one


_warned: set[str] = set()


def _warn_once(text: str) -> None:
    if text not in _warned:
        _warned.add(text)
        print(f"arena: WARNING: {text}", file=sys.stderr, flush=True)


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here (None when it can): one real sandbox per process, built as a
    bot's would be (uid, cgroup, pipes), running ``true``."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        plan = plan_sandbox(["/usr/bin/true"], None, (), None, None, None, None, {})
    except (ImportError, OSError) as e:  # libseccomp (Debian: libseccomp2), for the filter (arena.referee.syscalls)
        return f"its system-call filter cannot be built: libseccomp is missing or broken ({e})"
    try:
        result = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec, pass_fds=PASS_FDS,
                                capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap does not run here ({e})"
    finally:
        plan.release()
    if result.returncode != 0:
        err = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap cannot create a sandbox here ({err[-1] if err else f'exit {result.returncode}'})"
    return None


def resolve_sandbox(requested: str | None) -> SandboxKind:
    """The sandbox bots will run in: ``requested`` (``bwrap``/``none``), or bwrap when it works here.

    Asking for bwrap where it does not work is the user's error (ConfigError); the default falls back to
    no sandbox with one loud warning. Running bots as root without a sandbox is warned about too.
    """
    if requested not in (None, *SANDBOX_KINDS):
        raise ConfigError(f"sandbox {requested!r} is not known; expected one of {', '.join(SANDBOX_KINDS)}")
    kind: SandboxKind
    if requested == "none":
        kind = "none"
    else:
        problem = bwrap_problem()
        if problem is None:
            kind = "bwrap"
        elif requested == "bwrap":
            raise ConfigError(f"sandbox bwrap was asked for, but {problem}; install it, or use sandbox: none "
                              "(see docs/SECURITY.md)")
        else:
            _warn_once(f"bots run WITHOUT a sandbox: {problem}. A hostile bot can read and change your files, "
                       "other bots and the results. See docs/SECURITY.md.")
            kind = "none"
    if kind == "none" and os.geteuid() == 0:
        _warn_once("bots run as root without a sandbox: a bot can do anything root can. See docs/SECURITY.md.")
    return kind


# ------------------------------------------------------------------------------------------ the plan


def plan_sandbox(
    argv: Sequence[str],
    cwd: Path | None,
    files: Sequence[str] | None,
    memory_bytes: int | None,
    processes: int | None,
    cpu_seconds: int | None,
    file_size_bytes: int | None,
    env: dict[str, str],
    *,
    cpus: float | None = None,
    build: BuildAccess | None = None,
) -> SandboxPlan:
    """The bubblewrap command that runs ``argv`` as a sandboxed bot, with ``cwd`` (its folder, read-only)
    or a private /tmp as its working directory. ``files``: what `bot_files` gave (None: work it out alone).
    ``cpus``: how many CPUs its processes may keep busy together (a cgroup's quota; None: no quota).

    ``build``: the sandbox of a build step instead (arena.tournament.build): the same namespaces and view,
    with the folders it builds writable and the network only when asked for. As root it too runs as a uid
    of its own (`BUILDS_AS_OWN_UID`): root without capabilities still owns every root-owned file, /etc
    included; the caller lends it the folders it may write (arena.tournament.build)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    root = os.geteuid() == 0
    processes = DEFAULT_PROCESSES if processes is None else processes
    uid = _UIDS.lease() if root and (build is None or BUILDS_AS_OWN_UID) else None
    cgroup = _CGROUPS.create(memory_bytes, processes + _BWRAP_OWN_PROCESSES, cpus) if root else None
    try:
        args = _bwrap_prefix(bwrap, network=build is not None and build.network, setuid=uid is not None)
        args += ["--seccomp", str(_SECCOMP_FD)]
        args += ["--ro-bind", "/usr", "/usr", *_system_links()]
        etc = [path for path in (*_ETC_FILES, *(_NETWORK_ETC if build is not None and build.network else ()))
               if os.path.exists(path)]
        args += _parent_dirs(etc)
        for path in etc:
            args += ["--ro-bind", path, path]
        args += ["--proc", "/proc", "--dev", "/dev", *_proc_masks()]
        # /tmp and /dev/shm (POSIX shared memory and semaphores: Python's multiprocessing, sem_open): the bot's
        # own, writable by its uid (bubblewrap's /dev/shm is root's 0755), each of the file size at most
        for private in (SANDBOX_TMP, SANDBOX_SHM):
            if file_size_bytes is not None:
                args += ["--size", str(file_size_bytes)]
            args += ["--perms", "1777", "--tmpfs", private]
        binds, hidden = _bot_paths(argv, cwd, files)
        if build is None:  # (as an ordinary user too: no reclaim then, but its own files are all cached)
            _warm([f for f in (files if files is not None else bot_files(argv, cwd)) if not f.startswith("!")],
                  hidden)
        args += _parent_dirs(binds)
        for path in binds:
            args += ["--ro-bind", path, path]
        if build is not None:
            writable = _outermost(os.path.normpath(p) for p in build.writable if os.path.isdir(p))
            args += _parent_dirs(writable)
            for path in writable:
                args += ["--bind", path, path]
            binds = [*binds, *writable]
            # (before the masks below: a protected folder bound afterwards would show a secret in it again)
            for path in sorted(set(build.protected)):
                if (_inside(path, writable) and os.path.lexists(path)
                        and not any(_inside(own, [path]) for own in build.writable)):
                    args += ["--ro-bind", path, path]
        # an empty folder, or an unreadable file (/dev/null on a nodev mount) in its place; a secret not written
        # yet needs nothing, nor one inside a folder already hidden
        masked: list[str] = []
        for path in sorted(hidden):
            if _inside(path, binds) and not _inside(path, masked) and os.path.lexists(path):
                args += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
                masked.append(path)
        if build is not None:
            # a secret not written yet (a database's -wal file) could be planted by a build in a folder it may
            # write: a folder holding secrets, inside a writable one, is shown read-only to it
            for folder in sorted({os.path.dirname(path) for path in hidden}):
                if _inside(folder, writable) and folder not in writable and os.path.isdir(folder):
                    args += ["--ro-bind", folder, folder]
        workdir = str(cwd) if cwd is not None else SANDBOX_TMP
        args += ["--chdir", workdir, "--clearenv"]
        inside = {**env, "HOME": SANDBOX_TMP, "TMPDIR": SANDBOX_TMP}
        for key, value in inside.items():
            args += ["--setenv", key, value]
        args.append("--")
        if uid is not None:
            args += ["/usr/bin/setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                     "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        elif not root and _nproc_per_user_namespace():
            # As an ordinary user the bot has no uid of its own, but a user namespace of its own, and since
            # Linux 5.14 an RLIMIT_NPROC set inside one counts only that namespace's processes (the bot's and
            # bubblewrap's init there), not every process of yours: the whole bot's process limit.
            args += [_PRLIMIT, f"--nproc={processes + 1}", "--"]
        args += ["/bin/sh", "-c", _PIPES_BACK, *argv]
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        if uid is not None:
            _UIDS.release(uid)
        raise

    # The bot's processes are bounded by its cgroup when there is one; else RLIMIT_NPROC under its own uid
    # (as an ordinary user it would count all of that user's processes, so it is not set then).
    nproc = None if (cgroup is not None and cgroup.has_pids) or uid is None else processes + _BWRAP_OWN_PROCESSES
    # The address-space limit stays per process too: one huge allocation then fails at once (MemoryError)
    # instead of pushing the cgroup into reclaim until the OOM killer acts. Not for a build: compilers reserve
    # far more address space than they use (a JVM's heap, Go's arenas), so its memory is the cgroup's alone.
    address_space = memory_bytes if build is None else None
    limits = [(resource.RLIMIT_AS, address_space), (resource.RLIMIT_CPU, cpu_seconds),
              (resource.RLIMIT_NPROC, nproc), (resource.RLIMIT_FSIZE, file_size_bytes)]
    join = [] if cgroup is None else cgroup.procs_files
    # bubblewrap reads its options from a descriptor, not its command line: the sandbox's init is pid 1
    # inside, and a bot reading /proc/1/cmdline would see every path shown or masked, and the limits. What
    # stays there is the command, which the bot knows anyway (its own argv and uid).
    end = args.index("--")
    data = [(_ARGS_FD, b"".join(arg.encode() + b"\0" for arg in args[1:end])),
            (_SECCOMP_FD, seccomp_filter(locks=build is None))]
    args = [args[0], "--args", str(_ARGS_FD), *args[end:]]

    def preexec() -> None:
        # In the child, between fork and exec: only plain system calls here (the parent has threads).
        _pipes_aside()
        for target, content in data:
            _data_fd(target, content)
        pid = str(os.getpid()).encode()
        for procs in join:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        for res, value in limits:
            if value is not None:
                resource.setrlimit(res, (value, value))

    return SandboxPlan(args, "/", inside, preexec, uid, cgroup)


_PRLIMIT = "/usr/bin/prlimit"  # util-linux, as setpriv is
#: As root, a build runs as a uid of its own, as a bot does (tests switch it off to show what it closes: a
#: build as root without capabilities could write any root-owned file it was shown, such as /etc's).
BUILDS_AS_OWN_UID = True

# A bot's own files are read into the page cache by the referee before it starts (`_warm`), so that those
# pages are charged to the referee, not the bot: they stay cached from game to game (a bot that reads 100 MB
# of weights at each start reads them from memory, not from the disk, though its cgroup is reclaimed after
# every match), and their being cached says nothing, since the referee reads them whatever the bot does. At
# most WARM_BYTES of a bot's files (in path order, past which a file is left to the bot), looked at again
# after WARM_EVERY_S seconds (memory pressure may have taken them meanwhile). The first WARM_SYNC_BYTES are
# read, not only advised: read-ahead advice returns before the pages are in, and a page still being read
# looks uncached to a bot that probes without waiting (a full suite once saw one such page in game 1). A read
# returns once they are in; it holds up the referee's loop for as long (a cached 64 MB is a few ms, and a
# cold disk pays it once), so beyond it the rest is only advised. (Even read, one page of a spy's file was
# once uncached in game 1 of a full suite: the cache is the machine's. One page tells one card at most.)
WARM_BYTES = 1 << 30
WARM_SYNC_BYTES = 64 << 20
WARM_EVERY_S = 60.0
_WARM_STEP = 128 << 10  # the smallest read-ahead window a disk has by default
_WARMED: dict[tuple[str, ...], float] = {}


def _warm(own: Sequence[str], hidden: Sequence[str]) -> None:
    """Ask the kernel to read the bot's own files ``own`` (folders walked, ``hidden`` left out) into the page
    cache now, in this process (``posix_fadvise(WILLNEED)``: reads ahead without waiting); at most once every
    WARM_EVERY_S seconds for the same files."""
    import time

    key = tuple(own)
    now = time.monotonic()
    if now - _WARMED.get(key, -math.inf) < WARM_EVERY_S:
        return
    _WARMED[key] = now
    budget, seen = WARM_BYTES, 0
    buffer = memoryview(bytearray(_WARM_STEP))
    for top in sorted(own):
        walk = os.walk(top) if os.path.isdir(top) and not os.path.islink(top) else [("", [], [top])]
        for folder, dirs, names in walk:
            dirs[:] = sorted(d for d in dirs if not _inside(os.path.join(folder, d), hidden))
            for name in sorted(names):
                seen += 1
                path = os.path.join(folder, name)
                if seen > _PIPE_SCAN_LIMIT or budget <= 0:
                    return
                if _inside(path, hidden):
                    continue
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    st = os.fstat(fd)
                    if stat.S_ISREG(st.st_mode) and 0 < st.st_size <= budget:
                        # (a call reads ahead at most the device's read-ahead window: asked a window at a time)
                        for offset in range(0, st.st_size, _WARM_STEP):
                            os.posix_fadvise(fd, offset, _WARM_STEP, os.POSIX_FADV_WILLNEED)
                        synchronous = WARM_SYNC_BYTES - (WARM_BYTES - budget)
                        for offset in range(0, min(st.st_size, max(synchronous, 0)), _WARM_STEP):
                            os.preadv(fd, [buffer], offset)
                        budget -= st.st_size
                except OSError:
                    pass
                finally:
                    os.close(fd)

# Counters of the whole kernel that a bot's /proc would show: the open files, inodes and dentries of every
# process (/proc/sys/fs: file-nr, inode-nr, dentry-state), the memory manager's events (/proc/vmstat: page
# faults, reads, refaults of evicted pages), every fork, context switch and interrupt since boot (/proc/stat's
# processes, ctxt, intr, softirq; /proc/interrupts, /proc/softirqs), the disks' reads and writes
# (/proc/diskstats), the scheduler's and the pressure stall counters (/proc/schedstat, /proc/pressure). One
# bot moves them (opens files, looks names up, reads pages, forks) and another reads them: a channel
# between two sandboxes at once, and, for those that only grow, a counter left behind for a twin (a bot that
# forks until `processes` is its hand modulo 2^k: between two sandboxes started one after the other the
# count moved by exactly 3 forks in 20 tries out of 20). Each is an empty folder, or unreadable, in the
# sandbox; /proc/stat, which runtimes read for the number of CPUs (glibc without /sys, node's os.cpus()), is
# a copy whose counters are all 0 (`_quiet_stat`). No runtime needs the others to start.
PROC_MASKED_DIRS = ("/proc/sys/fs", "/proc/pressure")
PROC_MASKED_FILES = ("/proc/vmstat", "/proc/interrupts", "/proc/softirqs", "/proc/diskstats", "/proc/schedstat")
PROC_QUIET_STAT = True


def _proc_masks() -> list[str]:
    out: list[str] = []
    for folder in PROC_MASKED_DIRS:
        if os.path.isdir(folder):
            out += ["--tmpfs", folder, "--remount-ro", folder]
    for path in PROC_MASKED_FILES:
        if os.path.exists(path):
            out += ["--ro-bind", "/dev/null", path]
    quiet = _quiet_stat() if PROC_QUIET_STAT else None
    if quiet is not None:
        out += ["--ro-bind", quiet, "/proc/stat"]
    return out


_QUIET_STAT: list[str] = []  # the file, once made by this process (a forked worker makes its own)


def _quiet_stat() -> str | None:
    """A file with this machine's /proc/stat, every counter 0 (its CPU lines, boot time, one process
    running), made once per process in a private folder; None where it cannot be made."""
    if _QUIET_STAT and os.path.exists(_QUIET_STAT[0]):
        return _QUIET_STAT[0]
    import atexit
    import tempfile

    try:
        lines = []
        with open("/proc/stat") as f:
            for line in f:
                key, *values = line.split()
                if key == "btime":
                    lines.append(line.rstrip("\n"))
                elif key == "procs_running":
                    lines.append(f"{key} 1")
                else:
                    lines.append(" ".join([key + (" " if key == "cpu" else ""), *("0" for _ in values)]))
        folder = tempfile.mkdtemp(prefix="arena-proc-")
        path = os.path.join(folder, "stat")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o444)
    except OSError:
        return None
    atexit.register(shutil.rmtree, folder, True)
    _QUIET_STAT[:] = [path]
    return path


@functools.lru_cache(maxsize=1)
def _nproc_per_user_namespace() -> bool:
    """Whether RLIMIT_NPROC counts per user namespace here (Linux 5.14+), and prlimit is there to set it."""
    try:
        major, minor = (int(part) for part in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14) and os.access(_PRLIMIT, os.X_OK)


# bubblewrap's monitor and the namespace's init keep their stdin and stdout open for as long as the sandbox
# lives, so a bot that closes its stdout would never look closed. The pipes therefore reach the sandbox as
# fds 3 and 4 (which bubblewrap's own processes close), with /dev/null as its stdin and stdout, and this
# shell puts them back just before the bot starts.
_PIPES_BACK = 'exec "$0" "$@" 0<&3 1>&4 3<&- 4>&- 5<&- 6<&-'
# bubblewrap's arguments and the seccomp filter (arena.referee.syscalls) come on descriptors 5 and 6
_ARGS_FD, _SECCOMP_FD = 5, 6
PASS_FDS = (3, 4, _ARGS_FD, _SECCOMP_FD)


def _data_fd(target: int, content: bytes) -> None:
    """In the child: a memory file holding ``content``, read from its start, at descriptor ``target``."""
    fd = os.memfd_create("arena", 0)
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    if fd != target:
        os.dup2(fd, target)
        os.close(fd)


def _pipes_aside() -> None:
    os.dup2(0, 3)
    os.dup2(1, 4)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _bwrap_prefix(bwrap: str, network: bool = False, setuid: bool = True) -> list[str]:
    args = [bwrap, "--unshare-pid", *([] if network else ["--unshare-net"]), "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "arena"]
    if os.geteuid() == 0 and not setuid:
        args += ["--cap-drop", "ALL"]  # a build: it runs as the user who runs arena, with no capabilities
    elif os.geteuid() == 0:
        # Privileged bubblewrap (no user namespace, which would map the bot back to root outside): keep only
        # what setpriv needs to drop to the bot's uid; setpriv then clears those too.
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user"]
        if _bwrap_version(bwrap) >= (0, 8):
            # no user namespace of its own inside: it could mount a tmpfs there with no cap (an ordinary user's
            # bot has no memory cgroup to count it), and namespaces are much of the kernel a bot could attack
            args += ["--disable-userns"]
    return args


@functools.lru_cache(maxsize=4)
def _bwrap_version(bwrap: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=30).stdout
        return tuple(int(part) for part in out.split()[-1].split(".")[:2])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return (0,)


@functools.lru_cache(maxsize=1)
def _system_links() -> tuple[str, ...]:
    """The host's /bin, /lib, ...: recreated as the same symlinks into /usr, or bound when real folders."""
    out: list[str] = []
    for path in _SYSTEM_DIRS[1:]:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    return tuple(out)


def _runtime_dirs() -> list[str]:
    """The Python that runs arena (for ``python`` bots) and arena's own package (for the bot kit)."""
    import arena

    dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(Path(arena.__file__).parent)]
    return dirs + [os.path.realpath(d) for d in dirs]


def bot_files(
    argv: Sequence[str], cwd: Path | None, others: Iterable[Sequence[str]] = (), secrets: Iterable[Path | str] = (),
    extra: Iterable[Path | str] = (),
) -> tuple[str, ...]:
    """The bot's own files, which its sandbox shows read-only at their real paths, as a list of paths; a
    path written ``!path`` is hidden instead (an unreadable file or an empty folder in its place).

    That is its ``cwd`` folder when one is set, the folder of its script (`arena.botspec.script_argument`:
    ``tclsh bot.tcl`` as well as ``python bot.py``) and of its program (unless that is a system one), so a
    bot made of several files works as written, and ``extra``: the paths the config adds for it
    (``sandbox_paths``). Two things keep a folder from showing more than the bot's own:

    - the programs and scripts of the run's other bots (``others``): beside the bot's (a folder of reference
      bots) they are hidden; further down (the bot's folder holds other bots' folders, as a project root
      does) the folder is not shown at all, only the bot's program and script;
    - ``secrets``, the run's config, database and report: hidden wherever they lie in a shown folder.

    Programs found on PATH (``node``, ``sh``) belong to the system view, not to the bot. Other arguments are
    not shown even when they name files.
    """
    program = argv[0] if "/" in argv[0] else None
    script = script_argument(argv)
    own = own_files(argv)
    runtime = _runtime_dirs()
    theirs = {p for other in others for p in own_files(other)}
    theirs = {p for p in theirs if p not in own and not _inside(p, runtime)}
    folders = [str(cwd)] if cwd is not None else []
    folders += [os.path.abspath(p) for p in extra]
    for main in (script, program):
        if not main:
            continue
        folder = os.path.dirname(os.path.abspath(main))
        below = [p for p in theirs if _inside(p, [folder]) and os.path.dirname(p) != folder]
        # (/tmp itself is the sandbox's own, private and writable: a script lying there is shown alone)
        if not below and not _inside(folder, [*_SYSTEM_DIRS, *runtime]) and folder not in (*folders, SANDBOX_TMP):
            folders.append(folder)
    hidden = {p for p in theirs if _inside(p, folders) and os.path.isfile(p)}
    hidden |= {os.path.abspath(p) for p in secrets if _inside(os.path.abspath(p), folders)}
    return (*own, *folders, *(f"!{p}" for p in sorted(hidden)))


def check_bot_files(name: str, files: Sequence[str]) -> None:
    """ConfigError unless the bot's files (`bot_files`) can be shown in its sandbox as they are: readable by
    the bot's own uid (`_check_readable`), and with no named pipe or socket in them (`_check_no_pipes`)."""
    _check_no_pipes(name, files)
    _check_readable(name, files)


def _check_readable(name: str, files: Sequence[str]) -> None:
    """ConfigError unless a bot running as its own unprivileged uid (arena run as root) can read its files:
    bubblewrap shows them with their modes, and a 0700 folder of root's would only look broken later."""
    path, mode = unreadable(files) or ("", 0)
    if path:
        raise ConfigError(
            f"bot {name}: {path} is not readable by other users (mode {mode:04o}), and a sandboxed "
            f"bot runs as a user of its own; make it readable (chmod -R a+rX {path}) or use sandbox: none")


def unreadable(files: Sequence[str]) -> tuple[str, int] | None:
    """The first of ``files`` (`bot_files`' form) that a uid of its own could not read (a folder: enter), and
    its mode; None when all can be (or arena is not root, and runs no bot as another uid)."""
    if os.geteuid() != 0:
        return None
    for path in files:
        if path.startswith("!") or not os.path.exists(path):
            continue
        mode = os.stat(path).st_mode
        need = 0o005 if os.path.isdir(path) else 0o004
        if mode & need != need:
            return path, mode & 0o777
    return None


# At most this many entries of a bot's folders are looked at for pipes (a folder of a million files is
# rather a mistake than a bot; what lies beyond is not looked at).
_PIPE_SCAN_LIMIT = 200_000


def _check_no_pipes(name: str, files: Sequence[str]) -> None:
    """ConfigError if a named pipe (or a socket) lies among the bot's files. A read-only view does not make a
    pipe read-only: every sandbox that shows it may open it for writing, so two of the bot's processes playing
    at once (the two seats of a self-play match) would pass each other their hands through it."""
    hidden = [f[1:] for f in files if f.startswith("!")]
    seen = 0
    for top in (f for f in files if not f.startswith("!")):
        walk = os.walk(top) if os.path.isdir(top) and not os.path.islink(top) else [("", [], [top])]
        for folder, dirs, names in walk:
            dirs[:] = [d for d in dirs if not _inside(os.path.join(folder, d), hidden)]
            for entry in names:
                path = os.path.join(folder, entry)
                seen += 1
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                    kind = "named pipe" if stat.S_ISFIFO(mode) else "socket"
                    raise ConfigError(
                        f"bot {name}: {path} is a {kind}; in the sandbox it would be a channel between two of the "
                        f"bot's processes playing at once (docs/SECURITY.md), so it is refused: delete it")
            if seen > _PIPE_SCAN_LIMIT:
                return


def _bot_paths(argv: Sequence[str], cwd: Path | None, files: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """The host paths the sandbox shows (the runtime dirs, the program also when found on PATH outside the
    system view, and the bot's own files), and those it hides below them."""
    files = bot_files(argv, cwd) if files is None else files
    wanted = _runtime_dirs()
    program = argv[0] if "/" in argv[0] else shutil.which(argv[0])
    if program:
        wanted += _runtime_config(os.path.realpath(program))
    for path in (program, *(f for f in files if not f.startswith("!"))):
        if path:
            wanted += [path, os.path.realpath(path)]
    shown = _outermost(os.path.normpath(p) for p in wanted if p and os.path.exists(p))
    hidden = [f[1:] for f in files if f.startswith("!")]
    return shown, hidden + [os.path.realpath(p) for p in hidden if os.path.realpath(p) != p]


# A runtime installed as a folder of its own with the program in its bin/ (a JDK: /usr/lib/jvm/<jdk>/bin/java,
# /opt/node/bin/node, /usr/lib/postgresql/15/bin/...) may keep its configuration in /etc through symlinks
# inside that folder (Debian's JDKs: conf/security/java.security -> /etc/java-17-openjdk/security/...); the
# JVM does not start without them. Those targets are shown with the program. At most this many entries of
# the folder are looked at.
_RUNTIME_SCAN_LIMIT = 20_000


@functools.lru_cache(maxsize=64)
def _runtime_config(program: str) -> tuple[str, ...]:
    """The files of /etc that symlinks in ``program``'s runtime folder (the parent of its bin/; ``program``
    is a real path) point to, that everybody may read. Cached: a tournament starts the same program often."""
    folder = os.path.dirname(os.path.dirname(program))
    if os.path.basename(os.path.dirname(program)) != "bin" or folder in ("/", "/usr", "/usr/local"):
        return ()
    out: list[str] = []
    seen = 0
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            seen += 1
            link = os.path.join(root, name)
            try:
                if not os.path.islink(link):
                    continue
                target = os.path.normpath(os.path.join(root, os.readlink(link)))
                if _inside(target, ["/etc"]) and not _inside(target, _ETC_FILES) and _world_readable(target):
                    out.append(target)
            except OSError:
                continue
        if seen > _RUNTIME_SCAN_LIMIT:
            break
    return tuple(sorted(set(out)))


def _world_readable(path: str) -> bool:
    """Whether anybody may read ``path`` (a file; a folder also enter it), and every folder on its way."""
    try:
        real = os.path.realpath(path)
        mode = os.stat(real).st_mode
        if mode & (0o005 if stat.S_ISDIR(mode) else 0o004) != (0o005 if stat.S_ISDIR(mode) else 0o004):
            return False
        parent = os.path.dirname(real)
        while parent not in ("/", ""):
            if os.stat(parent).st_mode & 0o001 == 0:
                return False
            parent = os.path.dirname(parent)
    except OSError:
        return False
    return True


# What a failing program says about a file it could not find or open (bash, Python, Perl, Java, Tcl, the
# dynamic linker, ...): only paths on such lines are looked at.
_NOT_FOUND = re.compile(r"no such file|not found|cannot|can't|could not|couldn't|unable to|failed to|error|missing",
                        re.IGNORECASE)
_PATH = re.compile(r"(?<![\w.~-])/[^\s'\"`:;,()<>\[\]{}]+")
_PROGRAM_NOT_FOUND = re.compile(r"(?<![\w/.-])([\w.+-]+): (?:command )?not found")
_PATH_SYSTEM = ("/proc", "/dev")  # made by bubblewrap in every sandbox (its /tmp is its own: the host's is not)


def sandbox_hint(argv: Sequence[str], cwd: Path | None, files: Sequence[str] | None, said: str) -> str | None:
    """What to tell the user when a sandboxed bot failed to start: the paths that exist on this machine but
    are not shown in its sandbox, and what to do about them; None when there are none. Those are the paths
    its error output (``said``) names and, when that output says something was not found, the paths its
    command names (``java -cp /home/me/classes Bot``) and the folder of its script when that folder was
    withheld because it holds other bots' files. A path masked on purpose (another bot's program, the run's
    files) is never suggested."""
    binds, hidden = _bot_paths(argv, cwd, files)
    shown = [*_SYSTEM_DIRS, *(p for p in _ETC_FILES if os.path.exists(p)), *binds, *_PATH_SYSTEM]
    found: list[str] = []

    def missing(path: str) -> None:
        path = os.path.normpath(path)
        real = os.path.realpath(path)
        if not os.path.exists(path) or _inside(path, hidden) or _inside(real, hidden):
            return
        if _inside(path, shown) and _inside(real, shown):
            return
        named = path if real == path else f"{path} (a link to {real})"
        if named not in found:
            found.append(named)

    for line in said.splitlines():
        if _NOT_FOUND.search(line):
            for match in _PATH.finditer(line):
                missing(match.group().rstrip("."))
            # a program the shell did not find ("sh: 1: cargo: not found"), found here on PATH
            for match in _PROGRAM_NOT_FOUND.finditer(line):
                found_here = shutil.which(match.group(1))
                if found_here:
                    missing(found_here)
    withheld = None
    if _NOT_FOUND.search(said):
        for arg in argv[1:]:
            value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
            if os.path.isabs(value):
                missing(value)
        script = script_argument(argv)
        folder = os.path.dirname(script) if script else None
        if folder and not _inside(folder, [*shown, *_runtime_dirs()]) and os.path.isdir(folder):
            why = "is the sandbox's own /tmp" if folder == SANDBOX_TMP else "holds other bots' files"
            withheld = (f"its script's folder {folder} {why}, so its sandbox shows only its script from there: "
                        "give each bot a folder of its own, or add what it needs to the bot's sandbox_paths "
                        "(docs/CONFIG.md)")
    if not found:
        return withheld
    which = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    verb = "exists" if len(found) == 1 else "exist"
    return (f"{which} {verb} on this machine but not in the bot's sandbox: add what it needs to the bot's "
            "sandbox_paths (docs/CONFIG.md), or run it without a sandbox (sandbox: none, --sandbox none)"
            + (f"; {withheld}" if withheld else ""))


def _outermost(paths: Iterable[str]) -> list[str]:
    """Drop paths inside the system view or inside another path of the list; shortest first."""
    out: list[str] = []
    for path in sorted(set(paths), key=lambda p: (p.count("/"), p)):
        if path == "/" or _inside(path, [*_SYSTEM_DIRS, *out]):
            continue
        out.append(path)
    return out


def _inside(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _parent_dirs(paths: Iterable[str]) -> list[str]:
    """``--dir`` for every parent of a bound path, world-searchable: bubblewrap would copy the host's mode,
    and a parent like /root (0700) would hide what is bound below it from the bot's own uid."""
    parents: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", ""):
            parents.add(parent)
            parent = os.path.dirname(parent)
    out: list[str] = []
    for parent in sorted(parents, key=lambda p: (p.count("/"), p)):
        if parent != SANDBOX_TMP and not _inside(parent, _SYSTEM_DIRS):
            out += ["--perms", "0755", "--dir", parent]
    return out


# ------------------------------------------------------------------------------------------ orphaned inits

# The referee is a child subreaper (arena.referee.process), so a sandbox's init (bubblewrap's second process,
# pid 1 of the bot's PID namespace) comes to it when bubblewrap's monitor exits first, which it does as soon as
# the bot has exited: the init is killed then (--die-with-parent) and would stay a zombie of the referee's.
# Those are reaped by `reap_orphaned_inits`: children of ours that are pid 1 of a PID namespace below ours
# (NSpid in /proc/<pid>/status, which a zombie keeps). No child that arena spawns itself (a sandbox's monitor,
# an unsandboxed bot, a worker) ever is one, so no exit status anybody waits for is taken away.


def _children() -> list[int]:
    """This process's children (every thread's), from /proc/self/task/*/children, else a scan of /proc."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return []
    pids: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += map(int, f.read().split())
        except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN (or the thread just ended)
            if tid == str(os.getpid()):
                return [pid for pid in _all_pids() if _stat(pid)[2:3] == (os.getpid(),)]
        except (OSError, ValueError):
            pass
    return pids


def _all_pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def _stat(pid: int) -> tuple[str, str, int] | tuple[()]:
    """(command name, state letter, parent pid) of ``pid``; () when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return ()
    close = raw.rfind(b")")
    rest = raw[close + 2:].split()
    return raw[raw.find(b"(") + 1:close].decode("utf-8", "replace"), rest[0].decode(), int(rest[1])


def _namespace_init(pid: int) -> bool:
    """Whether ``pid`` is pid 1 of a PID namespace below ours (``NSpid: <ours> ... 1``)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"NSpid:"):
                    ids = line.split()[1:]
                    return len(ids) > 1 and ids[-1] == b"1"
    except OSError:
        pass
    return False


async def reap_orphaned_inits(patience: float = 2.0) -> list[int]:
    """Reap the sandboxes' inits that were re-parented to us (see above); the pids reaped.

    One still dying (its namespace's last processes being killed) is waited for, ``patience`` seconds at most,
    on a pidfd: it is a child of ours, so nobody else can reap it and its number cannot be reused meanwhile.
    Only a zombie is reaped (WNOHANG): one still alive after the wait is left for the next call."""
    import trio

    out: list[int] = []
    for pid in _children():
        info = _stat(pid)
        if not info or not _namespace_init(pid):
            continue
        if info[1] != "Z":
            try:
                fd = os.pidfd_open(pid)
            except OSError:
                continue
            try:
                with trio.move_on_after(patience):
                    await trio.lowlevel.wait_readable(fd)
            finally:
                trio.lowlevel.notify_closing(fd)
                os.close(fd)
        info = _stat(pid)  # (another call may have reaped it meanwhile, and the number been given again)
        if not info or info[1] != "Z" or not _namespace_init(pid):
            continue
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                out.append(pid)
        except ChildProcessError:
            pass
    return out


# ------------------------------------------------------------------------------------------ uids


class _UidPool:
    """One uid per running bot, so RLIMIT_NPROC counts that bot alone and no two bots share an owner.

    The uids come from a block of ``UIDS_PER_REFEREE`` that this process holds for its whole life, so no other
    arena process on the machine hands out the same ones (its bots could then signal or ptrace ours): block
    ``n`` is taken with an exclusive flock on ``block-n`` in a directory only root may write (`_lock_dir`),
    trying the next block while one is held. The kernel drops the lock when the process dies, however it
    dies. A forked child (a referee worker started by fork) takes a block of its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._used: set[int] = set()
        self._base: int | None = None
        self._owner = 0  # the pid that holds the block (a forked child must not use its parent's)
        self._fd: int | None = None

    def lease(self) -> int:
        with self._lock:
            if self._owner != os.getpid():
                self._take_block()
            assert self._base is not None
            for uid in range(self._base, self._base + UIDS_PER_REFEREE):
                if uid not in self._used:
                    self._used.add(uid)
                    return uid
        raise RuntimeError(f"more than {UIDS_PER_REFEREE} sandboxed bots at once")

    def release(self, uid: int) -> None:
        with self._lock:
            self._used.discard(uid)

    @property
    def block(self) -> int | None:
        """The block this process holds (None: none yet)."""
        return None if self._base is None or self._owner != os.getpid() else (self._base - UID_BASE) // UIDS_PER_REFEREE

    def _take_block(self) -> None:
        if self._fd is not None:  # the parent's lock, inherited over fork: closing our copy leaves it the parent's
            os.close(self._fd)
        self._fd, self._base, self._used = None, None, set()
        first = _first_block()
        directory = _lock_dir()
        if directory is None:
            _warn_once("no safe directory for arena's uid locks (/run/arena-uids); two arena processes may give "
                       "their bots the same uids. See docs/SECURITY.md.")
            self._base, self._owner = UID_BASE + first * UIDS_PER_REFEREE, os.getpid()
            return
        try:
            for i in range(UID_BLOCKS):
                block = (first + i) % UID_BLOCKS
                fd = _lock_block(directory, block)
                if fd is not None:
                    self._fd, self._base, self._owner = fd, UID_BASE + block * UIDS_PER_REFEREE, os.getpid()
                    return
        finally:
            os.close(directory)
        raise RuntimeError(f"all {UID_BLOCKS} blocks of sandbox uids are taken by other arena processes")


UID_BLOCKS = 2048  # blocks of UIDS_PER_REFEREE uids: UID_BASE up to 1,660,000 + 2048 * 1024 (below 2**32)
# Where the locks of the uid blocks live, the first usable one: a directory of root's that nobody else may write.
UID_LOCK_DIRS = ("/run/arena-uids", "/tmp/.arena-uids")


def _first_block() -> int:
    """The block to try first: spread by pid, so processes started together rarely try the same ones."""
    return os.getpid() % UID_BLOCKS


def _lock_dir() -> int | None:
    """An open descriptor of the first of UID_LOCK_DIRS that is (or is made) a real directory of ours, not a
    symlink, that no other user may write; None when none is."""
    for path in UID_LOCK_DIRS:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        st = os.fstat(fd)
        if st.st_uid == os.geteuid() and st.st_mode & 0o022 == 0:
            return fd
        os.close(fd)
    return None


def _lock_block(directory: int, block: int) -> int | None:
    """The descriptor holding block ``block``'s lock, or None when another process holds it (or its lock file
    is anything but a plain file of ours)."""
    try:
        fd = os.open(f"block-{block}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=directory)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise BlockingIOError
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    try:  # who holds it, for a person who looks (the lock is the flock, not this)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass
    return fd


_UIDS = _UidPool()


# ------------------------------------------------------------------------------------------ cgroups


@dataclass
class _BotCgroup:
    dirs: list[str]
    has_memory: bool
    has_pids: bool

    @property
    def procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self.dirs]

    def oom_kills(self) -> int:
        """How many of its processes the kernel killed for want of memory (0 where the kernel does not say)."""
        for d in self.dirs:
            for name in ("memory.events", "memory.oom_control"):  # cgroup v2, v1
                try:
                    with open(os.path.join(d, name)) as f:
                        for line in f:
                            key, _, value = line.partition(" ")
                            if key == "oom_kill":
                                return int(value)
                except (OSError, ValueError):
                    continue
        return 0

    def remove(self, reclaim: bool = True) -> None:
        """Kill what is left of the bot, reclaim what it charged (``reclaim``: `_reclaim`), remove the cgroup.

        The sandbox's processes may take a moment to be gone after bubblewrap's monitor exited: what is left is
        killed (a process can only be in a cgroup we made if it is the bot's), and the memory is reclaimed
        once none is left, so that nothing can load a page again afterwards."""
        for d in self.dirs:
            if reclaim and _reclaims(d):
                for _ in range(200):
                    if not _kill_cgroup(d):
                        break
                    threading.Event().wait(0.005)
                _reclaim(d)
            _kill_cgroup(d)
            for _ in range(200):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    _kill_cgroup(d)
                    threading.Event().wait(0.005)


def _reclaims(d: str) -> bool:
    """Whether ``d`` is a cgroup whose memory can be reclaimed (v1's memory controller, or v2)."""
    return any(os.path.exists(os.path.join(d, name)) for name in ("memory.force_empty", "memory.reclaim"))


def _reclaim(d: str) -> int:
    """Reclaim everything a dead bot's cgroup ``d`` is charged for; the bytes of page cache left (0: all gone).

    What a bot loads is charged to its cgroup: the pages of files it read first (its own, the system's) and
    the dentries and inodes of the names it looked up (slab the memory controller accounts). Removing the
    cgroup does not free them: they are handed to its parent, still cached, and a bot's twin in the other
    game of a duplicate pair could time which pages and names are cached and read its hand there
    (docs/SECURITY.md). Reclaimed first, they are gone before the twin starts. v1: ``memory.force_empty``
    (it retries until nothing more can be freed); v2: ``memory.reclaim`` of all it holds."""
    v1 = os.path.exists(os.path.join(d, "memory.force_empty"))
    left = 0
    for _ in range(3):
        try:
            if v1:
                _write(d, "memory.force_empty", 0)
            else:
                with open(os.path.join(d, "memory.current")) as f:
                    current = int(f.read())
                if current:
                    _write(d, "memory.reclaim", current)
        except (OSError, ValueError):  # v2 answers EAGAIN when it freed less than asked: looked at below
            pass
        left = _cached_bytes(d, v1)
        if not left:
            break
    return left


def _cached_bytes(d: str, v1: bool) -> int:
    """The page cache (file pages) charged to cgroup ``d`` (-1 where it cannot be read)."""
    key = "cache" if v1 else "file"
    try:
        with open(os.path.join(d, "memory.stat")) as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return -1


def _kill_cgroup(d: str) -> bool:
    """SIGKILL every process in cgroup ``d``; whether there was any."""
    try:
        with open(os.path.join(d, "cgroup.procs")) as f:
            pids = [int(line) for line in f if line.strip()]
    except OSError:
        return False
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return bool(pids)


class _Cgroups:
    """Finds where this process may make cgroups (v2, or v1's memory and pids hierarchies), once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roots: list[tuple[str, str]] | None = None  # (directory of arena's cgroups, controller)
        self._count = 0

    def _find(self) -> list[tuple[str, str]]:
        if self._roots is not None:
            return self._roots
        self._roots = []
        try:
            own = _own_cgroups()
            mounts = _cgroup_mounts()
        except OSError:
            return self._roots
        mine = f"arena-{os.getpid()}"
        if "memory" in mounts and "pids" in mounts and "memory" in own and "pids" in own:  # cgroup v1
            candidates = [(os.path.join(mounts[c] + own[c], mine), c) for c in ("memory", "pids")]
            if "cpu" in mounts and "cpu" in own:  # the CPU quota, where its hierarchy is there too
                candidates.append((os.path.join(mounts["cpu"] + own["cpu"], mine), "cpu"))
        elif "" in mounts and "" in own:  # cgroup v2: both controllers in one directory
            base = os.path.join(mounts[""] + own[""], mine)
            candidates = [(base, "v2")]
        else:
            return self._roots
        for path, _ in candidates:
            _sweep_dead_referees(os.path.dirname(path))
        made = []
        try:
            for path, controller in candidates:
                os.makedirs(path, exist_ok=True)
                made.append(path)
                if controller == "v2":
                    with open(os.path.join(path, "cgroup.subtree_control"), "w") as f:
                        f.write("+memory +pids")
                    _write(path, "cgroup.subtree_control", "+cpu", optional=True)
        except OSError:
            for path in made:
                try:
                    os.rmdir(path)
                except OSError:
                    pass
            return self._roots
        self._roots = candidates
        import atexit

        atexit.register(self._cleanup)
        return self._roots

    def create(self, memory_bytes: int | None, processes: int, cpus: float | None = None) -> _BotCgroup | None:
        with self._lock:
            roots = self._find()
            self._count += 1
            # (a name left by another process of our pid that could not be swept: a bot's mkdir would fail, and
            # the bot run with no cgroup at all)
            while any(os.path.lexists(os.path.join(root, f"bot-{self._count}")) for root, _ in roots):
                self._count += 1
            n = self._count
        if not roots:
            return None
        dirs: list[str] = []
        has_memory = has_pids = False
        try:
            for root, controller in roots:
                d = os.path.join(root, f"bot-{n}")
                os.mkdir(d)
                dirs.append(d)
                if controller in ("memory", "v2") and memory_bytes is not None:
                    v1 = controller == "memory"
                    _write(d, "memory.limit_in_bytes" if v1 else "memory.max", memory_bytes)
                    # swap counts too, where the kernel accounts it (else a bot could swap past the limit)
                    _write(d, "memory.memsw.limit_in_bytes" if v1 else "memory.swap.max", memory_bytes if v1 else 0,
                           optional=True)
                    has_memory = True
                if controller in ("pids", "v2"):
                    _write(d, "pids.max", processes)
                    has_pids = True
                if controller in ("cpu", "v2") and cpus is not None:
                    # a short period, so that a bot over its quota is held back within milliseconds, not
                    # after running every CPU for most of a 100 ms period
                    quota = max(1000, round(cpus * CPU_PERIOD_US))
                    if controller == "cpu":
                        _write(d, "cpu.cfs_period_us", CPU_PERIOD_US)
                        _write(d, "cpu.cfs_quota_us", quota)
                    else:
                        _write(d, "cpu.max", f"{quota} {CPU_PERIOD_US}", optional=True)
        except OSError:
            _BotCgroup(dirs, False, False).remove()
            return None
        return _BotCgroup(dirs, has_memory, has_pids)

    def _cleanup(self) -> None:
        for root, _ in self._roots or []:
            try:
                for entry in os.scandir(root):
                    if entry.is_dir():
                        _BotCgroup([entry.path], False, False).remove()
                os.rmdir(root)
            except OSError:
                pass


def process_gone(pid: int) -> bool:
    """Whether no process on this machine has the number ``pid`` any more (one that is running, even another
    user's, or that cannot be asked about, is taken to be there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _sweep_dead_referees(parent: str) -> None:
    """Remove what arena processes that died without cleaning up (SIGKILLed: their bots died with them) left
    in ``parent``: ``arena-PID`` folders, and their ``bot-N``, of pids that are no longer running, and ours
    (left by an earlier process with our pid). Only empty cgroups can be removed (rmdir), so nothing that
    still holds a process is touched."""
    try:
        entries = [e for e in os.listdir(parent) if re.fullmatch(r"arena-\d+", e)]
    except OSError:
        return
    for entry in entries:
        pid = int(entry.split("-")[1])
        if pid != os.getpid() and not process_gone(pid):
            continue  # running (an arena process, or one that has its number now: left alone)
        folder = os.path.join(parent, entry)
        try:
            for bot in os.listdir(folder):
                if bot.startswith("bot-"):
                    os.rmdir(os.path.join(folder, bot))
            os.rmdir(folder)
        except OSError:
            pass


def _write(directory: str, name: str, value: int | str, optional: bool = False) -> None:
    try:
        with open(os.path.join(directory, name), "w") as f:
            f.write(str(value))
    except OSError:
        if not optional:
            raise


def _own_cgroups() -> dict[str, str]:
    """controller -> this process's cgroup path in it ('' for the v2 hierarchy)."""
    out: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                out[c] = path
    return out


def _cgroup_mounts() -> dict[str, str]:
    """controller -> mount point of its v1 hierarchy; '' -> the v2 mount, when it has memory and pids."""
    out: dict[str, str] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _source, options = (right.split() + ["", "", ""])[:3]
            mount_point = left.split()[4]
            if fstype == "cgroup":
                for option in options.split(","):
                    if option in ("memory", "pids", "cpu"):
                        out.setdefault(option, mount_point)
            elif fstype == "cgroup2":
                try:
                    controllers = Path(mount_point, "cgroup.controllers").read_text().split()
                except OSError:
                    continue
                if "memory" in controllers and "pids" in controllers:
                    out.setdefault("", mount_point)
    return out


_CGROUPS = _Cgroups()

