"""The system calls a sandboxed bot is refused: a seccomp filter that bubblewrap loads just before the bot's
program starts (``bwrap --seccomp FD``), built with libseccomp (through pyseccomp), which knows every
architecture's syscall numbers, so a 32-bit program (x86, x32) cannot reach a refused call by another number.

Namespaces give each bot its own processes, network, IPC objects, hostname and files. What the kernel does
not divide by namespace is refused here, so that no kernel object can be reached by two bots at once, or
outlive the bot that made it:

- **keyrings** (``add_key``, ``request_key``, ``keyctl``): a key is owned by a uid, not a namespace, and lives
  on after its process and the run; one bot could leave its hand for another, or keep state between matches.
- **file locks** (``flock``; ``fcntl``'s record locks, open-file-description locks, leases and directory
  notifications): every bot sees the same read-only system files, and a lock on a byte range of one of
  them is seen by every other process that asks (``F_GETLK``).
- **file watches** (``inotify``, ``fanotify``): an open or a read of a shared file is an event for a watcher
  in another sandbox.
- **shared futexes**: a futex word in a page of a file is keyed by the file and the offset, whichever process
  maps it, even read-only (every program maps libc's pages), so one bot's wake says to another whether a
  thread of its waits. A bot's futexes without ``FUTEX_PRIVATE_FLAG`` are answered as if nobody waited (a
  wake wakes 0) and as if the word had just changed (a wait returns EAGAIN at once, and the C library looks
  again): ``pthread_join`` and process-shared locks in a bot's own shared memory (Python's
  ``multiprocessing``) still work, spinning where they would have slept. The futex2 calls whose flags lie
  in memory (``futex_waitv``, ``futex_requeue``) answer ENOSYS; the C library does not use them.
- **namespaces of its own** (``unshare``, ``setns``, ``clone`` with a namespace flag, ``mount``...): as root,
  bubblewrap cannot forbid user namespaces itself, and each is more of the kernel within a bot's reach.
  ``clone3`` answers ENOSYS, so that the C library falls back to ``clone``, whose flags a filter can read.
- **page-cache eviction and probes**: every sandbox reads the same system files, and a bot's own files are
  read by each of its processes, through one page cache that outlives every process. A bot could write its
  hand as which pages of a file are cached (read a page for 1, drop it for 0) and its twin, in the other
  game of a duplicate pair, read it back. Dropping a page of a file it did not write is closed here:
  ``fadvise64`` (``fadvise64_64``, ``arm_fadvise64_64``) answers 0 without acting (the advice is only a
  hint: a program that asks still works), and so do ``madvise`` and ``process_madvise`` with ``MADV_COLD``
  or ``MADV_PAGEOUT`` (the kernel already ignores PAGEOUT for another's file, not COLD; every other advice,
  ``MADV_DONTNEED`` of the C library's allocator among them, is untouched). Asking whether a page is
  cached without loading it is closed too: ``preadv2``/``pwritev2`` with ``RWF_NOWAIT`` answer EOPNOTSUPP
  (as for a file that cannot do it: a program falls back to a plain read), ``cachestat`` and the kernel's
  own asynchronous I/O (``io_setup``, ``io_submit``, whose ``RWF_NOWAIT`` lies in memory where no filter
  reads) answer ENOSYS. ``mincore`` needs nothing: the kernel answers "resident" for every page of a file
  the caller neither owns nor may write, which is every shared file of a bot run as root. What a bot loads
  is charged to its cgroup, and reclaimed before the cgroup is removed (arena.referee.sandbox): the other
  half, so that what it did load does not outlive it either. Timing a read stays possible, so what is
  left is whether someone *else* loaded a page (docs/SECURITY.md measures it).
- what no game needs and container runtimes refuse for the size of kernel it exposes: ``bpf``,
  ``perf_event_open`` (it can also watch other processes' CPU events), ``userfaultfd``, ``io_uring``, module
  and kexec loading, ``ptrace`` of anything but itself is already refused by the PID namespace and uids.

Everything else is allowed: the filter is a deny list, so any language's runtime starts as it would outside.
"""

from __future__ import annotations

import errno
import functools
import tempfile
from typing import Any

__all__ = ["BOT_REFUSED", "BUILD_REFUSED", "compile_filter", "seccomp_filter"]

