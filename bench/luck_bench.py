"""What pairing and the luck-adjusted score save, measured on real matches (issue 28; docs/STATISTICS.md).

    .venv/bin/python bench/luck_pool.py 250      # first: play the pool (bench/out/luck/*.db), resumable
    .venv/bin/python bench/luck_bench.py fit     # fit G's weights, the game-point shares and beta
    .venv/bin/python bench/luck_bench.py measure [--reps 400]   # variances and SPRT lengths
    .venv/bin/python bench/luck_bench.py measure --pool bench/out/luck-twin ...   # every pair of other pools
    .venv/bin/python bench/luck_bench.py time [--matches 20000] # the adjustment's cost against the report's

The pool is split by duplicate pair: pairs with an even index fit, pairs with an odd index measure, so the
figures are on matches the fit never saw. ``measure`` uses the constants in arena.game.luck and
arena.stats.luck (paste ``fit``'s output there first). ``fit`` and ``measure`` replay every deal through the
engine for the draws' corrections.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from luck_pool import OUT, PAIRS  # noqa: E402

from arena.game import RuleSet  # noqa: E402
from arena.game.cards import parse_cards  # noqa: E402
from arena.game.hand import parse_seat_action  # noqa: E402
from arena.game.luck import (  # noqa: E402
    DRAW_FEATURES,
    DRAW_WEIGHTS,
    FEATURES,
    WEIGHTS,
    deal_draw_features,
    deal_seat_features,
)
from arena.stats.luck import BETA, match_luck  # noqa: E402
from arena.stats.sprt import MeanSprt, PairSprt, Sprt  # noqa: E402
from arena.store import Store  # noqa: E402


@dataclass
class PoolMatch:
    pair: str  # the bot pair (luck_pool.PAIRS)
    pair_index: int  # the duplicate pair within it
    candidate_seat: int  # the seat of the pair's first bot
    score: float  # the candidate's
    # (seat 0's dealt-card features less seat 1's, then its draws' features; leader, winner, game points)
    deals: list[tuple[list[float], int, int | None, int]]
    rules: RuleSet

    def luck(self, weights: tuple[float, ...], leveraged: bool = True) -> float:
        """The candidate's luck in the match under ``weights`` (G's, then the draws')."""
        lucks = [sum(w * x for w, x in zip(weights, xs, strict=True)) for xs, *_ in self.deals]
        seat0 = (match_luck(lucks, [(w, gp) for *_, w, gp in self.deals], self.rules.match_target) if leveraged
                 else sum(lucks))
        return seat0 if self.candidate_seat == 0 else -seat0


def load_pool(folders: list[Path]) -> list[PoolMatch]:
    """Every finished match of the pools in ``folders``; the pair indices of the k-th folder are offset by
    ``100_000 * k`` (an even number: a pair's half, fitting or measuring, stays the same)."""
    pool: list[PoolMatch] = []
    for k, folder in enumerate(folders):
        pool += _load_folder(folder, 100_000 * k)
    return pool


def _load_folder(folder: Path, offset: int) -> list[PoolMatch]:
    pool: list[PoolMatch] = []
    for name in PAIRS:
        path = folder / f"{name}.db"
        if not path.exists():
            continue
        with Store.open_existing(path, read_only=True) as store:
            info = store.tournament_info()
            rules = RuleSet.from_dict(info.rules)
            first = store.bots(info.name)[0].name
            for m in store.matches(info.name):
                if not m.done or m.winner_seat is None:
                    continue
                deals = []
                for d in store.deals(m.match_id):
                    assert d.dealer is not None
                    deck = parse_cards(d.deck)
                    f0, f1 = deal_seat_features(rules, deck, d.dealer)
                    draws = deal_draw_features(rules, deck, d.dealer, [parse_seat_action(a) for a in d.actions])
                    deals.append(([a - b for a, b in zip(f0, f1, strict=True)] + draws, 1 - d.dealer, d.winner,
                                  d.game_points or 0))
                seat = 0 if m.seat0 == first else 1
                pool.append(PoolMatch(name, offset + m.spec.pair_index, seat, 1.0 if m.winner_seat == seat else 0.0,
                                      deals, rules))
    return pool


