"""What the bubblewrap sandbox costs: bot start-up, and per decision, against no sandbox (docs/PERFORMANCE.md).

    .venv/bin/python bench/sandbox_bench.py [--starts 40] [--matches 40]

Both sides are measured in the same run with the trivial C bot (bench/out/trivial_bot, `make -C bench`):
- start: spawn a bot, handshake, `quit`, reaped; wall time per bot;
- matches: full matches, each starting and stopping its two bots, and the same with both bots started once
  (the per-decision cost alone); wall and the referee's own CPU per decision.
Figures, never pass/fail.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import bot_argv  # noqa: E402

from arena.game import preset  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.referee.match import BotHandle, Player, play_match  # noqa: E402
from arena.referee.process import BotSpec  # noqa: E402
from arena.referee.sandbox import bwrap_problem  # noqa: E402


def player(sandbox: str) -> Player:
    return Player(BotSpec("trivial", bot_argv("c"), sandbox=sandbox), TimeControl())


async def starts(sandbox: str, n: int) -> list[float]:
    out = []
    async with trio.open_nursery() as nursery:
        for _ in range(n):
            t0 = time.perf_counter()
            handle = BotHandle(player(sandbox), nursery)
            await handle.start()
            await handle.quit()
            out.append((time.perf_counter() - t0) * 1000)
    return out


async def matches(sandbox: str, n: int, reuse: bool) -> tuple[float, float, int]:
    p = player(sandbox)
    rules = preset("santase")
    async with trio.open_nursery() as nursery:
        handles = (BotHandle(p, nursery), BotHandle(p, nursery)) if reuse else None
        await play_match("warm-up", (p, p), rules, 0, 0, handles=handles)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        decisions = 0
        for i in range(n):
            rec = await play_match(f"m{i}", (p, p), rules, 1000 + i, i, handles=handles)
            assert rec.reason == "target", rec.terminations
            decisions += len(rec.think_ms[0]) + len(rec.think_ms[1])
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        if handles:
            for h in handles:
                await h.quit()
    return wall, cpu, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--matches", type=int, default=40)
    args = parser.parse_args()
    if bwrap_problem() is not None:
        raise SystemExit(f"no sandbox here: {bwrap_problem()}")
    print(f"{'':28}{'none':>14}{'bwrap':>14}{'ratio':>8}")
    row = {}
    for sandbox in ("none", "bwrap"):
        row[sandbox] = statistics.median(trio.run(starts, sandbox, args.starts))
    print(f"{'start + handshake + quit':28}{row['none']:>11.1f} ms{row['bwrap']:>11.1f} ms"
          f"{row['bwrap'] / row['none']:>7.2f}x")
    for reuse, label in ((False, "match, bots started per match"), (True, "match, bots started once")):
        figures = {s: trio.run(matches, s, args.matches, reuse) for s in ("none", "bwrap")}
        wall = {s: f[0] / f[2] * 1e6 for s, f in figures.items()}
        cpu = {s: f[1] / f[2] * 1e6 for s, f in figures.items()}
        print(f"{label:28}")
        print(f"{'  wall per decision':28}{wall['none']:>11.1f} us{wall['bwrap']:>11.1f} us"
              f"{wall['bwrap'] / wall['none']:>7.2f}x")
        print(f"{'  referee CPU per decision':28}{cpu['none']:>11.1f} us{cpu['bwrap']:>11.1f} us"
              f"{cpu['bwrap'] / cpu['none']:>7.2f}x")


if __name__ == "__main__":
    main()
