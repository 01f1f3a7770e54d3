"""How often the Elo intervals of a two-bot series cover the truth, by simulation (docs/STATISTICS.md,
"Intervals from few pairs"); tests/test_stats_intervals.py runs a small version.

    .venv/bin/python bench/interval_coverage.py [--sims 1000] [--pairs 10] [--bootstrap 300]

Duplicate pairs from a latent-strength model (tests/test_stats_sprt.py's): in a pair's two matches, on one
deal with the seats swapped, the candidate wins when skill + luck + noise > 0 and when skill - luck + noise >
0, luck ~ N(0, luck_sd) shared by the pair, noise ~ N(0, 0.5) per match; skill is set so that the expected
score is E(elo). Each series is rated as `arena match` rates it (arena.stats.ratings, the pair as the
bootstrap's unit, 300 resamples) and the interval of the candidate's Elo is checked against elo.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.stats import Result, expected_score, ratings  # noqa: E402

CASES = [(0.0, 3.0), (0.0, 1.5), (0.0, 0.3), (200.0, 1.5), (400.0, 1.5), (200.0, 3.0)]  # (elo, luck_sd)


def series(rng: random.Random, elo: float, luck_sd: float, pairs: int) -> list[Result]:
    skill = statistics.NormalDist(0, math.hypot(luck_sd, 0.5)).inv_cdf(expected_score(elo))
    out = []
    for k in range(pairs):
        luck = rng.gauss(0, luck_sd)
        a = skill + luck + rng.gauss(0, 0.5) > 0
        b = skill - luck + rng.gauss(0, 0.5) > 0
        out += [Result("A", "B", float(a), f"p{k}"), Result("B", "A", 1.0 - float(b), f"p{k}")]
    return out


def coverage(elo: float, luck_sd: float, pairs: int, sims: int, bootstrap: int, seed: int) -> tuple[float, float]:
    """(the share of series whose interval holds ``elo``, among those that show one; the share that show
    none: a bot won every match, so every resample is alike and `arena match` says "no interval")."""
    rng = random.Random(f"{seed}/{elo}/{luck_sd}/{pairs}")
    covered = shown = 0
    for i in range(sims):
        r = ratings(series(rng, elo, luck_sd, pairs), anchor="B", bootstrap=bootstrap, seed=i)["A"]
        assert r.lo is not None and r.hi is not None
        if r.lo < r.hi:
            shown += 1
            covered += r.lo <= elo <= r.hi
    return covered / max(shown, 1), 1 - shown / sims


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sims", type=int, default=1000)
    p.add_argument("--pairs", type=int, nargs="+", default=[10])
    p.add_argument("--bootstrap", type=int, default=300)
    p.add_argument("--seed", type=int, default=36)
    args = p.parse_args()
    print(f"| pairs | Elo | luck sd | coverage ({args.sims} series) | no interval | s |")
    print("|---|---|---|---|---|---|")
    for pairs in args.pairs:
        for elo, luck_sd in CASES:
            t0 = time.perf_counter()
            c, none = coverage(elo, luck_sd, pairs, args.sims, args.bootstrap, args.seed)
            print(f"| {pairs} | {elo:+g} | {luck_sd:g} | {100 * c:.1f}% | {100 * none:.0f}% | "
                  f"{time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
