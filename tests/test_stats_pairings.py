"""Per-pairing statistics, duplicate-pair outcomes and variance, head-to-head LOS."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats import Result, expected_score, pairings


def pair(n: int, a: str, b: str, first_score: float, second_score: float) -> list[Result]:
    """Duplicate pair n: a in seat 0 then b in seat 0; the scores are for a in each match."""
    return [Result(a, b, first_score, f"p{n}"), Result(b, a, 1.0 - second_score, f"p{n}")]


def test_single_matches_plus_four_interval():
    res = [Result("a", "b", 1.0)] * 7 + [Result("b", "a", 1.0)] * 3
    p = pairings(res)["a", "b"]
    assert (p.matches, p.points, p.score) == (10, 7.0, 0.7)
    pt = 9 / 14  # two virtual wins and two virtual losses
    half = 1.959964 * math.sqrt(pt * (1 - pt) / 14)
    assert (p.lo, p.hi) == pytest.approx((pt - half, pt + half), abs=1e-6)
    assert p.pairs == 0 and p.unpaired == 10 and p.pair_outcomes == {"2-0": 0, "1-1": 0, "0-2": 0}
    assert p.variance == pytest.approx(p.naive_variance) and p.variance_ratio == pytest.approx(1.0)
    assert p.effective_matches == pytest.approx(10)


def test_both_directions_mirror():
    res = (
        pair(0, "a", "b", 1, 1) + pair(1, "a", "b", 1, 0) + pair(2, "a", "b", 0, 1) + pair(3, "a", "b", 0, 0)
    )
    res += pair(4, "a", "b", 1, 1) + [Result("b", "a", 0.0)]
    ps = pairings(res)
    ab, ba = ps["a", "b"], ps["b", "a"]
    assert ab.pair_outcomes == {"2-0": 2, "1-1": 2, "0-2": 1}
    assert ba.pair_outcomes == {"2-0": 1, "1-1": 2, "0-2": 2}
    assert ab.pairs == ba.pairs == 5 and ab.unpaired == 1 and ab.matches == 11
    assert ab.points + ba.points == 11 and ab.points == 7
    assert ab.lo == pytest.approx(1 - ba.hi) and ab.hi == pytest.approx(1 - ba.lo)
    assert ab.los + ba.los == pytest.approx(1.0)
    assert set(ps) == {("a", "b"), ("b", "a")}


def test_pair_outcomes_with_half_points():
    p = pairings([Result("a", "b", 0.5, "x"), Result("b", "a", 0.0, "x")])["a", "b"]
    assert p.pair_outcomes == {"2-0": 0, "1-1": 0, "0-2": 0, "1.5-0.5": 1}


def test_duplicate_pairs_cut_the_variance_when_seat_luck_dominates():
    """Deals decide most matches: the lucky seat wins, so most pairs are 1-1 and the pair-based variance is
    well below the naive one; effective matches exceed matches played."""
    rng = random.Random(2)
    res = []
    for n in range(200):
        luck = rng.choice([300.0, -300.0])  # how much this pair's deals favour seat 0
        p1 = expected_score(40 + luck)  # a is 40 Elo better
        p2 = expected_score(-40 + luck)  # b in seat 0 with the same deals
        res += pair(n, "a", "b", float(rng.random() < p1), 1.0 - float(rng.random() < p2))
    p = pairings(res)["a", "b"]
    assert p.pair_outcomes["1-1"] > p.pair_outcomes["2-0"] + p.pair_outcomes["0-2"]
    assert p.variance_ratio < 0.6
    assert p.effective_matches > 1.5 * p.matches
    # The interval uses the smaller, pair-based variance.
    assert p.hi - p.lo == pytest.approx(2 * 1.959964 * math.sqrt(p.variance), rel=1e-6)
    unpaired = pairings([Result(r.first, r.second, r.score) for r in res])["a", "b"]
    assert unpaired.variance_ratio == pytest.approx(1.0)
    assert unpaired.hi - unpaired.lo > p.hi - p.lo


def test_pair_based_variance_hand_computed():
    # Four pairs: 2-0, 1-1, 1-1, 0-2 (8 matches, 4 points) plus the virtual win and loss pairs.
    res = (
        pair(0, "a", "b", 1, 1) + pair(1, "a", "b", 1, 0) + pair(2, "a", "b", 0, 1) + pair(3, "a", "b", 0, 0)
    )
    p = pairings(res)["a", "b"]
    pt = (4 + 2) / (8 + 4)
    var = (
        (2 - 2 * pt) ** 2 + 2 * (1 - 2 * pt) ** 2 + (0 - 2 * pt) ** 2 + 2 * 2 * ((1 - pt) ** 2 + pt**2)
    ) / 144
    assert p.variance == pytest.approx(var)
    assert p.naive_variance == pytest.approx(pt * (1 - pt) / 12)
    assert p.variance_ratio == pytest.approx(var / (pt * (1 - pt) / 12))


def test_all_wins_still_has_an_interval():
    p = pairings([Result("a", "b", 1.0)] * 5)["a", "b"]
    assert p.score == 1.0 and p.hi == 1.0 and 0.3 < p.lo < 0.9
    assert p.los == pytest.approx(0.5 * (1 + math.erf(5 / math.sqrt(10))))


def test_head_to_head_los_classic_formula():
    res = [Result("a", "b", 1.0)] * 30 + [Result("a", "b", 0.0)] * 20 + [Result("a", "b", 0.5)] * 9
    assert pairings(res)["a", "b"].los == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(2 * 50))))
    # With pairs the pair is the observation: 2-0 a win, 1-1 a draw, 0-2 a loss.
    res = []
    for n, (x, y) in enumerate([(1, 1)] * 5 + [(1, 0)] * 10 + [(0, 0)]):
        res += pair(n, "a", "b", x, y)
    assert pairings(res)["a", "b"].los == pytest.approx(0.5 * (1 + math.erf(4 / math.sqrt(2 * 6))))
    assert pairings(pair(0, "a", "b", 1, 0))["a", "b"].los == 0.5


def test_arena_match_summary_resamples_a_duplicate_pair_as_one_unit() -> None:
    # 60 pairs that split 1-1 and 20 that A wins twice: the split pairs say little about who is better, and
    # drawing their two halves independently would add noise they do not have (a wider Elo interval)
    from arena.api import summarize
    from arena.game import preset
    from arena.stats import MatchFacts, ratings

    facts, pair_of, results = [], {}, []
    for k in range(80):
        for half in (0, 1):
            seats = ("A", "B") if half == 0 else ("B", "A")
            a_wins = k >= 60 or half == 0
            winner = seats.index("A") if a_wins else seats.index("B")
            match_id = f"m{k}-{half}"
            facts.append(MatchFacts(match_id, seats, winner, (11, 0) if winner == 0 else (0, 11)))
            pair_of[match_id] = f"p{k}"
            results.append(Result(seats[0], seats[1], 1.0 if winner == 0 else 0.0, f"p{k}"))
    summary = summarize(("A", "B"), facts, preset("santase"), 5, {}, pair_of)
    paired = ratings(results, anchor="B", bootstrap=300, seed=5)["A"]
    assert summary["elo_difference"]["interval"] == [round(paired.lo, 1), round(paired.hi, 1)]
    alone = ratings([Result(r.first, r.second, r.score) for r in results], anchor="B", bootstrap=300, seed=5)["A"]
    assert paired.hi - paired.lo < 0.8 * (alone.hi - alone.lo)
