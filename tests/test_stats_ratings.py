"""Ratings: hand-computed cases, an independent fit (Hunter's MM), the bootstrap and the results graph."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats import ELO_PER_NAT, Result, elo_diff, expected_score, los, ratings
from arena.stats.results import units


def games(a: str, b: str, wins: int, losses: int, pair_prefix: str | None = None) -> list[Result]:
    """``wins`` + ``losses`` matches of a against b, seats alternating."""
    out = []
    for n, s in enumerate([1.0] * wins + [0.0] * losses):
        out.append(Result(a, b, s) if n % 2 == 0 else Result(b, a, 1.0 - s))
    return out


def sigmoid(d: float) -> float:
    return 1.0 / (1.0 + math.exp(-d))


def bisect(f: Callable[[float], float], lo: float, hi: float) -> float:
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f(lo) > 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- the independent implementation: Hunter (2004) MM, per match, with the same virtual-draw prior ----------


def mm_fit(results: list[Result], seat: bool, prior: float = 1.0) -> tuple[dict[str, float], float]:
    """Ratings (Elo, relative to the virtual opponent) and seat advantage (Elo) by MM iterations.

    P(first wins) = theta*g_f / (theta*g_f + g_s); each bot has ``prior`` virtual games scored 0.5 against
    a virtual opponent with g = 1; theta has ``prior`` virtual games scored 0.5 between two g = 1 bots.
    """
    bots = sorted({r.first for r in results} | {r.second for r in results})
    g = {b: 1.0 for b in bots}
    theta = 1.0
    wins = {b: 0.5 * prior for b in bots}
    for r in results:
        wins[r.first] += r.score
        wins[r.second] += 1.0 - r.score
    home_wins = 0.5 * prior + sum(r.score for r in results)
    for _ in range(200_000):
        old = dict(g), theta
        th = theta if seat else 1.0
        for b in bots:
            den = prior / (g[b] + 1.0)
            for r in results:
                if r.first == b:
                    den += th / (th * g[b] + g[r.second])
                elif r.second == b:
                    den += 1.0 / (th * g[r.first] + g[b])
            g[b] = wins[b] / den
        if seat:
            den = prior / (theta + 1.0) + sum(
                g[r.first] / (theta * g[r.first] + g[r.second]) for r in results
            )
            theta = home_wins / den
        change = max(abs(math.log(g[b] / old[0][b])) for b in bots)
        change = max(change, abs(math.log(theta / old[1])))
        if change < 1e-13:
            break
    return {b: math.log(v) * ELO_PER_NAT for b, v in g.items()}, math.log(theta) * ELO_PER_NAT


def objective(
    results: list[Result], elo: dict[str, float], seat_elo: float, seat: bool, prior: float
) -> float:
    """The penalised log-likelihood, written straight from the definition, match by match."""
    f = 0.0
    for r in results:
        d = (elo[r.first] - elo[r.second] + (seat_elo if seat else 0.0)) / ELO_PER_NAT
        f += r.score * math.log(sigmoid(d)) + (1.0 - r.score) * math.log(sigmoid(-d))
    params = list(elo.values()) + ([seat_elo] if seat else [])
    for v in params:
        x = v / ELO_PER_NAT
        f += prior * 0.5 * (math.log(sigmoid(x)) + math.log(sigmoid(-x)))
    return f


def random_results(seed: int, n_bots: int, n_matches: int, paired: bool) -> list[Result]:
    rng = random.Random(seed)
    names = [f"bot{i}" for i in range(n_bots)]
    strength = {b: rng.gauss(0, 150) for b in names}
    out: list[Result] = []
    while len(out) < n_matches:
        a, b = rng.sample(names, 2)
        pid = f"p{len(out)}" if paired else None
        for first, second in ((a, b), (b, a)) if paired else ((a, b),):
            p = expected_score(strength[first] - strength[second] + 40)
            out.append(Result(first, second, 1.0 if rng.random() < p else 0.0, pid))
    return out


# -- hand-computed cases -------------------------------------------------------------------------------------


def test_three_to_one_is_190_8_elo_up_to_the_prior():
    res = games("a", "b", 300, 100)
    r = ratings(res, bootstrap=0)
    assert r.anchor == "a" and r["a"].elo == 0.0
    diff = r["a"].elo - r["b"].elo
    assert elo_diff(0.75) == pytest.approx(190.8485, abs=1e-4)
    # The prior (one virtual draw each against the centre) pulls the difference in by 0.31 Elo: it solves
    # 300 - 400 p(d) + 0.5 - p(d/2) = 0 (natural units, a at +d/2, b at -d/2 by symmetry).
    d = bisect(lambda d: 300 - 400 * sigmoid(d) + 0.5 - sigmoid(d / 2), 0.0, 5.0) * ELO_PER_NAT
    assert diff == pytest.approx(d, abs=1e-6)
    assert abs(diff - 190.8485) < 0.5
    # A negligible prior gives the plain maximum likelihood estimate.
    assert ratings(res, anchor="b", bootstrap=0, prior=1e-6)["a"].elo == pytest.approx(190.8485, abs=1e-3)


def test_prior_bias_shrinks_with_more_matches():
    small = ratings(games("a", "b", 30, 10), anchor="b", bootstrap=0)
    large = ratings(games("a", "b", 3000, 1000), anchor="b", bootstrap=0)
    assert 180 < small["a"].elo < large["a"].elo < 190.8485
    assert 190.8485 - large["a"].elo < 0.05


def test_cycle_gives_equal_ratings():
    res = games("a", "b", 7, 3) + games("b", "c", 7, 3) + games("c", "a", 7, 3)
    for seat in (False, True):
        r = ratings(res, seat_advantage=seat, bootstrap=0)
        assert [x.elo for x in r] == pytest.approx([0.0, 0.0, 0.0], abs=1e-7)


def test_bot_that_won_everything_is_finite_large_and_ordered():
    res = games("a", "b", 10, 0) + games("a", "c", 10, 0) + games("b", "c", 6, 4)
    r = ratings(res, anchor="c", bootstrap=200)
    assert [x.bot for x in r] == ["a", "b", "c"]
    assert all(math.isfinite(x.elo) for x in r)
    assert r["a"].elo - r["b"].elo > 300
    assert r["a"].elo < 2000
    assert r["a"].lo is not None and r["a"].hi is not None and r["a"].lo < r["a"].elo < r["a"].hi


def test_bot_that_lost_everything_to_everyone():
    res = games("a", "z", 20, 0) + games("b", "z", 20, 0) + games("a", "b", 5, 5)
    r = ratings(res, bootstrap=0, seat_advantage=True)
    assert r["z"].elo < r["a"].elo - 400 and math.isfinite(r["z"].elo)


def test_anchor_default_named_and_value():
    res = games("x", "random", 6, 4) + games("y", "x", 5, 5)
    assert ratings(res, bootstrap=0).anchor == "random"
    assert ratings(res, bootstrap=0)["random"].elo == 0.0
    assert ratings(games("x", "y", 6, 4), bootstrap=0).anchor == "x"
    r = ratings(res, anchor="y", anchor_value=1500, bootstrap=50)
    assert r["y"].elo == 1500 and r["y"].lo == r["y"].hi == 1500
    base = ratings(res, bootstrap=0)
    assert r["x"].elo - r["y"].elo == pytest.approx(base["x"].elo - base["y"].elo)
    with pytest.raises(ValueError, match="nobody"):
        ratings(res, anchor="nobody")


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="itself"):
        ratings([Result("a", "a", 1.0)])
    with pytest.raises(ValueError, match="between 0 and 1"):
        ratings([Result("a", "b", 2.0)])
    with pytest.raises(ValueError, match="mixes pairings"):
        ratings([Result("a", "b", 1.0, "p"), Result("a", "c", 1.0, "p")])
    with pytest.raises(ValueError, match="prior"):
        ratings([Result("a", "b", 1.0)], prior=0)
    assert len(ratings([])) == 0


def test_half_points_count_half():
    res = [Result("a", "b", 0.5)] * 10 + games("a", "b", 6, 4)
    assert ratings(res, bootstrap=0)["b"].points == pytest.approx(9.0)


# -- against the independent implementation ------------------------------------------------------------------


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10**6),
    n_bots=st.integers(2, 5),
    n_matches=st.integers(1, 40),
    paired=st.booleans(),
    seat=st.booleans(),
    prior=st.sampled_from([0.3, 1.0, 4.0]),
)
def test_matches_hunter_mm(seed, n_bots, n_matches, paired, seat, prior):
    res = random_results(seed, n_bots, n_matches, paired)
    r = ratings(res, seat_advantage=seat, bootstrap=0, prior=prior)
    mm, mm_seat = mm_fit(res, seat, prior)
    # Compare differences to the anchor: the anchoring shift is not part of the model.
    for x in r:
        assert x.elo - r.anchor_value == pytest.approx(mm[x.bot] - mm[r.anchor], abs=1e-4)
    if seat:
        assert r.seat_advantage == pytest.approx(mm_seat, abs=1e-4)


@pytest.mark.parametrize(("seed", "seat"), [(1, False), (2, True), (3, False)])
def test_many_bots_and_few_matches_match_hunter_mm(seed, seat, monkeypatch):
    """60 bots and 70 matches: the fit solves its steps by conjugate gradients over the played pairings
    (`_sparse`), not by factoring a 60 x 60 matrix; it must find the same optimum."""
    module = sys.modules["arena.stats.ratings"]
    solves = []
    solve = module._conjugate_gradients
    monkeypatch.setattr(module, "_conjugate_gradients", lambda *a: solves.append(1) or solve(*a))
    res = random_results(seed, 60, 70, paired=False)
    r = ratings(res, seat_advantage=seat, bootstrap=0)
    assert solves  # the path under test
    mm, mm_seat = mm_fit(res, seat)
    for x in r:
        assert x.elo - r.anchor_value == pytest.approx(mm[x.bot] - mm[r.anchor], abs=1e-4)
    if seat:
        assert r.seat_advantage == pytest.approx(mm_seat, abs=1e-4)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n_bots=st.integers(2, 4), seat=st.booleans())
def test_is_the_brute_force_maximum(seed, n_bots, seat):
    """No shift of the reference point and no small move of any rating improves the penalised likelihood."""
    res = random_results(seed, n_bots, 30, paired=False)
    r = ratings(res, seat_advantage=seat, bootstrap=0)
    elo = {x.bot: x.elo for x in r}
    s = r.seat_advantage or 0.0

    def f_shift(c: float) -> float:
        return objective(res, {b: v + c for b, v in elo.items()}, s, seat, 1.0)

    lo, hi = -3000.0, 3000.0  # golden-section search for the reference point
    for _ in range(120):
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if f_shift(m1) < f_shift(m2):
            lo = m1
        else:
            hi = m2
    best = {b: v + (lo + hi) / 2 for b, v in elo.items()}
    f0 = objective(res, best, s, seat, 1.0)
    for b in best:
        for step in (0.5, -0.5, 5.0, -5.0):
            moved = dict(best, **{b: best[b] + step})
            assert objective(res, moved, s, seat, 1.0) < f0
    if seat:
        for step in (0.5, -0.5):
            assert objective(res, best, s + step, seat, 1.0) < f0


# -- bootstrap -----------------------------------------------------------------------------------------------


def test_units_keep_pairs_together():
    res = [
        Result("a", "b", 1.0, "p1"),
        Result("c", "d", 1.0),
        Result("b", "a", 1.0, "p1"),
        Result("a", "b", 0.0),
    ]
    assert units(res) == [[res[0], res[2]], [res[1]], [res[3]]]


def test_bootstrap_resamples_pairs_as_one_unit():
    """Seat 0 always wins, so every duplicate pair is 1-1. Resampling pairs keeps a and b level in every
    sample (a zero-width interval); resampling the matches on their own would not."""
    paired = []
    for n in range(40):
        paired += [Result("a", "b", 1.0, f"p{n}"), Result("b", "a", 1.0, f"p{n}")]
    unpaired = [Result(r.first, r.second, r.score) for r in paired]
    rp = ratings(paired, anchor="b", bootstrap=300)
    ru = ratings(unpaired, anchor="b", bootstrap=300)
    assert rp["a"].elo == pytest.approx(0.0, abs=1e-9)
    assert rp["a"].lo == pytest.approx(0.0, abs=1e-6) and rp["a"].hi == pytest.approx(0.0, abs=1e-6)
    assert ru["a"].hi - ru["a"].lo > 100
    # With a seat term the same holds, and the seat advantage is large.
    rs = ratings(paired, anchor="b", bootstrap=100, seat_advantage=True)
    assert rs["a"].hi - rs["a"].lo == pytest.approx(0.0, abs=1e-6)
    assert rs.seat_advantage is not None and rs.seat_advantage > 300


def test_bootstrap_width_matches_the_asymptotic_standard_error():
    # 75% of 400: the ML standard error of the difference is 1 / sqrt(n p (1 - p)) natural units.
    r = ratings(games("a", "b", 300, 100), anchor="b", bootstrap=1000)
    se = ELO_PER_NAT / math.sqrt(400 * 0.75 * 0.25)
    assert r["a"].hi - r["a"].lo == pytest.approx(2 * 1.96 * se, rel=0.15)
    assert r["a"].lo < r["a"].elo < r["a"].hi
    assert len(r.samples["a"]) == 1000


def test_bootstrap_is_seeded():
    res = random_results(3, 4, 60, paired=True)
    one, two, other = (
        ratings(res, bootstrap=50),
        ratings(res, bootstrap=50),
        ratings(res, bootstrap=50, seed=1),
    )
    assert one == two
    assert one.samples != other.samples


def test_seat_advantage_is_estimated():
    rng = random.Random(0)
    res = []
    for n in range(1500):
        a, b = ("a", "b") if n % 2 else ("b", "a")
        true = {"a": 100.0, "b": 0.0}
        res.append(Result(a, b, float(rng.random() < expected_score(true[a] - true[b] + 60))))
    r = ratings(res, anchor="b", seat_advantage=True, bootstrap=300)
    # Standard error of the seat term: about 1 / sqrt(n p (1 - p)) natural units, 9.4 Elo here.
    assert r.seat_advantage == pytest.approx(60, abs=25)
    assert r["a"].elo == pytest.approx(100, abs=40)
    lo, hi = r.seat_interval or (0.0, 0.0)
    assert lo < r.seat_advantage < hi
    assert hi - lo == pytest.approx(2 * 1.96 * ELO_PER_NAT / math.sqrt(1500 * 0.23), rel=0.25)
    assert ratings(res, bootstrap=0).seat_advantage is None


def test_large_tournament_smoke():
    """20 bots, 5000 matches (2500 duplicate pairs): runs, and orders the bots by their true strength."""
    res = random_results(11, 20, 5000, paired=True)
    r = ratings(res, seat_advantage=True, bootstrap=20)
    assert len(r) == 20 and r.connected
    assert all(x.lo <= x.elo <= x.hi for x in r if x.lo is not None and x.hi is not None)


# -- the results graph, LOS ----------------------------------------------------------------------------------


def test_disconnected_graph_is_reported():
    res = games("a", "b", 6, 4) + games("c", "d", 3, 7) + games("e", "c", 5, 5)
    r = ratings(res, bootstrap=50)
    assert not r.connected
    assert r.components == (("c", "d", "e"), ("a", "b"))
    assert r["a"].component == r["b"].component != r["c"].component
    assert not r.comparable("a", "c") and r.comparable("c", "e")
    groups = [n for n in r.notes if "only comparable within a group" in n]
    assert len(groups) == 1 and "a, b" in groups[0]
    assert r.los("a", "c") is None
    assert ratings(games("a", "b", 6, 4), bootstrap=0).notes == []


def test_los_matrix():
    res = games("a", "b", 30, 10) + games("b", "c", 12, 10) + games("a", "c", 20, 20)
    m = los(res, bootstrap=300)
    assert set(m) == {"a", "b", "c"}
    assert m["a"]["a"] is None
    for x in m:
        for y in m:
            if x != y:
                assert m[x][y] + m[y][x] == pytest.approx(1.0)
    assert m["a"]["b"] > 0.99
    r = ratings(res, bootstrap=300)
    assert r.los_matrix() == m
    assert ratings(res, bootstrap=0).los("a", "b") is None


def test_pure_no_io_imports():
    code = "import sys, arena.stats; bad = {'trio', 'sqlite3', 'sqlite_utils'} & set(sys.modules); print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "set()"
