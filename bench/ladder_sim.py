"""A simulated ladder: how fast a new bot is placed, how the pairs are spent, and how well the ladder's
ratings predict (issues 26 and 34).

    .venv/bin/python bench/ladder_sim.py [--seeds 24] [--bots 30] [--spread 800] [--established 200]
                                         [--horizon 3000] [--stay 1000] [--window 2] [--skip-trueskill]
                                         [--only weak|placement|prediction]

Bots have known strengths (Elo drawn uniformly from 0..spread, per seed); a duplicate pair is two matches,
each won by ``first`` with the Bradley-Terry probability of the true difference (draw-free, independent).
A ladder runs as `arena ladder run` does, ``--window`` W pairs in flight: pair k is chosen from the results
of pairs 0 .. k - W, under one of two rules (RULES): issue 34's (today's: the pairs in flight count, no
back-to-back repeat, a settled version's fair share) and the one before it (the pairs in flight unseen).

0. **Issue 34's weak upload**: twelve reference bots play 150 pairs, then an upload far weaker than all
   enters and 88 more are played: its pairs (and those after its rank was settled), back-to-back repeats,
   and the pairs settled versions took beyond their share (:func:`spending`).
1. **Placement**: a ladder of ``--bots`` bots plays ``--established`` pairs per bot under the rule before
   issue 34; then a new bot enters, and the same ladder goes on under each rule and under random pairing
   (two distinct bots, uniformly). Placed: the first ladder pair after which
   the new bot's rank interval contains its true rank and lies within ±1 of it (also ±2, ±3, and no wider
   than the established bots' median) and stays so for ``--stay`` more ladder pairs. Medians over seeds, in
   ladder pairs and in the new bot's own pairs; a seed not placed by ``--horizon`` (four times that under
   random pairing, whose new bot plays one pair in fifteen) counts as the horizon (and is counted). Also
   how the first ``--stay`` pairs after it entered were spent.
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
    settled,
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


#: The matchmaking rules measured: today's (before issue 34: every pairing open, the pairs in flight
#: unseen) and issue 34's (the pairs in flight count, no back-to-back repeat, a settled version's fair share).
RULES = ("before issue 34", "issue 34")


class Run:
    """A ladder played as `arena ladder run` plays it: pair k is chosen from the results of pairs 0 .. k - W
    (W pairs in flight) by ``rule`` (one of RULES, or "random": two distinct bots, uniformly). Records each
    pair's pairing and the versions settled (rank interval one rank wide) as the chooser saw them."""

    def __init__(self, ladder: Ladder, rule: str, window: int) -> None:
        self.ladder, self.rule, self.window = ladder, rule, window
        self.pairings: list[tuple[str, str]] = []
        self.scores: list[float] = []
        self.settled: list[set[str]] = []
        self.applied = 0

    def copy(self, rule: str | None = None) -> Run:
        other = Run(self.ladder.copy(), rule or self.rule, self.window)
        other.pairings, other.scores, other.settled = list(self.pairings), list(self.scores), list(self.settled)
        other.applied = self.applied
        return other

    def step(self, rng: random.Random, truth: dict[str, float]) -> tuple[str, str]:
        """Choose, play and record the next pair (its result applied W - 1 pairs later)."""
        k = len(self.pairings)
        while self.applied <= k - self.window:
            self.ladder.play(*self.pairings[self.applied], self.scores[self.applied])
            self.applied += 1
        lad = self.ladder
        active = [e.key for e in lad.entrants if e.active]
        self.settled.append(settled(lad.state, active))
        pick: tuple[str, str] | None
        if self.rule == "random":
            pick = (lambda a, b: (a, b))(*rng.sample(active, 2))
        elif self.rule == "issue 34":
            recent = self.pairings[-(len(active) + self.window):]
            pick = choose_pair(lad.entrants, lad.state, lad.played, rng, recent=recent,
                               in_flight=min(self.window - 1, k))
        else:
            pick = choose_pair(lad.entrants, lad.state, lad.played, rng)
        assert pick is not None
        self.pairings.append(pick)
        self.scores.append(pair_score(rng, truth[pick[0]], truth[pick[1]]))
        return pick

    def view(self) -> dict[str, Belief]:
        """The beliefs the chooser sees now (the results of all but the last W - 1 pairs)."""
        return self.ladder.state


