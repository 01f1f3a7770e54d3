"""What a hostile bot can still do to another through the machine they share (docs/SECURITY.md, PERFORMANCE.md).

    .venv/bin/python bench/sealed_bench.py [--matches 3] [--bits 200] [--slot-ms 20]

1. **A CPU hog's opponent**: tests/bots/good.py at 100 ms a move against tests/bots/cpu_hog.py (56 spinning
   processes), with the bots' CPU quota (limits.cpus: 1, the default) and without it (cpus: null), and
   against a quiet bot: the victim's reply times as the referee measured them (p50, p99, max) and its
   timeouts.
2. **Covert channels between two sandboxes that run at once** (two bots of one author in two matches): a
   sender in one sandbox sends seeded random bits, one per slot, a receiver in another decodes them.
   - CPU: the sender spins in a slot for a 1 and sleeps for a 0; the receiver counts its own loop turns.
   - memory: the sender holds 256 MiB in a slot for a 1; the receiver reads MemAvailable (/proc/meminfo).
   - futex: the sender keeps a thread waiting on a word of libc's first page for a 1; the receiver wakes it
     (FUTEX_WAKE says how many it woke), in 5 ms and 1 ms slots.
   Bits per second, error rate, and the capacity of that binary symmetric channel (bits/s * (1 - H(err))).
Figures, never pass/fail. Run as root for the cgroup quota (row 1 without it shows no difference).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from arena.game import preset  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.referee.match import Player, play_match  # noqa: E402
from arena.referee.process import BotSpec, Limits  # noqa: E402
from arena.referee.sandbox import PASS_FDS, bot_files, bwrap_problem, plan_sandbox  # noqa: E402

BOTS = ROOT / "tests" / "bots"
GOOD = (sys.executable, str(BOTS / "good.py"))


async def victim_replies(opponent: tuple[str, ...], cpus: float | None, matches: int) -> tuple[list[float], int]:
    """The victim's reply times (ms) over ``matches`` matches, and its timeouts."""
    fast = TimeControl(move_ms=100, handshake_ms=10_000, grace_ms=0)
    slow = TimeControl(move_ms=10_000, handshake_ms=10_000, grace_ms=50)
    times: list[float] = []
    timeouts = 0
    for i in range(matches):
        a = Player(BotSpec("other", opponent, sandbox="bwrap", limits=Limits(cpus=cpus),
                           files=bot_files(opponent, None, [GOOD])), slow)
        b = Player(BotSpec("good", GOOD, sandbox="bwrap", files=bot_files(GOOD, None, [opponent])), fast)
        rec = await play_match(f"other-vs-good-p{i}-g0", (a, b), preset("santase"), 1000 + i, 1000 + i)
        times += rec.think_ms[1]
        timeouts += sum(1 for t in rec.terminations if t.bot == "good")
    return times, timeouts


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


SENDER = r"""
import os, sys, time
bits, slot, start, kind = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
block = None
for i, bit in enumerate(bits):
    end = start + (i + 1) * slot
    if bit == "1" and kind == "memory":
        block = bytearray(256 << 20)
        block[::4096] = b"x" * len(block[::4096])
    while time.monotonic() < end:
        if bit == "1" and kind == "cpu":
            pass
        else:
            time.sleep(max(0.0, min(0.002, end - time.monotonic())))
    block = None
"""

RECEIVER = r"""
import sys, time
n, slot, start, kind = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
out = []
def available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
while time.monotonic() < start:
    time.sleep(0.001)
for i in range(n):
    end = start + (i + 1) * slot
    if kind == "cpu":
        turns = 0
        while time.monotonic() < end:
            turns += 1
        out.append(turns)
    else:
        while time.monotonic() < end - slot / 2:
            time.sleep(0.001)
        out.append(available())
        while time.monotonic() < end:
            time.sleep(0.001)
print(" ".join(map(str, out)))
"""


# Futexes: a futex word in a page of a file is keyed by the file and the offset, whichever process maps it, even
# read-only and private (libc's own pages, mapped by every dynamically linked program), so a FUTEX_WAKE in one
# sandbox says whether a thread of another waits on that word. The sender keeps a thread waiting on word
# i % 8 of libc's first page during slot i for a 1; the receiver wakes that word in the middle of the slot,
# and reads a 1 when it woke somebody.
FUTEX = r"""
import ctypes, sys, threading, time
role, arg, slot, start = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
libc = ctypes.CDLL(None, use_errno=True)
base = next(int(line.split("-")[0], 16) for line in open("/proc/self/maps")
            if "/libc.so" in line and line.split()[2] == "00000000")
def word(i):
    return base + 4 * (i % 8)
def wait(i):  # FUTEX_WAIT: sleeps while the word holds the value it holds, until woken
    libc.syscall(202, ctypes.c_void_p(word(i)), 0, ctypes.c_uint32.from_address(word(i)).value, None, None, 0)
def wake(i):  # FUTEX_WAKE one: how many it woke
    return libc.syscall(202, ctypes.c_void_p(word(i)), 1, 1, None, None, 0)
def until(t):
    while time.monotonic() < t:
        time.sleep(max(0.0, min(0.0005, t - time.monotonic())))
until(start)
out = []
for i in range(len(arg) if role == "send" else int(arg)):
    if role == "send":
        waiter = None
        if arg[i] == "1":
            waiter = threading.Thread(target=wait, args=(i,))
            waiter.start()
        until(start + (i + 1) * slot)
        if waiter is not None:
            while waiter.is_alive():
                wake(i)  # (its own waiter, when the receiver did not)
                waiter.join(0.001)
    else:
        until(start + (i + 0.5) * slot)
        out.append(wake(i))
        until(start + (i + 1) * slot)
print(" ".join(map(str, out)))
"""


