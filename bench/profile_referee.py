"""Where the referee's CPU goes: a CPU-time sampling profile of real matches between trivial bots.

    .venv/bin/python bench/profile_referee.py                    # row 2: matches in a row, bots reused
    .venv/bin/python bench/profile_referee.py --tournament -c 4  # row 3: a tournament (spawn per match, DB)
    .venv/bin/python bench/profile_referee.py --tournament -c 4 --reuse --bot python
    .venv/bin/python bench/profile_referee.py --collapsed /tmp/referee.folded   # for flamegraph.pl / speedscope

The sampler is a SIGPROF interval timer (ITIMER_PROF), which counts the process's CPU time, user and
system: a sample is taken per `--interval` of CPU the referee burns, never while it waits. Time inside a
system call (write(2) to a bot's pipe, epoll) lands on the Python function that made the call. Samples are
taken in the main thread; CPU of other threads (trio runs each bot's fork/exec in a worker thread) is
measured from /proc and shown on its own line. The overhead is a few percent at the default 0.5 ms.

Each line shows the share of samples and what it costs per decision (share x referee CPU / decisions).
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

import cases  # noqa: E402
import trio  # noqa: E402

# Buckets for the summary by area, matched on the code's file path (first match wins).
AREAS = (
    ("arena/game/", "arena.game (rules engine)"),
    ("arena/protocol/", "arena.protocol (encode/decode)"),
    ("arena/referee/match.py", "arena.referee.match (match loop)"),
    ("arena/referee/process.py", "arena.referee.process (pipes, transcript)"),
    ("arena/referee/", "arena.referee (other)"),
    ("arena/store/", "arena.store (database)"),
    ("arena/tournament/", "arena.tournament (runner, worker)"),
    ("sqlite_utils/", "sqlite-utils + sqlite3"),
    ("sqlite3/", "sqlite-utils + sqlite3"),
    ("trio/_unix_pipes.py", "trio pipes (read/write syscalls)"),
    ("trio/_core/_io_epoll.py", "trio epoll (poll syscalls)"),
    ("trio/_subprocess", "trio subprocess (spawn, wait)"),
    ("subprocess.py", "trio subprocess (spawn, wait)"),
    ("trio/", "trio scheduler, cancel scopes, channels"),
    ("outcome/", "trio scheduler, cancel scopes, channels"),
    ("contextlib.py", "contextlib (trio's context managers)"),
    ("json/", "json"),
    ("dataclasses.py", "dataclasses (asdict)"),
    ("copy.py", "dataclasses (asdict)"),
    ("random.py", "random (seeding, shuffles)"),
    ("<string>", "dataclass __init__/__eq__ (generated)"),
)


class Sampler:
    """SIGPROF sampling of the main thread's Python stack, per unit of process CPU time."""

    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        self.stacks: collections.Counter[tuple[CodeType, ...]] = collections.Counter()
        self.samples = 0

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        codes = []
        while frame is not None:
            codes.append(frame.f_code)
            frame = frame.f_back
        self.stacks[tuple(codes)] += 1  # innermost first
        self.samples += 1

    def __enter__(self) -> Sampler:
        signal.signal(signal.SIGPROF, self._handler)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def _where(code: CodeType) -> str:
    path = code.co_filename
    for marker in ("site-packages/", str(ROOT) + "/", "/lib/python3"):
        i = path.find(marker)
        if i >= 0:
            path = path[i + len(marker):]
            if marker == "/lib/python3":
                path = "stdlib/" + path.split("/", 1)[-1]
            break
    return f"{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name} ({path}:{code.co_firstlineno})"


def _area(code: CodeType) -> str:
    path = code.co_filename
    for marker, area in AREAS:
        if marker in path:
            return area
    return "other: " + Path(path).name