def spending(run: Run, start: int, stop: int) -> dict[str, float]:
    """Over pairs start .. stop - 1 of ``run``: back-to-back repeats, and the pairs settled versions took.

    "settled slots": the seats (two a pair) taken by a version settled when its pair was chosen, in % of
    all seats; "over share": the pairs a settled version played beyond its fair share, 2/N of the pairs
    chosen while it was settled, summed over versions; "max settled share": the largest share of those
    pairs one version took (of versions settled for at least N pairs), in units of 2/N."""
    pairings, marks = run.pairings[start:stop], run.settled[start:stop]
    n = len([e for e in run.ladder.entrants if e.active])
    repeats = sum(frozenset(a) == frozenset(b) for a, b in zip(pairings, pairings[1:], strict=False))
    slots = sum(key in mark for pair, mark in zip(pairings, marks, strict=True) for key in pair)
    while_settled: Counter[str] = Counter()
    played_settled: Counter[str] = Counter()
    for pair, mark in zip(pairings, marks, strict=True):
        for key in mark:
            while_settled[key] += 1
            played_settled[key] += key in pair
    over = sum(max(0.0, played_settled[k] - 2 / n * while_settled[k]) for k in while_settled)
    shares = [played_settled[k] / while_settled[k] / (2 / n) for k in while_settled if while_settled[k] >= n]
    return {"repeats": repeats, "settled slots %": 100 * slots / (2 * len(pairings)), "over share": over,
            "max settled share": max(shares, default=0.0)}


