"""A simulated ladder: how fast a new bot is placed, and how well the ladder's ratings predict (issue 26).

    .venv/bin/python bench/ladder_sim.py [--seeds 24] [--bots 30] [--spread 800] [--established 200]
                                         [--horizon 3000] [--stay 1000] [--skip-trueskill]

Bots have known strengths (Elo drawn uniformly from 0..spread, per seed); a duplicate pair is two matches,
each won by ``first`` with the Bradley-Terry probability of the true difference (draw-free, independent).

1. **Placement**: a ladder of ``--bots`` bots plays ``--established`` pairs per bot with the matchmaking
   rule (arena.stats.ladder.next_pair); then a new bot enters, and the ladder goes on, once with the rule
   and once with random pairing (two distinct bots, uniformly). Placed: the first ladder pair after which
   the new bot's rank interval contains its true rank and lies within ±1 of it (also ±2, ±3, and no wider
   than the established bots' median) and stays so for ``--stay`` more ladder pairs. Medians over seeds, in
   ladder pairs and in the new bot's own pairs; a seed not placed by ``--horizon`` (four times that under
   random pairing, whose new bot plays one pair in fifteen) counts as the horizon (and is counted).
2. **Prediction**: the same bots play pairs chosen at random; the ladder's ratings after the first 80%,
   arena.stats.ratings' joint fit of them, and TrueSkill (``pip install 'arena[bench]'``) predict each match
   of the last 20%: log loss and Brier score per match, beside the true model's. Also the ladder ratings'
   distance to the joint fit and to the truth (RMS over bots, each centred), and how often a bot's true
   rating lies in its 95% interval and its true rank in its rank interval.
Figures, never pass/fail: docs/STATISTICS.md ("Ladder") and docs/PERFORMANCE.md quote them.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.stats import Result, ratings  # noqa: E402
from arena.stats.ladder import (  # noqa: E402
    ELO_PER_NAT,
    PROVISIONAL_HALF_WIDTH,
    Belief,
    Entrant,
    LadderState,
    PairResult,
    choose_pair,
    rank_interval,
)
from arena.stats.ratings import expected_score  # noqa: E402

#: Placed within ±w ranks, for these w; 0 stands for "as well as the established bots": a rank interval no
#: wider than theirs (their median width when the new bot entered).
WINDOWS = (1, 2, 3, 0)


#: The issue's placement budget: a new bot within ±1 rank after this many of its own pairs.
BUDGET = 40


def _label(w: int) -> str:
    return f"±{w}" if w else "as the rest"


def pair_score(rng: random.Random, elo_first: float, elo_second: float) -> float:
    """Two independent draw-free matches at the true Bradley-Terry probability."""
    p = expected_score(elo_first - elo_second)
    return float((rng.random() < p) + (rng.random() < p))


def true_rank(key: str, truth: dict[str, float]) -> int:
    return 1 + sum(1 for other, elo in truth.items() if other != key and elo > truth[key])


class Ladder:
    """The ladder as the bench carries it: its entrants and its state, kept as pairs are applied."""

    def __init__(self, entrants: list[Entrant]) -> None:
        self.entrants = entrants
        self.run = LadderState(e.key for e in entrants)

    @property
    def state(self) -> dict[str, Belief]:
        return self.run.beliefs

    @property
    def played(self) -> Counter[frozenset[str]]:
        return self.run.played

    def enter(self, entrant: Entrant) -> None:
        self.entrants = [*self.entrants, entrant]
        self.run.add(entrant.key)

    def play(self, first: str, second: str, score: float) -> None:
        self.run.apply(PairResult(first, second, score))

    def copy(self) -> Ladder:
        other = Ladder(list(self.entrants))
        other.run = self.run.copy()
        return other


Policy = Callable[[Ladder, random.Random], tuple[str, str]]


def matchmaking(ladder: Ladder, rng: random.Random) -> tuple[str, str]:
    pair = choose_pair(ladder.entrants, ladder.state, ladder.played, rng)
    assert pair is not None
    return pair


def random_pairing(ladder: Ladder, rng: random.Random) -> tuple[str, str]:
    first, second = rng.sample([e.key for e in ladder.entrants], 2)
    return first, second


def placement(seed: int, bots: int, spread: float, established: int, horizon: int, stay: int,
              ) -> dict[str, dict[str, list]]:
    """For each policy: per window, the ladder pairs and the new bot's own pairs until it was placed."""
    rng = random.Random(seed)
    truth = {f"b{i:02d}": rng.uniform(0.0, spread) for i in range(bots)}
    ladder = Ladder([Entrant(key, key, True) for key in truth])
    play_rng = random.Random(seed * 1009 + 1)
    matches = []
    for n in range(established * bots // 2):
        first, second = matchmaking(ladder, play_rng)
        score = pair_score(play_rng, truth[first], truth[second])
        ladder.play(first, second, score)
        matches += [Result(first, second, float(score >= 1), f"p{n}"), Result(second, first, float(score < 2), f"p{n}")]
    established_figures = _against_joint_fit(ladder, truth, matches)
    new = "new"
    truth[new] = rng.uniform(0.0, spread)
    ladder.enter(Entrant(new, new, True))
    rank = true_rank(new, truth)
    active = [e.key for e in ladder.entrants]
    widths = []
    for key in active[:-1]:
        _, low, high = rank_interval(key, ladder.state, active[:-1])
        widths.append(high - low)
    rest = statistics.median(widths)
    out: dict[str, dict[str, list]] = {}
    for name, policy, limit in (("matchmaking", matchmaking, horizon), ("random", random_pairing, 4 * horizon)):
        run = ladder.copy()
        run_rng = random.Random(seed * 1009 + 2)
        own = [0]  # the new bot's own pairs after each ladder pair
        right_since: dict[int, int | None] = dict.fromkeys(WINDOWS)  # the start of the current right run
        placed: dict[int, int] = {}
        cleared = -1  # the new bot's own pairs when it stopped being provisional
        at_budget = -1  # how far its rank interval reached from its true rank after BUDGET own pairs
        for step in range(1, limit + stay + 1):
            first, second = policy(run, run_rng)
            run.play(first, second, pair_score(run_rng, truth[first], truth[second]))
            own.append(own[-1] + (new in (first, second)))
            if cleared < 0 and run.state[new].half_width < PROVISIONAL_HALF_WIDTH:
                cleared = own[-1]
            _, low, high = rank_interval(new, run.state, active)
            if own[-1] == BUDGET and at_budget < 0:
                at_budget = max(rank - low, high - rank) if low <= rank <= high else 99
            for w in WINDOWS:
                narrow = (rank - w <= low and high <= rank + w) if w else high - low <= rest
                if not (low <= rank <= high and narrow):
                    right_since[w] = None
                    continue
                start = right_since[w] = right_since[w] or step
                if w not in placed and step - start >= stay and start <= limit:
                    placed[w] = start
            if len(placed) == len(WINDOWS) and cleared >= 0 and at_budget >= 0:
                break
        out[name] = {f"ladder {_label(w)}": [placed.get(w, limit)] for w in WINDOWS}
        out[name] |= {f"own {_label(w)}": [own[placed[w]] if w in placed else own[-1]] for w in WINDOWS}
        out[name] |= {f"placed {_label(w)}": [int(w in placed)] for w in WINDOWS}
        out[name]["established rank interval width"] = [int(rest)]
        out[name]["own pairs until not provisional"] = [cleared]
        out[name]["reach after budget"] = [at_budget]
    out["established"] = established_figures
    return out


def _centred(values: dict[str, float]) -> dict[str, float]:
    mean = statistics.fmean(values.values())
    return {k: v - mean for k, v in values.items()}


def _rms(a: dict[str, float], b: dict[str, float]) -> float:
    return math.sqrt(statistics.fmean((a[k] - b[k]) ** 2 for k in a))


def _against_joint_fit(ladder: Ladder, truth: dict[str, float], matches: list[Result]) -> dict[str, list[float]]:
    """The established ladder's ratings beside arena.stats.ratings' joint fit of the same pairs, and the truth."""
    joint = _centred({r.bot: r.elo for r in ratings(matches, bootstrap=0).table})
    lad = _centred({k: b.elo for k, b in ladder.state.items()})
    tru = _centred(truth)
    return {
        "ladder vs joint fit RMS": [_rms(lad, joint)],
        "ladder vs truth RMS": [_rms(lad, tru)],
        "joint fit vs truth RMS": [_rms(joint, tru)],
        "true rating in 95% interval": [statistics.fmean(abs(lad[k] - tru[k]) <= ladder.state[k].half_width
                                                         for k in tru)],
    }


def _log_loss(p: float, won: bool) -> float:
    p = min(max(p, 1e-12), 1.0 - 1e-12)
    return -math.log(p if won else 1.0 - p)


def prediction(seed: int, bots: int, spread: float, pairs_per_bot: int, use_trueskill: bool,
               ) -> dict[str, float]:
    rng = random.Random(seed + 500_000)
    truth = {f"b{i:02d}": rng.uniform(0.0, spread) for i in range(bots)}
    keys = list(truth)
    matches: list[tuple[str, str, bool, int]] = []  # first, second, first won, pair number
    for n in range(pairs_per_bot * bots // 2):
        first, second = rng.sample(keys, 2)
        p = expected_score(truth[first] - truth[second])
        matches += [(first, second, rng.random() < p, n), (second, first, rng.random() >= p, n)]
    cut = 2 * (len(matches) // 2 * 4 // 5 // 2)
    train, test = matches[:cut], matches[cut:]

    ladder = Ladder([Entrant(key, key, True) for key in keys])
    for i in range(0, len(train), 2):
        first, second, won, _ = train[i]
        ladder.play(first, second, float(won) + float(not train[i + 1][2]))
    joint = ratings([Result(f, s, float(w), f"p{n}") for f, s, w, n in train], bootstrap=0)
    joint_elo = {r.bot: r.elo for r in joint.table}

    def ladder_p(f: str, s: str) -> float:  # the belief's predictive probability (probit approximation)
        a, b = ladder.state[f], ladder.state[s]
        return 1.0 / (1.0 + math.exp(-(a.mean - b.mean) / math.sqrt(1.0 + math.pi * (a.variance + b.variance) / 8)))

    predictors: dict[str, Callable[[str, str], float]] = {
        "true model": lambda f, s: expected_score(truth[f] - truth[s]),
        "ladder": ladder_p,
        "joint fit (arena.stats.ratings)": lambda f, s: expected_score(joint_elo[f] - joint_elo[s]),
    }
    if use_trueskill:
        import trueskill  # the bench's optional dependency, checked in main()

        env = trueskill.TrueSkill(draw_probability=0.0)
        ts = {key: env.create_rating() for key in keys}
        for first, second, won, _ in train:
            winner, loser = (first, second) if won else (second, first)
            ts[winner], ts[loser] = env.rate_1vs1(ts[winner], ts[loser])

        def ts_p(f: str, s: str) -> float:
            a, b = ts[f], ts[s]
            return env.cdf((a.mu - b.mu) / math.sqrt(2 * env.beta ** 2 + a.sigma ** 2 + b.sigma ** 2))

        predictors["TrueSkill"] = ts_p
    out: dict[str, float] = {}
    for name, predict in predictors.items():
        out[f"{name} log loss"] = statistics.fmean(_log_loss(predict(f, s), w) for f, s, w, _ in test)
        out[f"{name} Brier"] = statistics.fmean((predict(f, s) - w) ** 2 for f, s, w, _ in test)

    lad, tru, jnt = _centred({k: b.elo for k, b in ladder.state.items()}), _centred(truth), _centred(joint_elo)
    out["ladder vs joint fit RMS"] = _rms(lad, jnt)
    out["ladder vs truth RMS"] = _rms(lad, tru)
    out["joint fit vs truth RMS"] = _rms(jnt, tru)
    out["true rating in 95% interval"] = statistics.fmean(
        abs(lad[k] - tru[k]) <= ladder.state[k].half_width for k in keys)
    covered = 0
    for k in keys:
        _, low, high = rank_interval(k, ladder.state, keys)
        covered += low <= true_rank(k, truth) <= high
    out["true rank in rank interval"] = covered / len(keys)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--spread", type=float, default=800.0, help="true Elo drawn from 0..SPREAD")
    parser.add_argument("--established", type=int, default=200, help="pairs per bot before the new one enters")
    parser.add_argument("--horizon", type=int, default=3000,
                        help="the last ladder pair at which the new bot may be placed (4× under random pairing)")
    parser.add_argument("--stay", type=int, default=1000, help="ladder pairs it must then stay placed")
    parser.add_argument("--train-pairs", type=int, default=25, help="pairs per bot in the prediction data")
    parser.add_argument("--skip-trueskill", action="store_true")
    args = parser.parse_args()
    if not args.skip_trueskill:
        try:
            import trueskill  # noqa: F401
        except ImportError:
            print("note: trueskill is not installed (pip install -e '.[bench]'); its column is left out\n")
            args.skip_trueskill = True
    started = time.perf_counter()

    print(f"## Placement: {args.bots} bots (true Elo 0..{args.spread:.0f}), {args.established} pairs per bot "
          f"established, placed by ladder pair {args.horizon} (random: {4 * args.horizon}) and right for "
          f"{args.stay} more, {args.seeds} seeds (medians; mean in brackets)\n")
    merged: dict[str, dict[str, list]] = {}
    for seed in range(args.seeds):
        for policy, figures in placement(seed, args.bots, args.spread, args.established, args.horizon,
                                           args.stay).items():
            for name, values in figures.items():
                merged.setdefault(policy, {}).setdefault(name, []).extend(values)
    names = [n for n in merged["matchmaking"] if not n.startswith(("placed", "established", "own pairs", "reach"))]
    print("| | " + " | ".join(names) + " | placed " + "/".join(_label(w) for w in WINDOWS) + " |")
    print("|---" * (len(names) + 2) + "|")
    established = merged.pop("established")
    for policy, figures in merged.items():
        cells = [f"{statistics.median(figures[n]):.0f} ({statistics.fmean(figures[n]):.0f})" for n in names]
        placed = "/".join(str(sum(figures[f"placed {_label(w)}"])) for w in WINDOWS)
        print(f"| {policy} | " + " | ".join(cells) + f" | {placed} of {args.seeds} |")
    ratio = [statistics.median(merged["random"][f"ladder {_label(w)}"]) / max(1, statistics.median(
        merged["matchmaking"][f"ladder {_label(w)}"])) for w in WINDOWS]
    print("\nrandom / matchmaking, ladder pairs (medians): " + ", ".join(
        f"{_label(w)}: {r:.1f}×" for w, r in zip(WINDOWS, ratio, strict=True)))
    widths = merged["matchmaking"]["established rank interval width"]
    print(f"established bots' rank interval width (high - low) when the new bot enters: median "
          f"{statistics.median(widths):.0f}, range {min(widths)}..{max(widths)}")
    for policy, figures in merged.items():
        clear = figures["own pairs until not provisional"]
        print(f"{policy}: the new bot's own pairs until not provisional: median {statistics.median(clear):.0f}, "
              f"range {min(clear)}..{max(clear)} (-1: never)")
        reach = sorted(figures["reach after budget"])
        print(f"{policy}: after {BUDGET} own pairs the new bot's rank interval reaches ±k of its true rank, k = "
              f"{reach} (99: misses it; -1: never played {BUDGET})")

    print(f"established ladder ({args.established} pairs per bot under the matchmaking), mean over seeds: " + "; ".join(
        f"{name} {statistics.fmean(values):.3g}" for name, values in established.items()))

    print(f"\n## Prediction: {args.bots} bots, {args.train_pairs} random pairs per bot, last 20% held back, "
          f"{args.seeds} seeds (mean per match)\n")
    rows: dict[str, list[float]] = {}
    for seed in range(args.seeds):
        for name, value in prediction(seed, args.bots, args.spread, args.train_pairs,
                                      not args.skip_trueskill).items():
            rows.setdefault(name, []).append(value)
    for name, values in rows.items():
        print(f"- {name}: {statistics.fmean(values):.4f}")
    print(f"\n({time.perf_counter() - started:.0f} s; ELO_PER_NAT {ELO_PER_NAT:.1f})")


if __name__ == "__main__":
    main()
