"""Does more search change what bots/ismcts plays? (issue 36; docs/PERFORMANCE.md, eleventh pass)

    .venv/bin/python bench/ismcts_converge.py                       # 40,000 / 200,000 / 1,000,000 iterations
    .venv/bin/python bench/ismcts_converge.py --iters 10000,40000 --seeds 0,1,2
    .venv/bin/python bench/ismcts_converge.py --extra "--opponent-model 1" --extra "--keyed-leads 1"

A match between two bots that think the same and take the same decisions tells nothing, however long it runs;
this measures the decisions themselves. It plays one duplicate pair of the bot against itself at a fixed number
of iterations (`--feed-iters`, deterministic), keeps every line the referee sent the first bot, and feeds those
lines again to the bot under each setting: a number of iterations, a seed, and optionally extra options at the
largest number. Every run meets the same positions whatever it replies (the lines are the real game's), so the
replies compare decision by decision. It prints, for every two settings, in how many of the decisions both
searched by ISMCTS they chose different actions. Two seeds at the same number of iterations give the noise floor;
a setting that plays no differently from another beyond that floor cannot play measurably better either.

About 40,000 iterations are a second a decision on one core of the 2-CPU machine of docs/PERFORMANCE.md and
200,000 five seconds (the median `info` lines of 1 s and 5 s matches). `--jobs` settings run at once (default:
one per CPU).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
ISMCTS = ROOT / "bots" / "ismcts" / "ismcts"
# The bot chooses its model by its budget: leaf solves and keyed answers from 250 ms (62,500 iterations) up.
# Every setting here gets them, so that 40,000 iterations play as 1 s does and only the search effort differs.
MODEL = ["--leaf-solve", "24", "--opp-keyed", "20"]


def make_feeds(feed_iters: int, seed: int, jobs: int) -> list[str]:
    """The lines the referee sent bot A in each match of one duplicate pair. Its move time of 600 s is in every
    turn line, so that --iters, not the turn's time, bounds each search when they are fed again."""
    from arena import api
    from arena.referee.clock import TimeControl

    bot = [str(ISMCTS), "--iters", str(feed_iters), *MODEL]
    records: list = []
    api.play_match(bot, [*bot, "--seed", "1"], matches=2, seed=seed, concurrency=jobs, names=("A", "B"),
                   time_control=TimeControl(move_ms=600_000), on_record=lambda spec, rec: records.append(rec))
    return ["".join(text + "\n" for _, way, text in rec.transcripts[rec.bots.index("A")] if way == ">")
            for rec in sorted(records, key=lambda r: r.match_id)]


def decisions(feeds: list[str], options: list[str]) -> list[tuple[str, str]]:
    """(reply, mode) for every reply the bot gives to the feeds; mode is from the info line before it."""
    out = "".join(subprocess.run([str(ISMCTS), *MODEL, *options], input=feed, capture_output=True, text=True,
                                 check=True).stdout for feed in feeds)
    replies, mode = [], ""
    for line in out.splitlines():
        if line.startswith("info "):
            mode = re.search(r"mode=(\w+)", line)[1]
        elif not line.startswith("bot "):  # the handshake's reply is not a decision
            replies.append((line, mode))
            mode = ""
    return replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iters", default="40000,200000,1000000", help="numbers of iterations to compare")
    parser.add_argument("--seeds", default="0,1", help="seeds of the bot at each number of iterations")
    parser.add_argument("--extra", action="append", default=[],
                        help="options to try at the largest number of iterations, seed 0 (repeatable)")
    parser.add_argument("--feed-iters", type=int, default=40000, help="iterations of the pair that makes the feed")
    parser.add_argument("--out", type=Path, default=OUT / "ismcts_converge.json", help="where the counts go (JSON)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="settings run at once")
    parser.add_argument("--feed-seed", type=int, default=5, help="seed of the pair's deals")
    args = parser.parse_args()
    iters = [int(n) for n in args.iters.split(",")]
    settings = {f"{n} s{s}": ["--iters", str(n), "--seed", str(s)] for n in iters for s in args.seeds.split(",")}
    for extra in args.extra:
        settings[f"{iters[-1]} {extra}"] = ["--iters", str(iters[-1]), *extra.split()]

    feeds = make_feeds(args.feed_iters, args.feed_seed, args.jobs)
    with ThreadPoolExecutor(args.jobs) as pool:
        runs = dict(zip(settings, pool.map(lambda options: decisions(feeds, options), settings.values()), strict=True))

    rows = []
    for a, b in itertools.combinations(settings, 2):
        both = [(ra, rb) for (ra, ma), (rb, mb) in zip(runs[a], runs[b], strict=True) if ma == mb == "ismcts"]
        differ = sum(ra != rb for ra, rb in both)
        rows.append({"a": a, "b": b, "decisions": len(both), "differ": differ})
        share = differ / max(1, len(both))
        print(f"{a:>28} | {b:<28} {differ:3d} of {len(both):3d} ISMCTS decisions differ ({share:.0%})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {"feed_iters": args.feed_iters, "feed_seed": args.feed_seed, "rows": rows}
    args.out.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
