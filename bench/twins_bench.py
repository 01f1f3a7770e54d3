"""What the twins of a duplicate pair can still pass each other, and what closing it costs (docs/SECURITY.md,
docs/PERFORMANCE.md).

    .venv/bin/python bench/twins_bench.py [--deals 20] [--bits 400] [--matches 40]

As root (a bot's cgroup is what gets reclaimed). Every figure is measured twice: "before", with the measures
of issue 33 switched off (no reclaim, the page-cache rules out of the seccomp filter, the kernel's
counters in /proc shown), and "after", the defaults. Figures, never pass/fail.

1. Twin channels, bits per deal. A sandbox (game 0) writes a hand, one bit per card (24 cards), and ends; a
   second sandbox (game 1) starts and reads it. Each card has two marks, A and B; game 0 marks A for a card
   it holds and B otherwise, game 1 reads the card as the one of A, B that looks marked, so that a cache
   that says nothing reads as coin flips. Channels: pages of a file of the bot's own loaded (the file starts
   uncached), pages of a system file loaded, pages of a system file dropped (``posix_fadvise``; the file
   starts cached by this process), negative dentries (8 names a mark, looked up that do not exist; read by
   timing ``stat``), and two counters that only grow: the forks since boot (/proc/stat's ``processes``: game 0
   forks until it is the first 8 cards' bits modulo 256) and the inode numbers the kernel gives pipes (one
   counter per CPU: game 0, on CPU 0, makes pipes until the number is the first 4 cards' bits, in steps of
   64); game 1 takes away what the counter moves between two sandboxes, learnt first. Pages are read with
   ``preadv2(RWF_NOWAIT)`` where it is allowed, else by timing a touch of the page in a mapping advised
   MADV_RANDOM. A hand of 6 cards of 24 is log2(C(24, 6)) = 17.0 bits; a channel's bits per deal are the
   mutual information of each card's reading with the card, summed over the 24 cards (at most 17.0); a card
   read as "?" (nothing told) is a coin flip.
2. Live channels between two sandboxes running at once, bits per second: the page cache of a system file
   (a bot's own files are cached by the referee before it starts), the sender loading a page for a 1 and
   dropping it again (eight pages in turn), or loading a fresh page per bit (what is left once a bot cannot
   drop a page), the receiver timing a read or a touch of it; and
   /proc/sys/fs/file-nr (the sender holds 2,000 open files for a 1).
3. Costs: a sandboxed start (spawn, handshake, quit, reaped), C-bot matches per second (each match starting
   its two bots), and a bot that reads 100 MB of weights at every start: its cgroup's reclaim, and its read
   in its first and second game, with and without the referee reading the bot's files first (`_warm`).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import bot_argv  # noqa: E402

from arena.game import preset  # noqa: E402
from arena.referee import sandbox, syscalls  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.referee.match import BotHandle, Player, play_match  # noqa: E402
from arena.referee.process import BotSpec  # noqa: E402

PAGE = 4096
STRIDE = 4 * PAGE
CARDS = 24
HAND_BITS = math.log2(math.comb(24, 6))


def before(on: bool) -> None:
    """Switch the measures of issue 33 off (``on``) or back on."""
    sandbox.RECLAIM = not on
    sandbox.seccomp_filter = _old_filter if on else _new_filter  # type: ignore[assignment]
    sandbox.PROC_MASKED_DIRS = () if on else _MASKED[0]  # type: ignore[misc]
    sandbox.PROC_MASKED_FILES = () if on else _MASKED[1]  # type: ignore[misc]
    sandbox.PROC_QUIET_STAT = not on
    sandbox.WARM_BYTES = 0 if on else 1 << 30
    sandbox._WARMED.clear()


_new_filter = sandbox.seccomp_filter
_MASKED = (sandbox.PROC_MASKED_DIRS, sandbox.PROC_MASKED_FILES)
_OLD_REFUSED = {k: v for k, v in syscalls.BOT_REFUSED.items() if k not in ("cachestat", "io_setup", "io_submit")}


def _old_filter(locks: bool = True) -> bytes:
    return syscalls.compile_filter(_OLD_REFUSED, fcntl_locks=locks, shared_futexes=locks)


def run(code: str, *args: str, files: tuple[str, ...] = ()) -> str:
    plan = sandbox.plan_sandbox([sys.executable, "-c", code, *args], None, files, 1 << 30, None, None, None, {})
    try:
        out = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec,
                             pass_fds=sandbox.PASS_FDS, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=120)
    finally:
        plan.release()
    if out.returncode:
        raise RuntimeError(out.stderr)
    return out.stdout


def start(code: str, *args: str, files: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    plan = sandbox.plan_sandbox([sys.executable, "-c", code, *args], None, files, 1 << 30, None, None, None, {})
    proc = subprocess.Popen(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec,
                            pass_fds=sandbox.PASS_FDS, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    proc.plan = plan  # type: ignore[attr-defined]
    return proc


# ------------------------------------------------------------------------------------------ 1. twins

MARK = r"""
import mmap, os, sys
path, how, base, bits = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def forks():
    for line in open("/proc/stat"):
        if line.startswith("processes"):
            return int(line.split()[1])