# Each refused call and the errno it answers with: EPERM, as container runtimes answer, except where a
# program has a better fallback for another error (a lock that is "not available", a call "not there").
_KEYRINGS = {"add_key": errno.EPERM, "request_key": errno.EPERM, "keyctl": errno.EPERM}
_LOCKS = {"flock": errno.ENOLCK}
_WATCHES = {"inotify_init": errno.ENOSYS, "inotify_init1": errno.ENOSYS, "fanotify_init": errno.ENOSYS}
_NAMESPACES = {"unshare": errno.EPERM, "setns": errno.EPERM, "mount": errno.EPERM, "umount2": errno.EPERM,
               "pivot_root": errno.EPERM, "open_tree": errno.EPERM, "move_mount": errno.EPERM,
               "fsopen": errno.EPERM, "fsmount": errno.EPERM, "fsconfig": errno.EPERM, "fspick": errno.EPERM,
               "mount_setattr": errno.EPERM, "clone3": errno.ENOSYS}
_SURFACE = {"bpf": errno.EPERM, "perf_event_open": errno.EPERM, "userfaultfd": errno.EPERM,
            "io_uring_setup": errno.ENOSYS, "io_uring_enter": errno.ENOSYS, "io_uring_register": errno.ENOSYS,
            "init_module": errno.EPERM, "finit_module": errno.EPERM, "delete_module": errno.EPERM,
            "kexec_load": errno.EPERM, "kexec_file_load": errno.EPERM, "acct": errno.EPERM,
            "swapon": errno.EPERM, "swapoff": errno.EPERM, "reboot": errno.EPERM, "syslog": errno.EPERM,
            "quotactl": errno.EPERM, "lookup_dcookie": errno.EPERM, "name_to_handle_at": errno.EPERM,
            "open_by_handle_at": errno.EPERM}
# (page-cache probes whose flags lie in memory, or that say what is cached without loading it)
_CACHE_PROBES = {"cachestat": errno.ENOSYS, "io_setup": errno.ENOSYS, "io_submit": errno.ENOSYS}

# fcntl commands that lock, lease or watch (linux/fcntl.h, asm-generic/fcntl.h): F_GETLK, F_SETLK, F_SETLKW,
# their 64-bit forms on 32-bit ABIs, the open-file-description locks, leases and dnotify.
_FCNTL_LOCKS = (5, 6, 7, 12, 13, 14, 36, 37, 38, 1024, 1025, 1026)
# futex commands (linux/futex.h) that wake or requeue waiters (WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, UNLOCK_PI,
# WAKE_BITSET, CMP_REQUEUE_PI), answered 0 when shared, and those that wait or take a PI lock (WAIT, LOCK_PI,
# TRYLOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2), answered EAGAIN; FUTEX_PRIVATE_FLAG is 128
_FUTEX_WAKES = (1, 3, 4, 5, 7, 10, 12)
_FUTEX_WAITS = (0, 6, 8, 9, 11, 13)
_FUTEX_PRIVATE = 128
# clone flags that make a namespace: NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
# madvise advice that evicts pages of a mapped file, or pushes them to be evicted first: MADV_COLD, MADV_PAGEOUT
_MADV_EVICT = (20, 21)
RWF_NOWAIT = 0x8
_CLONE_NEW = (0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)

BOT_REFUSED: dict[str, int] = {**_KEYRINGS, **_LOCKS, **_WATCHES, **_NAMESPACES, **_SURFACE, **_CACHE_PROBES}
# A build (a compiler, make, cargo) is not a player: it may lock its own files (cargo does), and it plays no
# game whose cards a lock could carry. Keys still outlive it, namespaces are still the kernel's surface.
# Nor may it drop or probe the page cache: a ladder builds while matches play, and a build that could would
# be a live channel to them as wide as the cache.
BUILD_REFUSED: dict[str, int] = {**_KEYRINGS, **_NAMESPACES, **_SURFACE, **_CACHE_PROBES}


@functools.lru_cache(maxsize=4)
def seccomp_filter(locks: bool = True) -> bytes:
    """The compiled BPF program bubblewrap loads (``--seccomp``): a bot's (``locks``) or a build's.

    Raises OSError when libseccomp cannot be loaded here (the sandbox then says why, see sandbox.py)."""
    return compile_filter(BOT_REFUSED if locks else BUILD_REFUSED, fcntl_locks=locks, shared_futexes=locks,
                          evictions=True, nowait=True)