def placement(seed: int, bots: int, spread: float, established: int, horizon: int, stay: int, window: int,
              ) -> dict[str, dict[str, list]]:
    """For each rule: per window, the ladder pairs and the new bot's own pairs until it was placed; and how
    the first ``stay`` pairs after it entered were spent (:func:`spending`)."""
    rng = random.Random(seed)
    truth = {f"b{i:02d}": rng.uniform(0.0, spread) for i in range(bots)}
    new = "new"
    truth_new = rng.uniform(0.0, spread)
    out: dict[str, dict[str, list]] = {}
    first = Run(Ladder([Entrant(key, key, True) for key in truth]), RULES[0], window)
    play_rng = random.Random(seed * 1009 + 1)
    for _ in range(established * bots // 2):
        first.step(play_rng, truth)
    whole = first.ladder.copy()  # today's established ladder with every result, beside the joint fit
    for n in range(first.applied, len(first.pairings)):
        whole.play(*first.pairings[n], first.scores[n])
    matches = []
    for n, ((a, b), score) in enumerate(zip(first.pairings, first.scores, strict=True)):
        matches += [Result(a, b, float(score >= 1), f"p{n}"), Result(b, a, float(score < 2), f"p{n}")]
    established_figures = _against_joint_fit(whole, truth, matches)
    truth[new] = truth_new
    rank = true_rank(new, truth)
    for name, limit in ((RULES[0], horizon), (RULES[1], horizon), ("random", 4 * horizon)):
        run = first.copy(name)  # each rule goes on from the same established ladder
        run.ladder.enter(Entrant(new, new, True))
        active = [e.key for e in run.ladder.entrants]
        widths = []
        for key in active[:-1]:
            _, low, high = rank_interval(key, run.view(), active[:-1])
            widths.append(high - low)
        rest = statistics.median(widths)
        begin = len(run.pairings)
        run_rng = random.Random(seed * 1009 + 2)
        own = [0]  # the new bot's own pairs after each ladder pair
        right_since: dict[int, int | None] = dict.fromkeys(WINDOWS)  # the start of the current right run
        placed: dict[int, int] = {}
        cleared = -1  # the new bot's own pairs when it stopped being provisional
        at_budget = -1  # how far its rank interval reached from its true rank after BUDGET own pairs
        for step in range(1, limit + stay + 1):
            first_key, second_key = run.step(run_rng, truth)
            own.append(own[-1] + (new in (first_key, second_key)))
            view = run.view()
            if cleared < 0 and view[new].half_width < PROVISIONAL_HALF_WIDTH:
                cleared = own[-1]
            _, low, high = rank_interval(new, view, active)
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
        out[name] |= {f"spent {k}": [v] for k, v in spending(run, begin, begin + stay).items()}
    out["established"] = established_figures
    return out


#: Issue 34's ladder: 12 reference bots (five random players of one strength, two greedy ones, five
#: ismcts of growing strength; true Elo roughly as bench/ladder_real.py measured them), then a weak upload.
REFERENCE = {**{f"random{i}": 0.0 for i in range(5)}, "greedy-c": 200.0, "greedy-py": 210.0,
             **{f"ismcts{i}": 350.0 + 100.0 * i for i in range(5)}}
WEAK = -600.0  # loses a pair 0-2 to a random player 94% of the time (the upload: 41 of 44)


def weak_upload(seed: int, rule: str, window: int, before: int = 150, after: int = 88) -> dict[str, float]:
    """Issue 34's case: the reference bots play ``before`` pairs, the weak upload enters, ``after`` more.
    Its pairs among those, how many came once its rank interval was one rank wide (as the chooser saw it)
    and how many it lost 0-2; the pairs until it was first placed (its interval [13, 13]) and until it was
    placed for good (so to the end); back-to-back repeats over all the pairs (of 237); and
    :func:`spending` over the pairs after it entered."""
    truth = dict(REFERENCE)
    rng = random.Random(seed)
    run = Run(Ladder([Entrant(key, key, True) for key in truth]), rule, window)
    for _ in range(before):
        run.step(rng, truth)
    truth["weak"] = WEAK
    run.ladder.enter(Entrant("weak", "weak", True))
    active = [e.key for e in run.ladder.entrants]
    mine = after_settled = lost = 0
    placed_at = first_placed = None
    for step in range(1, after + 1):
        pair = run.step(rng, truth)
        if "weak" in pair:
            mine += 1
            after_settled += "weak" in run.settled[-1]
            lost += run.scores[-1] == (2.0 if pair[1] == "weak" else 0.0)
        _, low, high = rank_interval("weak", run.view(), active)
        if low == high == len(active):
            placed_at = placed_at or step
            first_placed = first_placed or step
        else:
            placed_at = None
    repeats = sum(frozenset(a) == frozenset(b) for a, b in zip(run.pairings, run.pairings[1:], strict=False))
    spent = spending(run, before, before + after)
    del spent["repeats"]
    return {"weak's pairs": mine, "of them once settled": after_settled, "lost 0-2": lost,
            "pairs until first placed": first_placed or after + 1,
            "pairs until placed for good": placed_at or after + 1, "repeats": repeats} | spent


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
    parser.add_argument("--window", type=int, default=2, help="pairs in flight (arena ladder init --pairs-in-flight)")
    parser.add_argument("--only", choices=("weak", "placement", "prediction"), help="run one part only")
    args = parser.parse_args()
    if not args.skip_trueskill:
        try:
            import trueskill  # noqa: F401
        except ImportError:
            print("note: trueskill is not installed (pip install -e '.[bench]'); its column is left out\n")
            args.skip_trueskill = True
    started = time.perf_counter()

    if args.only in (None, "weak"):
        print(f"## Issue 34: a weak upload joins 12 reference bots, {args.window} pairs in flight, "
              f"{args.seeds} seeds (medians; mean in brackets)\n")
        weak: dict[str, dict[str, list[float]]] = {}
        for rule in RULES:
            for seed in range(args.seeds):
                for name, value in weak_upload(seed, rule, args.window).items():
                    weak.setdefault(rule, {}).setdefault(name, []).append(value)
        names = list(weak[RULES[0]])
        print("| rule | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for rule, figures in weak.items():
            print(f"| {rule} | " + " | ".join(f"{statistics.median(figures[n]):.3g} "
                                              f"({statistics.fmean(figures[n]):.3g})" for n in names) + " |")
        print()
    if args.only in (None, "placement"):
        print(f"## Placement: {args.bots} bots (true Elo 0..{args.spread:.0f}), {args.established} pairs per bot "
              f"established, {args.window} pairs in flight, placed by ladder pair {args.horizon} (random: "
              f"{4 * args.horizon}) and right for {args.stay} more, {args.seeds} seeds (medians; mean in brackets)\n")
        merged: dict[str, dict[str, list]] = {}
        for seed in range(args.seeds):
            for policy, figures in placement(seed, args.bots, args.spread, args.established, args.horizon,
                                             args.stay, args.window).items():
                for name, values in figures.items():
                    merged.setdefault(policy, {}).setdefault(name, []).extend(values)
        skip = ("placed", "established", "own pairs", "reach", "spent")
        names = [n for n in merged[RULES[0]] if not n.startswith(skip)]
        print("| | " + " | ".join(names) + " | placed " + "/".join(_label(w) for w in WINDOWS) + " |")
        print("|---" * (len(names) + 2) + "|")
        established = merged.pop("established")
        for policy, figures in merged.items():
            cells = [f"{statistics.median(figures[n]):.0f} ({statistics.fmean(figures[n]):.0f})" for n in names]
            placed = "/".join(str(sum(figures[f"placed {_label(w)}"])) for w in WINDOWS)
            print(f"| {policy} | " + " | ".join(cells) + f" | {placed} of {args.seeds} |")
        spent = [n for n in merged[RULES[0]] if n.startswith("spent")]
        print(f"\nthe first {args.stay} pairs after the new bot entered (medians; mean in brackets):\n")
        print("| | " + " | ".join(n.removeprefix("spent ") for n in spent) + " |")
        print("|---" * (len(spent) + 1) + "|")
        for policy, figures in merged.items():
            print(f"| {policy} | " + " | ".join(f"{statistics.median(figures[n]):.3g} "
                                                f"({statistics.fmean(figures[n]):.3g})" for n in spent) + " |")
        for rule in RULES:
            ratio = [statistics.median(merged["random"][f"ladder {_label(w)}"]) / max(1, statistics.median(
                merged[rule][f"ladder {_label(w)}"])) for w in WINDOWS]
            print(f"\nrandom / {rule}, ladder pairs (medians): " + ", ".join(
                f"{_label(w)}: {r:.1f}×" for w, r in zip(WINDOWS, ratio, strict=True)))
        widths = merged[RULES[0]]["established rank interval width"]
        print(f"established bots' rank interval width (high - low) when the new bot enters: median "
              f"{statistics.median(widths):.0f}, range {min(widths)}..{max(widths)}")
        for policy, figures in merged.items():
            clear = figures["own pairs until not provisional"]
            print(f"{policy}: the new bot's own pairs until not provisional: median "
                  f"{statistics.median(clear):.0f}, range {min(clear)}..{max(clear)} (-1: never)")
            reach = sorted(figures["reach after budget"])
            print(f"{policy}: after {BUDGET} own pairs the new bot's rank interval reaches ±k of its true rank, "
                  f"k = {reach} (99: misses it; -1: never played {BUDGET})")
        print(f"established ladder ({args.established} pairs per bot under the rule {RULES[0]!r}), mean over "
              "seeds: " + "; ".join(f"{name} {statistics.fmean(values):.3g}" for name, values in established.items()))
    if args.only not in (None, "prediction"):
        print(f"\n({time.perf_counter() - started:.0f} s)")
        return

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
