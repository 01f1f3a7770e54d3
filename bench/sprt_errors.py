"""The SPRTs' error rates across strengths, by resampling real duplicate pairs (docs/STATISTICS.md, "SPRT error
rates at any strength"); tests/test_sprt_errors.py runs a few of these cases, this runs the whole table.

    .venv/bin/python bench/sprt_errors.py [--runs 2000] [--test adjusted|pair|normal] [--pairs=-500/-450,0/10]

For each hypothesis pair elo0/elo1 and each truth (elo0: a verdict H1 is a false acceptance, alpha; elo1: a
verdict H0 is a false rejection, beta), every run draws units from the pool of tests/data/adjusted_pairs.json
(bench/adjusted_pairs.py) whose raw mean is nearest the truth's expected score, mirrored (1 - score) for a
weaker candidate:
- ``adjusted``: MeanSprt(per_unit=2) on the pool's luck-adjusted pair scores, shifted by a constant to the
  truth's expected score (the shape, and so the skew, of real adjusted scores);
- ``normal``: the same with the normal model MeanSprt had before issue 36 (kept here to compare);
- ``pair``: PairSprt on pair scores 0, 0.5, 1 drawn from the pool's raw outcome shares tilted
  (exponentially) to the truth's mean.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.stats import expected_score  # noqa: E402
from arena.stats.sprt import MeanSprt, PairSprt, _Wald  # noqa: E402

DATA = ROOT / "tests" / "data" / "adjusted_pairs.json"
PAIRS = ["-500/-450", "-400/-350", "-200/-150", "-50/0", "0/10", "0/50", "150/200", "350/400", "400/440",
         "450/500"]


class NormalMeanSprt(_Wald):
    """MeanSprt as it was before issue 36: units taken as normal with an unknown variance, fitted under each
    hypothesis, with two virtual units of a coin toss's variance (kept to measure what it got wrong)."""

    PRIOR_VARIANCE, PRIOR_UNITS = 0.25, 2

    def __init__(self, elo0, elo1, alpha=0.05, beta=0.05, per_unit=1):
        super().__init__(elo0, elo1, alpha, beta)
        self.per_unit, self.units, self._sum, self._sum_sq = per_unit, 0, 0.0, 0.0

    def variance(self, mean):
        n = self.units
        spread = max(self._sum_sq - self._sum**2 / n, 0.0) + n * (self._sum / n - mean) ** 2
        return (spread + self.PRIOR_UNITS * self.PRIOR_VARIANCE / self.per_unit) / (n + self.PRIOR_UNITS)

    @property
    def matches(self):
        return self.per_unit * self.units

    def update(self, score):
        self.units += 1
        self._sum += score
        self._sum_sq += score * score
        self.llr = self.units / 2 * math.log(self.variance(self.p0) / self.variance(self.p1))
        return self._crossed()


def pools(data: dict) -> list[tuple[float, list[float], list[float]]]:
    """(raw mean, raw pair scores, adjusted pair scores) of every pool and its mirror."""
    out = []
    for pool in data["pools"].values():
        raw, adj = pool["raw"], pool["adjusted"]
        out.append((sum(raw) / len(raw), raw, adj))
        out.append((1 - sum(raw) / len(raw), [1 - x for x in raw], [1 - x for x in adj]))
    return out


def tilted_shares(raw: list[float], mean: float) -> list[float]:
    """The shares of the pair scores 0, 0.5, 1 in ``raw``, exponentially tilted to ``mean``."""
    counts = [raw.count(x) + 0.5 for x in (0.0, 0.5, 1.0)]
    lo, hi = -60.0, 60.0
    for _ in range(100):
        t = (lo + hi) / 2
        w = [c * math.exp(t * x) for c, x in zip(counts, (0.0, 0.5, 1.0), strict=True)]
        if sum(wi * x for wi, x in zip(w, (0.0, 0.5, 1.0), strict=True)) / sum(w) < mean:
            lo = t
        else:
            hi = t
    return [wi / sum(w) for wi in w]


def sampler(kind: str, truth: float, data: dict, rng: random.Random):
    """A function drawing one unit's score at the truth ``truth`` (Elo)."""
    s = expected_score(truth)
    _, raw, adj = min(pools(data), key=lambda p: abs(p[0] - s))
    if kind == "pair":
        cum = []
        acc = 0.0
        for share in tilted_shares(raw, s):
            acc += share
            cum.append(acc)
        return lambda: 0.0 if (u := rng.random()) < cum[0] else 0.5 if u < cum[1] else 1.0
    shift = s - sum(adj) / len(adj)
    values = [x + shift for x in adj]
    return lambda: values[rng.randrange(len(values))]


def run(kind: str, elo0: float, elo1: float, truth: float, draw, limit: int = 50_000) -> tuple[str | None, int]:
    test = (PairSprt(elo0, elo1) if kind == "pair" else MeanSprt(elo0, elo1, per_unit=2) if kind == "adjusted"
            else NormalMeanSprt(elo0, elo1, per_unit=2))
    units = 0
    while test.verdict is None and units < limit:
        test.update(draw())
        units += 1
    return test.verdict, units


def error_rate(kind: str, elo0: float, elo1: float, truth: float, runs: int, seed: int,
               data: dict) -> tuple[float, float]:
    """(the share of runs with the wrong verdict, the mean units a run) at ``truth`` (elo0 or elo1)."""
    rng = random.Random(f"{seed}/{kind}/{elo0}/{elo1}/{truth}")
    draw = sampler(kind, truth, data, rng)
    wrong = "H1" if truth == elo0 else "H0"
    verdicts = [run(kind, elo0, elo1, truth, draw) for _ in range(runs)]
    return sum(v == wrong for v, _ in verdicts) / runs, sum(n for _, n in verdicts) / runs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=36)
    p.add_argument("--test", nargs="+", choices=["adjusted", "normal", "pair"], default=["adjusted", "pair"])
    p.add_argument("--pairs", type=lambda s: s.split(","), default=PAIRS, help="elo0/elo1,... (default: %(default)s)")
    args = p.parse_args()
    data = json.loads(DATA.read_text())
    print(f"{args.runs} runs a cell; alpha = beta = 5%; a rate's standard error near 5% is "
          f"{100 * math.sqrt(0.05 * 0.95 / args.runs):.1f} points")
    print("| test | elo0/elo1 | false acceptance (truth elo0) | false rejection (truth elo1) | pairs a run | s a run |")
    print("|---|---|---|---|---|---|")
    for kind in args.test:
        for pair in args.pairs:
            elo0, elo1 = (float(x) for x in pair.split("/"))
            t0 = time.perf_counter()
            a, n0 = error_rate(kind, elo0, elo1, elo0, args.runs, args.seed, data)
            b, n1 = error_rate(kind, elo0, elo1, elo1, args.runs, args.seed, data)
            dt = (time.perf_counter() - t0) / (2 * args.runs)
            print(f"| {kind} | {pair} | {100 * a:.1f}% | {100 * b:.1f}% | {(n0 + n1) / 2:.0f} | {dt:.3f} |", flush=True)


if __name__ == "__main__":
    main()