def pipe_number():
    r, w = os.pipe()
    n = os.fstat(r).st_ino
    os.close(r); os.close(w)
    return n
if how == "forks":  # the first 8 cards: fork until the count of forks since boot is them, modulo 256
    code = int(bits[:8], 2)
    for _ in range(4096):
        if (forks() + base) % 256 == code:  # (base: what the count moves before game 1 looks)
            break
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    raise SystemExit
if how == "pipes":  # the first 4 cards: make pipes on CPU 0 until its inode numbers are at them (64 a step)
    os.sched_setaffinity(0, {0})
    code = int(bits[:4], 2)
    for _ in range(4096):
        if (pipe_number() + base) % 1024 == code * 64 + 32:  # (in the middle of its step)
            break
    raise SystemExit
if how == "dentry":
    for i, bit in enumerate(bits):
        for k in range(8):
            try:
                os.stat(f"{path}/arena-twin-{base}-{i}-{'A' if bit == '1' else 'B'}{k}")
            except OSError:
                pass
    raise SystemExit
fd = os.open(path, os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
for i, bit in enumerate(bits):
    page = base + (2 * i + (0 if bit == "1" else 1)) * 4 * 4096
    if how == "load":
        m[page]
    else:
        os.posix_fadvise(fd, page, 4096, os.POSIX_FADV_DONTNEED)
"""

READ = r"""
import mmap, os, sys, time
path, how, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
out = {}
if how in ("forks", "pipes"):
    if how == "forks":
        got = -1
        for line in open("/proc/stat"):
            if line.startswith("processes"):
                got = int(line.split()[1]) % 256
        print("counter", format(got % 256, "08b") + "?" * (n - 8))
    else:
        os.sched_setaffinity(0, {0})
        r, w = os.pipe()
        print("counter", format(os.fstat(r).st_ino // 64 % 16, "04b") + "?" * (n - 4))
    raise SystemExit
if how == "dentry":
    for i in reversed(range(n)):
        for mark in "BA":
            out[(i, mark)] = 0
            for k in range(8):
                t = time.perf_counter_ns()
                try:
                    os.stat(f"{path}/arena-twin-{base}-{i}-{mark}{k}")
                except OSError:
                    pass
                out[(i, mark)] += time.perf_counter_ns() - t
    probe = "timing"
else:
    fd = os.open(path, os.O_RDONLY)
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    probe = "nowait"
    for i in reversed(range(n)):  # (a RWF_NOWAIT miss reads ahead from there on: already asked about)
        for mark in "BA":
            page = base + (2 * i + (0 if mark == "A" else 1)) * 4 * 4096
            if probe == "nowait":
                try:
                    os.preadv(fd, [bytearray(1)], page, os.RWF_NOWAIT)
                    out[(i, mark)] = 0
                    continue
                except BlockingIOError:
                    out[(i, mark)] = 10**9
                    continue
                except OSError:
                    probe = "timing"
            t = time.perf_counter_ns()
            m[page]
            out[(i, mark)] = time.perf_counter_ns() - t
# a card is held when its A looked marked: faster (loaded, or a cached name) or, for drops, slower
sign = -1 if how == "evict" else 1
print(probe, "".join("1" if sign * out[(i, "A")] < sign * out[(i, "B")] else
                     "0" if out[(i, "A")] != out[(i, "B")] else "?" for i in range(n)))
"""


def twin_channel(how: str, path: str, deals: int, seed: int, own_files: str = "-") -> tuple[float, float, str]:
    """(error rate per card, bits per deal, how game 1 read) of ``deals`` hands through one channel."""
    rng = random.Random(seed)
    errors, probe = 0.0, ""
    sent_all, got_all = "", ""
    fd = os.open(path, os.O_RDONLY) if how in ("load", "evict") else -1
    size = os.fstat(fd).st_size if fd >= 0 else 0
    regions = max(1, (size - STRIDE) // (2 * CARDS * STRIDE)) if fd >= 0 else 1 << 30
    offset = counter_offset(how) if how in ("forks", "pipes") else 0
    for deal in range(deals):
        hand = set(rng.sample(range(CARDS), 6))
        bits = "".join("1" if i in hand else "0" for i in range(CARDS))
        # (names never looked up before, in this run or an earlier one: not from the seeded generator)
        base = STRIDE + (deal % regions) * 2 * CARDS * STRIDE if fd >= 0 else int.from_bytes(os.urandom(5))
        if how in ("forks", "pipes"):
            base = offset
        if fd >= 0:
            os.pread(fd, 2 * CARDS * STRIDE, base)  # (waits for a read-ahead on its way)
            os.posix_fadvise(fd, base, 2 * CARDS * STRIDE, os.POSIX_FADV_DONTNEED)
            if how == "evict":
                for i in range(2 * CARDS):
                    os.pread(fd, 1, base + i * STRIDE)
        files = (own_files,) if path.startswith(own_files) else ()  # (a system file is shown anyway)
        run(MARK, path, how, str(base), bits, files=files)
        probe, got = run(READ, path, how, str(base), str(CARDS), files=files).split()
        errors += sum(0.5 if g == "?" else float(g != b) for g, b in zip(got, bits, strict=True))
        sent_all, got_all = sent_all + bits, got_all + got
    if fd >= 0:
        os.close(fd)
    # what the reading says about each card, summed over the cards (less the small-sample bias of the
    # estimate, Miller-Madow: 1 / (2 n ln 2) for two values each side)
    per_card = [max(0.0, information(sent_all[i::CARDS], got_all[i::CARDS]) - 1 / (2 * deals * math.log(2)))
                for i in range(CARDS)]
    return errors / (deals * CARDS), min(HAND_BITS, sum(per_card)), probe



COUNTERS = r"""
import os
os.sched_setaffinity(0, {0})
r, w = os.pipe()
print(next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("processes")), os.fstat(r).st_ino)
"""


def counter_offset(how: str) -> int:
    """What a counter moves between a sandbox's last look and the next sandbox's first, as a bot would learn
    it over a few pairs (the median of 9 tries)."""
    moves = []
    for _ in range(9):
        a = [int(v) for v in run(COUNTERS).split()]
        b = [int(v) for v in run(COUNTERS).split()]
        moves.append(b[0] - a[0] if how == "forks" else b[1] - a[1])
    return int(statistics.median(moves))


def a_system_file(size: int) -> str:
    for root, dirs, names in os.walk("/usr/share"):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path) and os.stat(path).st_size >= size \
                    and os.stat(path).st_mode & 0o444 == 0o444:
                return path
    raise SystemExit("no large file under /usr/share")


# ------------------------------------------------------------------------------------------ 2. live

LIVE_SEND = r"""
import mmap, os, sys, time
import resource
kind, path, bits, slot, start = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # (a read brings in its page alone, which a drop can drop)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
held = []
for i, bit in enumerate(bits):
    page = (1 + i) * 4 * 4096 if kind == "fresh" else (1 + i % 8) * 4 * 4096
    while time.monotonic() < start + i * slot:
        pass
    if kind == "reuse":  # (what a late read-ahead of the receiver's brought back)
        os.posix_fadvise(fd, page, 4096, os.POSIX_FADV_DONTNEED)
    if kind == "fresh" and bit == "1":
        m[page]
    if kind == "reuse" and bit == "1":  # (read, not touched: a page mapped anywhere cannot be dropped)
        os.pread(fd, 1, page)
    if kind == "files" and bit == "1":
        held = [os.open("/", os.O_RDONLY) for _ in range(min(2000, hard - 100))]
    while time.monotonic() < start + (i + 0.6) * slot:
        pass
    if kind == "reuse":
        os.posix_fadvise(fd, page, 4096, os.POSIX_FADV_DONTNEED)
    for h in held:
        os.close(h)
    held = []
"""

LIVE_RECEIVE = r"""
import mmap, os, sys, time
kind, path, n, slot, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
out = []
for i in range(n):
    while time.monotonic() < start + (i + 0.35) * slot:
        pass
    page = (1 + i) * 4 * 4096 if kind == "fresh" else (1 + i % 8) * 4 * 4096
    if kind == "files":
        try:
            with open("/proc/sys/fs/file-nr") as f:
                out.append(int(f.read().split()[0]))
        except OSError:
            out.append(0)
    elif kind == "reuse":  # (timed, read: an RWF_NOWAIT miss, or a read, reads ahead in folios of many pages
        # that a drop of one page cannot drop, and a page mapped here could not be dropped either)
        t = time.perf_counter_ns(); os.pread(fd, 1, page); out.append(-(time.perf_counter_ns() - t))
    else:
        t = time.perf_counter_ns(); m[page]; out.append(-(time.perf_counter_ns() - t))
print(" ".join(map(str, out)))
"""


def live_channel(kind: str, path: str, n: int, slot_ms: float, seed: int, own: bool = False) -> tuple[float, float]:
    """(raw bits/s, information per bit sent) between two sandboxes at once."""
    rng = random.Random(seed)
    bits = "".join(rng.choice("01") for _ in range(n))
    fd = os.open(path, os.O_RDONLY)
    os.pread(fd, (n + 2) * STRIDE, 0)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    slot = slot_ms / 1000
    begin = time.monotonic() + 1.0
    files = (os.path.dirname(path),) if own else ()  # (a system file is shown anyway)
    receiver = start(LIVE_RECEIVE, kind, path, str(n), str(slot), str(begin), files=files)
    sender = start(LIVE_SEND, kind, path, bits, str(slot), str(begin), files=files)
    out, _ = receiver.communicate(timeout=120 + n * slot * 2)
    sender.wait(timeout=120)
    for p in (receiver, sender):
        p.plan.release()  # type: ignore[attr-defined]
    values = [int(v) for v in out.split()]
    threshold = statistics.median(values) if len(set(values)) > 2 else 0.5
    if kind != "files":  # a time (negative: larger is faster): cached under 15 us; RWF_NOWAIT: 1 or 0
        threshold = -15_000
    got = "".join("1" if v > threshold else "0" for v in values)
    return 1 / slot, information(bits, got)


def information(sent: str, got: str) -> float:
    """Bits of information per bit sent that ``got`` holds about ``sent`` (their mutual information; a "?" is
    a coin flip): 0 when the reading says nothing, whatever its error rate."""
    flip = random.Random(0)
    got = "".join(flip.choice("01") if g == "?" else g for g in got)
    n = len(sent)
    joint = {(a, b): sum(1 for x, y in zip(sent, got, strict=True) if (x, y) == (a, b)) / n
             for a in "01" for b in "01"}
    px = {a: joint[(a, "0")] + joint[(a, "1")] for a in "01"}
    py = {b: joint[("0", b)] + joint[("1", b)] for b in "01"}
    return sum(p * math.log2(p / (px[a] * py[b])) for (a, b), p in joint.items() if p > 0)


# ------------------------------------------------------------------------------------------ 3. costs

def c_player() -> Player:
    return Player(BotSpec("trivial", bot_argv("c"), sandbox="bwrap"), TimeControl())


async def starts(n: int) -> float:
    out = []
    async with trio.open_nursery() as nursery:
        for _ in range(n):
            t0 = time.perf_counter()
            handle = BotHandle(c_player(), nursery)
            await handle.start()
            await handle.quit()
            out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


async def matches_per_s(n: int) -> float:
    p = c_player()
    rules = preset("santase")
    await play_match("warm-up", (p, p), rules, 0, 0)
    t0 = time.perf_counter()
    for i in range(n):
        rec = await play_match(f"m{i}", (p, p), rules, 1000 + i, i)
        assert rec.reason == "target", rec.terminations
    return n / (time.perf_counter() - t0)


WEIGHTS = r"""
import sys, time
t = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    while f.read(1 << 20):
        pass
print((time.perf_counter() - t) * 1000)
"""


def weights(folder: Path) -> dict[str, float]:
    """A bot that reads 100 MB of weights at every start: what its cgroup's reclaim takes, and how long its read
    takes in its first and second game, with the referee reading its files first (the default) and without."""
    path = folder / "weights.bin"
    with open(path, "wb") as f:
        for _ in range(100):
            f.write(os.urandom(1 << 20))
        os.fsync(f.fileno())
    path.chmod(0o644)
    folder.chmod(0o755)
    out: dict[str, float] = {}
    for warm in (False, True):
        sandbox.WARM_BYTES = (1 << 30) if warm else 0
        sandbox._WARMED.clear()
        fd = os.open(path, os.O_RDONLY)
        os.pread(fd, 100 << 20, 0)  # (waits for what is on its way)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        for game in (1, 2):
            plan = sandbox.plan_sandbox([sys.executable, "-c", WEIGHTS, str(path)], None, (str(folder),), 1 << 30,
                                        None, None, None, {})
            run = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec,
                                 pass_fds=sandbox.PASS_FDS, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            out[f"{'warm' if warm else 'cold'} game {game}"] = float(run.stdout)
            t = time.perf_counter()
            plan.release()
            out[f"{'warm' if warm else 'cold'} reclaim {game}"] = (time.perf_counter() - t) * 1000
    sandbox.WARM_BYTES = 1 << 30
    path.unlink()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--bits", type=int, default=400)
    parser.add_argument("--slot-ms", type=float, default=2.0)  # (file-nr: at least 20 ms)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--parts", default="123", help="which of the three parts to run")
    args = parser.parse_args()
    if sandbox.bwrap_problem() is not None or os.geteuid() != 0:  # (make bench goes on without it)
        print(f"bench/twins_bench.py: skipped, it needs root and a sandbox ({sandbox.bwrap_problem() or 'not root'})")
        return
    scratch = Path(__file__).resolve().parent / "out" / "twins"
    scratch.mkdir(parents=True, exist_ok=True)
    scratch.chmod(0o755)
    own = scratch / "own.bin"
    need = STRIDE + 8 * 2 * CARDS * STRIDE + STRIDE
    with open(own, "wb") as f:
        f.write(os.urandom(max(need, (args.bits + 4) * STRIDE)))
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # (pages a write left may not drop later)
    own.chmod(0o644)
    system = a_system_file(need)

    if "1" in args.parts:
        twins(args, own, system)
    if "2" in args.parts:
        live(args, own, system)
    if "3" in args.parts:
        costs(args, scratch)
    own.unlink()


def twins(args: argparse.Namespace, own: Path, system: str) -> None:
    print(f"1. twin channels: {args.deals} deals each, bits per deal (a hand is {HAND_BITS:.1f} bits)")
    print("| channel | before: error / bits per deal (read by) | after: error / bits per deal (read by) |")
    print("|---|---|---|")
    for label, how, path in [("own file, pages loaded", "load", str(own)),
                             ("system file, pages loaded", "load", system),
                             ("system file, pages dropped", "evict", system),
                             ("negative dentries (names looked up in /usr/lib)", "dentry", "/usr/lib"),
                             ("forks since boot, /proc/stat (8 cards a deal)", "forks", "/usr/lib"),
                             ("pipe inode numbers (4 cards a deal)", "pipes", "/usr/lib")]:
        cells = []
        for switched_off in (True, False):
            before(switched_off)
            err, bits, probe = twin_channel(how, path, args.deals, 33, str(own.parent))
            cells.append(f"{err:.3f} / {bits:.1f} ({probe})")
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    before(False)
    print()


def live(args: argparse.Namespace, own: Path, system: str) -> None:
    print(f"2. live channels between two sandboxes at once ({args.bits} bits, {args.slot_ms:g} ms slots)")
    print("| channel | before: bits per bit sent / bits/s | after: bits per bit sent / bits/s |")
    print("|---|---|---|")
    for label, kind in [("page cache, a page loaded for a 1 and dropped again (timed)", "reuse"),
                        ("page cache, a fresh page loaded per bit (timed)", "fresh"),
                        ("/proc/sys/fs/file-nr (2,000 files held)", "files")]:
        cells = []
        for switched_off in (True, False):
            before(switched_off)
            slot = args.slot_ms if kind != "files" else max(args.slot_ms, 20.0)
            rate, info = live_channel(kind, system, args.bits if kind != "files" else args.bits // 4, slot, 7)
            cells.append(f"{info:.3f} / {rate * info:.0f}")
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    before(False)
    print()


def costs(args: argparse.Namespace, scratch: Path) -> None:
    print("3. costs (before and after alternate three times; each keeps its best)")
    best: dict[bool, tuple[float, float]] = {}
    released: dict[bool, list[float]] = {True: [], False: []}
    release = sandbox.SandboxPlan.release

    def timed(plan: sandbox.SandboxPlan) -> None:
        t = time.perf_counter()
        release(plan)
        released[sandbox.RECLAIM is False].append((time.perf_counter() - t) * 1000)

    sandbox.SandboxPlan.release = timed  # type: ignore[method-assign]
    for switched_off in (True, False) * 3:
        before(switched_off)
        s, m = trio.run(starts, args.starts), trio.run(matches_per_s, args.matches)
        old = best.get(switched_off, (math.inf, 0.0))
        best[switched_off] = (min(old[0], s), max(old[1], m))
    sandbox.SandboxPlan.release = release  # type: ignore[method-assign]
    before(False)
    for switched_off, label in ((True, "before"), (False, "after")):
        s, m = best[switched_off]
        r = sorted(released[switched_off])
        print(f"{label}: start + handshake + quit {s:.1f} ms (median of {args.starts}); C-bot matches/s, bots "
              f"started per match: {m:.2f}; a bot's release (reclaim, cgroup removed; in a thread): median "
              f"{statistics.median(r):.2f} ms, p90 {r[int(0.9 * len(r))]:.2f} ms")
    w = weights(scratch)
    print(f"a bot reading 100 MB of weights at every start, without the referee reading them first: "
          f"{w['cold game 1']:.0f} ms in its first game, {w['cold game 2']:.0f} ms in its second (its cgroup "
          f"reclaimed in {w['cold reclaim 1']:.1f} ms); with it (the default): {w['warm game 1']:.0f} ms, "
          f"{w['warm game 2']:.0f} ms (reclaimed in {w['warm reclaim 1']:.1f} ms)")


if __name__ == "__main__":
    main()