def futex_channel(n: int, slot_ms: float, seed: int) -> tuple[float, float]:
    """(bits per second, error rate) of the futex channel."""
    rng = random.Random(seed)
    bits = "".join(rng.choice("01") for _ in range(n))
    slot = slot_ms / 1000
    start = time.monotonic() + 1.0
    receiver = sandboxed(FUTEX, "receive", str(n), str(slot), str(start))
    sender = sandboxed(FUTEX, "send", bits, str(slot), str(start))
    out, _ = receiver.communicate(timeout=60 + n * slot * 2)
    sender.wait(timeout=60)
    for p in (receiver, sender):
        p.plan.release()  # type: ignore[attr-defined]
    got = "".join("1" if int(v) > 0 else "0" for v in out.split())
    errors = sum(a != b for a, b in zip(bits, got, strict=True))
    return 1 / slot, errors / n


def sandboxed(code: str, *args: str) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-c", code, *args]
    plan = plan_sandbox(argv, None, (), 2 * 1024**3, None, None, None, {"PATH": "/usr/bin:/bin"}, cpus=1.0)
    proc = subprocess.Popen(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec, pass_fds=PASS_FDS,
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    proc.plan = plan  # type: ignore[attr-defined]
    return proc


def channel(kind: str, n: int, slot_ms: float, seed: int) -> tuple[float, float]:
    """(bits per second, error rate) of one run of the channel."""
    rng = random.Random(seed)
    bits = "".join(rng.choice("01") for _ in range(n))
    slot = slot_ms / 1000
    start = time.monotonic() + 1.0  # both sandboxes started by then
    receiver = sandboxed(RECEIVER, str(n), str(slot), str(start), kind)
    sender = sandboxed(SENDER, bits, str(slot), str(start), kind)
    out, _ = receiver.communicate(timeout=60 + n * slot * 2)
    sender.wait(timeout=60)
    for p in (receiver, sender):
        p.plan.release()  # type: ignore[attr-defined]
    values = [int(v) for v in out.split()]
    # a 1 is fewer loop turns (CPU taken) or less memory available: below the median
    threshold = statistics.median(values)
    got = "".join("1" if v < threshold else "0" for v in values)
    errors = sum(a != b for a, b in zip(bits, got, strict=True))
    return 1 / slot, errors / n


def capacity(rate: float, err: float) -> float:
    if err in (0.0, 1.0):
        return rate
    h = -err * math.log2(err) - (1 - err) * math.log2(1 - err)
    return rate * max(0.0, 1 - h)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--bits", type=int, default=200)
    parser.add_argument("--slot-ms", type=float, default=20)
    args = parser.parse_args()
    if bwrap_problem():
        sys.exit(f"no sandbox here: {bwrap_problem()}")
    hog = (sys.executable, str(BOTS / "cpu_hog.py"), "56")
    print("1. the victim's replies at 100 ms a move (ms, as the referee measured them)")
    print("| opponent | victim p50 | p99 | max | victim timeouts |")
    print("|---|---|---|---|---|")
    for label, opponent, cpus in [("quiet (good.py)", GOOD, 1.0), ("hog, limits.cpus: 1", hog, 1.0),
                                  ("hog, limits.cpus: null", hog, None)]:
        times, timeouts = await victim_replies(opponent, cpus, args.matches)
        print(f"| {label} | {statistics.median(times):.2f} | {percentile(times, 0.99):.2f} | {max(times):.2f} "
              f"| {timeouts} |")
    print()
    print(f"2. covert channels between two sandboxes running at once ({args.bits} bits, {args.slot_ms:g} ms slots)")
    print("| channel | raw bits/s | error rate | capacity bits/s |")
    print("|---|---|---|---|")
    for kind in ("cpu", "memory"):
        rate, err = channel(kind, args.bits, args.slot_ms, seed=7)
        print(f"| {kind} | {rate:.0f} | {err:.3f} | {capacity(rate, err):.1f} |")
    for slot_ms in (5.0, 1.0):
        rate, err = futex_channel(args.bits * 5, slot_ms, seed=7)
        print(f"| futex ({slot_ms:g} ms slots) | {rate:.0f} | {err:.3f} | {capacity(rate, err):.1f} |")


if __name__ == "__main__":
    trio.run(main)