def solve(xtx: list[list[float]], xty: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the normal equations are small)."""
    n = len(xty)
    a = [row[:] + [xty[i]] for i, row in enumerate(xtx)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c and a[c][c]:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def fit(pool: list[PoolMatch]) -> None:
    train = [m for m in pool if m.pair_index % 2 == 0]
    k = len(FEATURES) + 2 * len(DRAW_FEATURES)
    xtx = [[0.0] * (k + 1) for _ in range(k + 1)]
    xty = [0.0] * (k + 1)
    points = [0, 0, 0]
    deals = 0
    for m in train:
        for xs, leader, winner, gp in m.deals:
            if winner is None:
                continue
            x = xs + [1.0 if leader == 0 else -1.0]
            y = float(gp if winner == 0 else -gp)
            for i in range(k + 1):
                xty[i] += x[i] * y
                for j in range(k + 1):
                    xtx[i][j] += x[i] * x[j]
            points[min(gp, 3) - 1] += 1
            deals += 1
    for i in range(k + 1):
        xtx[i][i] += 1e-6 * deals  # a whisper of ridge: a feature no deal varies gets weight 0
    w = solve(xtx, xty)
    weights = tuple(round(v, 4) for v in w[:k])
    sse = sst = 0.0
    for m in train:
        for xs, leader, winner, gp in m.deals:
            if winner is not None:
                x = xs + [1.0 if leader == 0 else -1.0]
                y = float(gp if winner == 0 else -gp)
                sse += (y - sum(a * b for a, b in zip(w, x, strict=True))) ** 2
                sst += y * y
    print(f"# fitted on {len(train)} matches, {deals} deals; leader's edge {w[k]:+.3f} game points a deal; "
          f"R^2 of the deal's game points {1 - sse / sst:.3f}")
    print("WEIGHTS: tuple[float, ...] = (")
    for name, v in zip(FEATURES, weights[:len(FEATURES)], strict=True):
        print(f"    {v:+.4f},  # {name}")
    print(")")
    print("DRAW_WEIGHTS: tuple[float, ...] = (")
    for role, part in (("winner", weights[len(FEATURES):len(FEATURES) + len(DRAW_FEATURES)]),
                       ("loser", weights[len(FEATURES) + len(DRAW_FEATURES):])):
        for name, v in zip(DRAW_FEATURES, part, strict=True):
            print(f"    {v:+.4f},  # the trick's {role}: {name}")
    print(")")
    shares = tuple(round(p / max(deals, 1), 3) for p in points)
    print(f"GAME_POINT_SHARES = {shares}")
    for leveraged in (False, True):
        xs = [m.luck(weights, leveraged) for m in train]
        ys = [m.score for m in train]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
        var = sum((x - mx) ** 2 for x in xs)
        vy = sum((y - my) ** 2 for y in ys)
        print(f"BETA = {cov / var:.4f}  # leveraged={leveraged}: R^2 of the match score {cov * cov / var / vy:.3f}"
              " (beta and leverage use the shares above only once pasted)")


def variance(xs: list[float]) -> float:
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)


def measure(pool: list[PoolMatch], reps: int, seed: int, held_out_only: bool = True) -> None:
    """Per bot pair, on the held-out half: the per-match variance of the score, raw and adjusted, alone and by
    duplicate pair (a pair's mean counts as two matches); and the mean length of an SPRT resampled from it.

    The SPRT is H0: elo - 40 against H1: elo, where elo is the pair's raw score in the held-out matches as an
    Elo difference (so H1 is the truth of the resampled pool); the adjusted scores are shifted by a constant
    to that same mean, so the raw and the adjusted tests face the same truth and differ only in noise."""
    test = [m for m in pool if m.pair_index % 2 == 1 or not held_out_only]
    print(f"held-out matches: {len(test)}; weights: arena.game.luck.WEIGHTS and DRAW_WEIGHTS, beta {BETA}; "
          f"{reps} SPRT runs each")
    print("| bot pair | matches | score | var raw | var adjusted | var paired | var adjusted paired | "
          "SPRT H0/H1 | unpaired | paired | adjusted unpaired | adjusted paired | unpaired/paired | "
          "paired/adjusted paired | H1 verdicts |")
    print("|" + "---|" * 15)
    for name in PAIRS:
        ms = [m for m in test if m.pair == name]
        if not ms:
            continue
        units: dict[int, list[PoolMatch]] = {}
        for m in ms:
            units.setdefault(m.pair_index, []).append(m)
        pairs = [u for u in units.values() if len(u) == 2]
        adjusted = {id(m): m.score - BETA * m.luck(WEIGHTS + DRAW_WEIGHTS) for m in ms}
        raw = [m.score for m in ms]
        adj = [adjusted[id(m)] for m in ms]
        praw = [(u[0].score + u[1].score) / 2 for u in pairs]
        padj = [(adjusted[id(u[0])] + adjusted[id(u[1])]) / 2 for u in pairs]
        v = (variance(raw), variance(adj), 2 * variance(praw), 2 * variance(padj))
        score = sum(raw) / len(raw)
        row = (f"| {name} | {len(ms)} | {score:.3f} | {v[0]:.4f} | {v[1]:.4f} | {v[2]:.4f} | {v[3]:.4f} | ")
        if not 0 < score < 1:
            print(row + "– | – | – | – | – | – | – | – |")
            continue
        elo = round(-400 * math.log10(1 / score - 1))
        elo0, elo1 = float(elo - 40), float(elo)
        shift = score - sum(adj) / len(adj)
        pshift = sum(praw) / len(praw) - sum(padj) / len(padj)
        by_seat = [[m for m in ms if m.candidate_seat == s] for s in (0, 1)]
        # one unit's score, drawn at random from the pool (unpaired: the seats alternate, as scheduled)
        pools: dict[str, tuple[list[list[float]], float]] = {
            "unpaired": ([[m.score for m in by_seat[0]], [m.score for m in by_seat[1]]], 0.0),
            "paired": ([praw, praw], 0.0),
            "adj-unpaired": ([[adjusted[id(m)] for m in by_seat[0]], [adjusted[id(m)] for m in by_seat[1]]], shift),
            "adj-paired": ([padj, padj], pshift),
        }
        lengths: dict[str, list[int]] = {k: [] for k in pools}
        h1 = dict.fromkeys(pools, 0)
        # a stream of draws of its own for each test: a change to one test moves no other test's figures
        rngs = {key: random.Random(f"{seed}/{name}/{key}") for key in pools}
        for _ in range(reps):
            for key, (seats, offset) in pools.items():
                sprt = (Sprt(elo0, elo1) if key == "unpaired" else PairSprt(elo0, elo1) if key == "paired"
                        else MeanSprt(elo0, elo1, per_unit=2 if key == "adj-paired" else 1))
                while sprt.verdict is None and sprt.matches < 50_000:
                    units_ = seats[sprt.matches % 2]
                    sprt.update(units_[rngs[key].randrange(len(units_))] + offset)
                lengths[key].append(sprt.matches)
                h1[key] += sprt.verdict == "H1"
        mean = {k: sum(x) / len(x) for k, x in lengths.items()}
        print(row + f"{elo0:+g}/{elo1:+g} | {mean['unpaired']:.0f} | {mean['paired']:.0f} | "
              f"{mean['adj-unpaired']:.0f} | {mean['adj-paired']:.0f} | {mean['unpaired'] / mean['paired']:.2f} | "
              f"{mean['paired'] / mean['adj-paired']:.2f} | "
              + " ".join(f"{100 * h1[k] / reps:.0f}%" for k in pools) + " |", flush=True)


def time_adjustment(matches: int) -> None:
    """The adjustment's cost for a tournament of ``matches`` matches: Store.match_luck over a synthetic
    database like bench/report_bench.py's (the report's render time for the same database is its figure)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import tempfile

    from test_report import synthetic_db

    out = Path(tempfile.gettempdir()) / "arena-report-bench"
    out.mkdir(parents=True, exist_ok=True)
    db = out / f"arena-20x{matches}.db"
    if not db.exists():
        synthetic_db(db, n_bots=20, n_matches=matches, pool_size=60, flaky="bot19", seed=1).close()
    with Store.open_existing(db, read_only=True) as store:
        name = store.tournament_info().name
        t0 = time.perf_counter()
        lucks = store.match_luck(name)
        t1 = time.perf_counter()
        store.match_luck(name)  # again, as the live index asks: only new matches are computed
        t2 = time.perf_counter()
    print(f"Store.match_luck: {len(lucks)} matches in {t1 - t0:.2f} s ({1e3 * (t1 - t0) / max(len(lucks), 1):.3f} ms "
          f"a match), again {t2 - t1:.2f} s; compare bench/report_bench.py --matches {matches}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["fit", "measure", "time"])
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--matches", type=int, default=20_000)
    p.add_argument("--pool", type=Path, nargs="+", help="measure every pair of the pools in these folders (the fit "
                   "never saw them)")
    args = p.parse_args()
    if args.what == "time":
        time_adjustment(args.matches)
        return 0
    pool = load_pool(args.pool or [OUT])
    if args.what == "fit":
        fit(pool)
    else:
        measure(pool, args.reps, args.seed, held_out_only=args.pool is None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
