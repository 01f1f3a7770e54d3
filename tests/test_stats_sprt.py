"""The SPRT: bounds, LLR, verdicts, error rates on simulated matches, and parsing the CLI's arguments."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats import Sprt, expected_score, parse_sprt_args
from arena.stats.sprt import PairSprt, pair_llr


def test_bounds_and_llr():
    t = Sprt(0, 20, 0.05, 0.1)
    assert t.bounds == (math.log(0.1 / 0.95), math.log(0.9 / 0.05))
    p0, p1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert t.update(1.0) is None
    assert t.llr == pytest.approx(math.log(p1 / p0))
    t.update(0.0)
    assert t.llr == pytest.approx(math.log(p1 / p0) + math.log((1 - p1) / (1 - p0)))
    t.update(0.5)
    assert t.games == 3 and t.points == 1.5
    assert "continue" in str(t)


def test_verdicts_and_first_crossing_decides():
    t = Sprt(0, 50)
    while t.verdict is None:
        t.update(1.0)
    assert t.verdict == "H1" and t.llr >= t.upper
    for _ in range(200):
        assert t.update(0.0) == "H1"  # later matches move the LLR, not the verdict
    assert t.llr < t.lower
    t = Sprt(0, 50)
    while t.update(0.0) is None:
        pass
    assert t.verdict == "H0" and "H0 accepted" in str(t)


def run(test: Sprt, true_elo: float, rng: random.Random, limit: int = 100_000) -> str | None:
    p = expected_score(true_elo)
    for _ in range(limit):
        v = test.update(1.0 if rng.random() < p else 0.0)
        if v is not None:
            return v
    return None


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.1, 0.05)])
def test_error_rates_on_simulated_matches(alpha, beta):
    rng = random.Random(20240)
    runs = 300
    false_h1 = sum(run(Sprt(0, 30, alpha, beta), 0.0, rng) == "H1" for _ in range(runs))
    false_h0 = sum(run(Sprt(0, 30, alpha, beta), 30.0, rng) == "H0" for _ in range(runs))
    assert false_h1 / runs < 2 * alpha
    assert false_h0 / runs < 2 * beta
    # A clearly better bot is accepted nearly always, a clearly worse one rejected.
    assert sum(run(Sprt(0, 30, alpha, beta), 80.0, rng) == "H1" for _ in range(50)) >= 49
    assert sum(run(Sprt(0, 30, alpha, beta), -50.0, rng) == "H0" for _ in range(50)) == 50


def test_parse_forms():
    for args in (
        "elo0=0 elo1=20 alpha=0.05 beta=0.05",
        ["elo0=0", "elo1=20", "alpha=0.05", "beta=0.05"],
        ["elo0=0 elo1=20", "alpha=0.05", "beta=0.05"],
        "elo0 = 0, elo1=20,alpha=0.05 BETA=0.05",
        "elo1=20 elo0=0",
    ):
        t = parse_sprt_args(args)
        assert (t.elo0, t.elo1, t.alpha, t.beta) == (0, 20, 0.05, 0.05)
    assert parse_sprt_args("elo0=-5 elo1=5 alpha=0.01 beta=0.1").bounds == Sprt(-5, 5, 0.01, 0.1).bounds


@pytest.mark.parametrize(
    "args,message",
    [
        ("elo0=0 elo1=20 gamma=0.1", "unknown SPRT parameter 'gamma'"),
        ("elo0=0 elo1=abc", "'elo1' must be a number, got 'abc'"),
        ("elo0=0", "'elo1' is missing"),
        ("elo1=5", "'elo0' is missing"),
        ("elo0=0 elo1=20 elo0=1", "'elo0' given twice"),
        ("elo0=0 elo1=20 alpha=0.7", "'alpha' must be between 0 and 0.5"),
        ("elo0=0 elo1=20 beta=0", "'beta' must be between 0 and 0.5"),
        ("elo0=0 elo1=0", "'elo0' and 'elo1' must differ"),
        ("elo0=0 elo1=nan", "'elo1' must be finite"),
        ("elo0=0 elo1", "'elo1' is not key=value"),
        ("", "'elo0' is missing"),
    ],
)
def test_parse_errors_name_the_key(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        parse_sprt_args(args)


def test_constructor_checks():
    with pytest.raises(ValueError, match="differ"):
        Sprt(10, 10)
    with pytest.raises(ValueError, match="alpha"):
        Sprt(0, 10, alpha=0.0)
    with pytest.raises(ValueError, match="score"):
        Sprt(0, 10).update(2.0)


# ------------------------------------------------------------------------------------------ pairs


def duplicate_pair(rng: random.Random, skill: float, luck_sd: float) -> tuple[bool, bool]:
    """Two games on one deal, seats swapped: the deal's luck helps the candidate in one and hurts it in the
    other (a latent-strength model of duplicate deals: win when skill + luck + noise > 0)."""
    luck = rng.gauss(0, luck_sd)
    return skill + luck + rng.gauss(0, 0.5) > 0, skill - luck + rng.gauss(0, 0.5) > 0


def skill_for(elo: float, luck_sd: float) -> float:
    import statistics

    return statistics.NormalDist(0, math.hypot(luck_sd, 0.5)).inv_cdf(expected_score(elo))


def paired_run(test, elo: float, rng: random.Random, luck_sd: float = 1.5, limit: int = 50_000):
    skill = skill_for(elo, luck_sd)
    matches = 0
    while test.verdict is None and matches < limit:
        a, b = duplicate_pair(rng, skill, luck_sd)
        if isinstance(test, PairSprt):
            test.update((a + b) / 2)
        else:
            test.update(float(a))
            if test.verdict is None:
                test.update(float(b))
        matches += 2
    return test.verdict, matches


def test_pair_llr_is_zero_without_pairs_and_leans_where_the_mean_lies():
    assert pair_llr([0, 0, 0], 0.5, 0.55) == 0.0
    assert pair_llr([0, 10, 30], 0.5, 0.55) > 0  # mostly won both: nearer s1
    assert pair_llr([30, 10, 0], 0.5, 0.55) < 0
    assert pair_llr([5, 90, 5], 0.5, 0.55) < 0  # an even split of luck: the mean is 0.5


def test_pair_sprt_takes_only_pair_scores_and_counts_two_matches_a_pair():
    t = PairSprt(0, 20)
    t.update(0.5)
    t.update(1.0)
    assert (t.pairs, t.matches, t.points) == (2, 4, 3.0)
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        t.update(0.25)


@pytest.mark.slow
def test_pairs_decide_with_fewer_matches_and_near_the_error_rates():
    """Where the deal's luck is large (duplicate deals cancel it within a pair), the pair test needs far
    fewer matches than counting each match alone; its error rates stay near alpha and beta (the generalized
    SPRT is slightly liberal at small samples: STATISTICS.md gives the measured rates)."""
    rng = random.Random(2026)
    runs = 150
    h0 = [paired_run(PairSprt(0, 30), 0.0, rng) for _ in range(runs)]
    h1 = [paired_run(PairSprt(0, 30), 30.0, rng) for _ in range(runs)]
    plain = [paired_run(Sprt(0, 30), 30.0, rng) for _ in range(40)]
    assert sum(v == "H1" for v, _ in h0) / runs < 2 * 0.05
    assert sum(v == "H0" for v, _ in h1) / runs < 2 * 0.05
    pair_matches = sum(n for _, n in h1) / runs
    plain_matches = sum(n for _, n in plain) / len(plain)
    assert pair_matches < plain_matches / 2, (pair_matches, plain_matches)