def compile_filter(refused: dict[str, int], fcntl_locks: bool, shared_futexes: bool = False,
                   evictions: bool = False, nowait: bool = False) -> bytes:
    """A filter refusing each call of ``refused`` with its errno, namespace-making ``clone`` flags, (with
    ``fcntl_locks``) fcntl's lock, lease and notification commands, (with ``shared_futexes``) futexes not
    private to the process, (with ``evictions``) the advice that drops cached pages (answered 0, not done)
    and (with ``nowait``) ``RWF_NOWAIT`` reads and writes, which say whether a page is cached; everything
    else allowed. A build keeps its locks and futexes: it plays no game whose cards they could
    carry, and compilers lock their own files."""
    import pyseccomp as sc

    f = sc.SyscallFilter(defaction=sc.ALLOW)
    # a 64-bit x86 kernel also runs 32-bit (x86) and x32 programs, each with its own syscall numbers; x32
    # passes preadv2's offset as one argument, so its flags come one earlier: a filter of its own, merged
    x86 = sc.system_arch() == sc.Arch.X86_64
    if x86:
        f.add_arch(sc.Arch.X86)  # (before the rules, which apply to the architectures the filter has then)
    _add_rules(sc, f, refused, fcntl_locks, shared_futexes, evictions, nowait and 5)
    if x86:
        x32 = sc.SyscallFilter(defaction=sc.ALLOW)
        x32.remove_arch(sc.Arch.NATIVE)
        x32.add_arch(sc.Arch.X32)
        _add_rules(sc, x32, refused, fcntl_locks, shared_futexes, evictions, nowait and 4)
        f.merge(x32)
    with tempfile.TemporaryFile() as out:  # libseccomp writes to a real descriptor
        f.export_bpf(out)
        out.seek(0)
        return out.read()


def _add_rules(sc: Any, f: Any, refused: dict[str, int], fcntl_locks: bool, shared_futexes: bool,
               evictions: bool, nowait_arg: int | bool) -> None:
    """The rules of `compile_filter`, for the architectures of ``f`` (``nowait_arg``: where the flags of
    ``preadv2`` lie, or False to leave ``RWF_NOWAIT`` alone)."""
    for name, err in refused.items():
        _refuse(sc, f, name, err)
    if fcntl_locks:
        for name in ("fcntl", "fcntl64"):
            for command in _FCNTL_LOCKS:
                # the kernel reads the command as a 32-bit int: compare those bits only, or a command with
                # anything in the upper half would pass the filter and still lock
                _refuse(sc, f, name, errno.ENOLCK, sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, command))
    if shared_futexes:
        for name in ("futex", "futex_time64"):
            # the command in the op's low 7 bits, and the private flag clear: (op & 0xff) == command
            for command in _FUTEX_WAKES:
                _refuse(sc, f, name, 0, sc.Arg(1, sc.MASKED_EQ, 0x7F | _FUTEX_PRIVATE, command))
            for command in _FUTEX_WAITS:
                _refuse(sc, f, name, errno.EAGAIN, sc.Arg(1, sc.MASKED_EQ, 0x7F | _FUTEX_PRIVATE, command))
        # futex2: futex_wake and futex_wait take their flags as the fourth argument
        _refuse(sc, f, "futex_wake", 0, sc.Arg(3, sc.MASKED_EQ, _FUTEX_PRIVATE, 0))
        _refuse(sc, f, "futex_wait", errno.EAGAIN, sc.Arg(3, sc.MASKED_EQ, _FUTEX_PRIVATE, 0))
        for name in ("futex_waitv", "futex_requeue"):
            _refuse(sc, f, name, errno.ENOSYS)
    if evictions:
        for name in ("fadvise64", "fadvise64_64", "arm_fadvise64_64"):
            _refuse(sc, f, name, 0)  # (any advice: WILLNEED only loads, but answering all alike is simpler)
        for advice in _MADV_EVICT:
            _refuse(sc, f, "madvise", 0, sc.Arg(2, sc.MASKED_EQ, 0xFFFFFFFF, advice))
            _refuse(sc, f, "process_madvise", 0, sc.Arg(3, sc.MASKED_EQ, 0xFFFFFFFF, advice))
    if nowait_arg is not False:
        for name in ("preadv2", "pwritev2"):
            # the flags: the sixth argument, after the offset's two halves (the fifth on x32)
            _refuse(sc, f, name, errno.EOPNOTSUPP, sc.Arg(nowait_arg, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for flag in _CLONE_NEW:
        _refuse(sc, f, "clone", errno.EPERM, sc.Arg(0, sc.MASKED_EQ, flag, flag))


def _refuse(sc: object, f: object, name: str, err: int, *args: object) -> None:
    """Add one rule (``err`` 0: the call does nothing and answers 0), skipping a call this architecture does
    not have (fcntl64 on x86-64's native table is
    still known to libseccomp for the 32-bit ones; a name no table knows is left out)."""
    try:
        f.add_rule(sc.ERRNO(err), name, *args)  # type: ignore[attr-defined]
    except (RuntimeError, ValueError, OSError):
        pass

