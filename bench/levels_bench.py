"""The house levels' strength (arena/levels.py): each level against the level below, duplicate santase matches.

    .venv/bin/python bench/levels_bench.py                  # every step: 200 matches each, 40 for Level 6
    .venv/bin/python bench/levels_bench.py --matches 40     # a quick look
    .venv/bin/python bench/levels_bench.py --only 5         # only Level 5 against Level 4

Each step is one `arena match` (real referee, sandboxed bots, duplicate deals, seats alternating, one match at
a time) with `--json`; the Elo difference and its 95% interval are arena's own (docs/STATISTICS.md). The levels
are deterministic (seeded blunders, a fixed number of iterations), so a step measures the same on any machine.
Prints a Markdown table of the steps and the levels' scale (Level 1 = 0, each level the one below plus its step)
for bots/README.md and docs/PERFORMANCE.md, and writes bench/out/levels.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from arena.levels import LEVELS  # noqa: E402


def step(number: int, matches: int, seed: int) -> dict[str, object]:
    """Level `number` against the level below: its Elo difference with the 95% interval."""
    upper, lower = LEVELS[number - 1], LEVELS[number - 2]
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "arena", "match", upper.command, lower.command, "--matches", str(matches),
         "--seed", str(seed), "--concurrency", "1", "--names", upper.name, lower.name, "--json",
         *(["--move-time", upper.move_time] if upper.move_time else [])],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    elo = result["elo_difference"]
    sign = 1 if elo["bot"] == upper.name else -1
    low, high = sorted(sign * x for x in elo["interval"])
    return {"level": number, "against": number - 1, "matches": matches, "seed": seed,
            "wins": result["wins"][upper.name], "elo": round(sign * elo["elo"]), "interval": [round(low), round(high)],
            "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=None,
                        help="matches per step (even: duplicate pairs); default 200, and 40 for Level 6, whose "
                        "1 s a move makes a match take over a minute")
    parser.add_argument("--seed", type=int, default=36, help="seed of the deals (each step adds its level number)")
    parser.add_argument("--only", default="", help="comma-separated level numbers (2..6) to measure")
    args = parser.parse_args()
    numbers = [int(n) for n in args.only.split(",") if n] or [level.number for level in LEVELS[1:]]
    OUT.mkdir(exist_ok=True)
    steps = []
    for number in numbers:
        matches = args.matches or (200 if LEVELS[number - 1].deterministic else 40)
        steps.append(step(number, matches, args.seed + number))
        s = steps[-1]
        print(f"Level {number} vs Level {number - 1}: {s['wins']}/{s['matches']} matches, "
              f"Elo {s['elo']:+d} ({s['interval'][0]:+d} to {s['interval'][1]:+d}), {s['seconds']} s", flush=True)
    (OUT / "levels.json").write_text(json.dumps(steps, indent=1) + "\n")
    print("\n| level | command | against the level below: wins, Elo (95% interval) | scale |")
    print("|---|---|---|---:|")
    scale, by_level = 0, {s["level"]: s for s in steps}
    for level in LEVELS:
        s = by_level.get(level.number)
        if s is not None:
            scale += int(s["elo"])  # type: ignore[call-overload]
            lo, hi = s["interval"]  # type: ignore[misc]
            measured = f"{s['wins']}/{s['matches']}, **{s['elo']:+d}** ({lo:+d} to {hi:+d})"
        else:
            measured = "—"
        print(f"| {level.label()} | `{level.command}` | {measured} | {scale if s or level.number == 1 else '?'} |")


if __name__ == "__main__":
    main()