def _thread_cpu() -> dict[int, float]:
    """CPU seconds of every thread of this process (utime + stime from /proc)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.scandir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{entry.name}/stat", "rb") as f:
                rest = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        out[int(entry.name)] = (int(rest[11]) + int(rest[12])) / tick
    return out


def run_reused(matches: int) -> dict[str, Any]:
    return cases.case_referee(matches=matches, spawn=False)


def report(sampler: Sampler, cpu_s: float, decisions: int, other_threads_s: float, top: int,
           collapsed: Path | None) -> str:
    total = max(1, sampler.samples)
    per_decision = 1e6 * cpu_s / max(1, decisions)
    self_c: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    areas: collections.Counter[str] = collections.Counter()
    for stack, n in sampler.stacks.items():
        if not stack:
            continue
        self_c[_where(stack[0])] += n
        areas[_area(stack[0])] += n
        for name in {_where(c) for c in stack}:
            incl[name] += n
    lines = [
        f"referee CPU {cpu_s:.2f} s for {decisions} decisions = {per_decision:.1f} us/decision; "
        f"{sampler.samples} samples; other threads' CPU {other_threads_s:.2f} s "
        f"({100 * other_threads_s / max(cpu_s, 1e-9):.1f}% of the process, not sampled)",
        "",
        "by area (self time of the innermost frame):",
    ]
    for name, n in areas.most_common():
        lines.append(f"  {100 * n / total:5.1f}%  {per_decision * n / total:7.1f} us/dec  {name}")
    lines += ["", f"top {top} functions by self time:"]
    for name, n in self_c.most_common(top):
        lines.append(f"  {100 * n / total:5.1f}%  {per_decision * n / total:7.1f} us/dec  {name}")
    lines += ["", f"top {top} functions by inclusive time:"]
    for name, n in incl.most_common(top):
        lines.append(f"  {100 * n / total:5.1f}%  {per_decision * n / total:7.1f} us/dec  {name}")
    if collapsed is not None:
        with open(collapsed, "w") as f:
            for stack, n in sampler.stacks.items():
                f.write(";".join(_where(c) for c in reversed(stack)) + f" {n}\n")
        lines += ["", f"collapsed stacks written to {collapsed}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tournament", action="store_true",
                   help="profile a tournament (runner + store, a process per match) instead of matches in a row")
    p.add_argument("-c", "--concurrency", type=int, default=1, help="matches at once (with --tournament)")
    p.add_argument("--reuse", action="store_true", help="reuse_bots: true (with --tournament)")
    p.add_argument("--bot", choices=("c", "python"), default="c", help="the trivial bot (with --tournament)")
    p.add_argument("-n", "--matches", type=int, default=250,
                   help="matches to play (default 250; keep a run of reused bots under 10 s, see PERFORMANCE.md)")
    p.add_argument("--interval", type=float, default=0.0005, help="CPU seconds between samples")
    p.add_argument("--top", type=int, default=30, help="functions to list")
    p.add_argument("--collapsed", type=Path, help="also write collapsed stacks (flamegraph input) here")
    args = p.parse_args(argv)
    trio.run(trio.sleep, 0)  # import and warm up trio outside the profile
    before = _thread_cpu()
    main_tid = threading.get_native_id()
    cpu0 = time.process_time()
    with Sampler(args.interval) as sampler:
        if args.tournament:
            out = cases.case_tournament(args.bot, args.matches, args.concurrency, 1, args.reuse)
        else:
            out = run_reused(args.matches)
    cpu = time.process_time() - cpu0
    after = _thread_cpu()
    others = sum(v - before.get(tid, 0.0) for tid, v in after.items() if tid != main_tid)
    decisions = out["decisions"]
    what = (f"tournament of {out['matches']} matches, {args.bot} bots, concurrency {args.concurrency}, "
            f"reuse {args.reuse}: {out['hands_per_s']:.0f} hands/s" if args.tournament
            else f"{out['matches']} matches in a row between two reused trivial C bots")
    print(what)
    print(report(sampler, cpu, decisions, others, args.top, args.collapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
