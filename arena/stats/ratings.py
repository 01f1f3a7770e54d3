"""Elo ratings by penalised maximum likelihood under Bradley-Terry, with a bootstrap over matches.

Model, on the Elo scale: P(i beats j) = 1 / (1 + 10^(-(R_i - R_j + s) / 400)), where s is the seat-0
advantage (when it is estimated, else 0) and i sits in seat 0. A match scored 0.5 counts as half a win
for each side. Internally everything is in natural (logistic) units x = R * ln(10) / 400.

Prior: every bot plays ``prior`` virtual drawn matches (default one) against a virtual opponent with a
fixed rating; the seat advantage gets the same, as ``prior`` virtual drawn matches between two equal bots.
Its log-density is -prior * log(2 cosh(x / 2)) up to a constant: flat near the centre, a linear pull far
out, so it keeps the ratings of bots that won or lost everything finite and otherwise moves a rating by
about as much as one extra drawn match would. Since the virtual opponent's rating is a free reference
point, the choice of it does not change any rating difference; the reported ratings are then shifted so
the anchor bot sits at ``anchor_value``.

Fitting: Newton's method on the (strictly concave) penalised log-likelihood with backtracking, from
sufficient statistics (matches and points per ordered pairing), which is fast because a tournament has
far fewer pairings than matches. The bootstrap re-draws the resampling units (a duplicate pair, or a
single match) with replacement, refits from the full-data solution and anchors each refit.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any

from arena.stats.results import Result, bots_in_order, check_results, components, units

#: An interval from fewer resampling units than this (duplicate pairs, or matches without a twin) is labelled
#: approximate: widened by `small_sample_factor`, it held the truth in 90-100% of simulated series of 10 or 20
#: pairs, and in 92.5-99% of series of 30 (400 series a case: ±1.1%; bench/interval_coverage.py,
#: docs/STATISTICS.md).
APPROXIMATE_BELOW = 30

#: Elo points per natural (logistic) unit: 400 / ln 10, about 173.7.
ELO_PER_NAT = 400.0 / math.log(10.0)


def expected_score(elo_diff: float) -> float:
    """The expected score of a bot rated ``elo_diff`` Elo above its opponent: 1 / (1 + 10^(-d/400))."""
    return 1.0 / (1.0 + math.pow(10.0, -elo_diff / 400.0))


def elo_diff(score: float) -> float:
    """The inverse of :func:`expected_score`: 400 * log10(score / (1 - score)); score in (0, 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"score must be strictly between 0 and 1, got {score!r}")
    return 400.0 * math.log10(score / (1.0 - score))


@dataclass(frozen=True)
class Rating:
    """One bot's line in :class:`Ratings`: Elo, 95% bootstrap interval, matches and points."""

    bot: str
    elo: float
    lo: float | None  #: 2.5% bootstrap quantile (None without a bootstrap)
    hi: float | None  #: 97.5% bootstrap quantile
    matches: int
    points: float
    component: int  #: index into ``Ratings.components``
    units: int = 0  #: the bootstrap's resampling units the bot played in (duplicate pairs, unpaired matches)

    @property
    def approximate(self) -> bool:
        """Whether the interval rests on fewer than :data:`APPROXIMATE_BELOW` units (and is not a point)."""
        return self.lo is not None and self.hi is not None and self.lo < self.hi and self.units < APPROXIMATE_BELOW


@dataclass(frozen=True)
class Ratings:
    """The result of :func:`ratings`.

    ``table`` lists the bots best first. Ratings and intervals are relative to the anchor (whose interval
    is therefore a single point). Ratings from different ``components`` of the results graph were never
    connected by any chain of matches and are not comparable: their difference comes from the prior only.
    """

    table: tuple[Rating, ...]
    anchor: str | None
    anchor_value: float
    components: tuple[tuple[str, ...], ...]
    seat_advantage: float | None  #: Elo bonus of seat 0, when estimated
    seat_interval: tuple[float, float] | None
    bootstrap: int  #: number of bootstrap samples behind the intervals
    prior: float  #: virtual drawn matches per bot
    samples: Mapping[str, tuple[float, ...]] = field(repr=False, default_factory=dict)
    """Every bootstrap sample's (anchored) rating per bot, in sample order."""

    @property
    def connected(self) -> bool:
        return len(self.components) <= 1

    @property
    def notes(self) -> list[str]:
        """Human-readable caveats to show next to the table (empty when there are none)."""
        out = []
        if not self.connected:
            groups = "; ".join(", ".join(c) for c in self.components)
            out.append(
                f"the results split into {len(self.components)} groups that never met, directly or "
                f"through common opponents ({groups}); ratings are only comparable within a group"
            )
        few = [r for r in self.table if r.approximate]
        if few:
            out.append(f"{len(few)} of the {len(self.table)} Elo intervals rest on fewer than {APPROXIMATE_BELOW} "
                       "duplicate pairs each: approximate, they may hold the truth less often than 95% "
                       "(docs/STATISTICS.md)")
        return out

    def __getitem__(self, bot: str) -> Rating:
        for r in self.table:
            if r.bot == bot:
                return r
        raise KeyError(bot)

    def __iter__(self) -> Iterator[Rating]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def comparable(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` are in the same component of the results graph."""
        return self[a].component == self[b].component

    def los(self, a: str, b: str) -> float | None:
        """Likelihood of superiority of ``a`` over ``b``: the share of bootstrap samples in which ``a`` is
        rated above ``b`` (ties count half). None without a bootstrap or across components."""
        if a == b or not self.comparable(a, b) or not self.bootstrap:
            return None
        sa, sb = self.samples[a], self.samples[b]
        above = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(sa, sb, strict=True))
        return above / len(sa)

    def los_matrix(self) -> dict[str, dict[str, float | None]]:
        """``m[a][b] = self.los(a, b)`` for every two bots, in table order."""
        names = [r.bot for r in self.table]
        return {a: {b: self.los(a, b) for b in names} for a in names}


def ratings(
    results: Iterable[Result],
    anchor: str | None = None,
    anchor_value: float = 0.0,
    seat_advantage: bool = False,
    bootstrap: int = 1000,
    seed: int = 0,
    prior: float = 1.0,
) -> Ratings:
    """Fit Elo ratings to ``results`` (see the module docstring for the model, prior and bootstrap).

    ``anchor`` names the bot whose rating is fixed at ``anchor_value``; by default ``random`` when it
    played, else the first bot to appear in the results. ``seat_advantage`` adds an estimated Elo bonus
    for seat 0. ``bootstrap`` is the number of resamples behind the 95% intervals (0: no intervals);
    ``seed`` makes them reproducible. ``prior`` is the number of virtual drawn matches per bot (> 0).
    """
    res = check_results(results)
    if not prior > 0.0 or not math.isfinite(prior):
        raise ValueError(f"prior must be a positive number of virtual matches, got {prior!r}")
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0, got {bootstrap!r}")
    bots = bots_in_order(res)
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor bot {anchor!r} played no match")
    if not bots:
        return Ratings((), None, anchor_value, (), None, None, 0, prior)
    if anchor is None:
        anchor = "random" if "random" in bots else bots[0]
    index = {b: n for n, b in enumerate(bots)}
    k = len(bots)
    comps = components(bots, res)
    comp_of = {b: n for n, c in enumerate(comps) for b in c}

    # Cells: one per pairing (per ordered pairing with a seat term), holding matches and seat-0 points.
    cell_index: dict[tuple[int, int], int] = {}

    def cell(r: Result) -> tuple[int, float]:
        i, j, w = index[r.first], index[r.second], r.score
        if not seat_advantage and i > j:
            i, j, w = j, i, 1.0 - w
        c = cell_index.setdefault((i, j), len(cell_index))
        return c, w

    # Each unit becomes a type: its summed contribution to the cells; identical units share a type.
    type_index: dict[tuple[tuple[int, int, float], ...], int] = {}
    unit_types: list[int] = []
    for unit in units(res):
        acc: dict[int, list[float]] = {}
        for r in unit:
            c, w = cell(r)
            cw = acc.setdefault(c, [0.0, 0.0])
            cw[0] += 1.0
            cw[1] += w
        key = tuple(sorted((c, int(cw[0]), cw[1]) for c, cw in acc.items()))
        unit_types.append(type_index.setdefault(key, len(type_index)))
    types = list(type_index)
    ci = [0] * len(cell_index)
    cj = [0] * len(cell_index)
    for (i, j), c in cell_index.items():
        ci[c], cj[c] = i, j

    def totals(counts: Mapping[int, int]) -> tuple[list[float], list[float]]:
        ns = [0.0] * len(ci)
        ws = [0.0] * len(ci)
        for t, times in counts.items():
            for c, n, w in types[t]:
                ns[c] += times * n
                ws[c] += times * w
        return ns, ws

    m = k + (1 if seat_advantage else 0)
    parts = _Parts([[index[b] for b in c] for c in comps], ci, cj, k, seat_advantage, prior)
    ns, ws = totals(Counter(unit_types))
    x_hat = parts.fit(ns, ws, [0.0] * m, tol=1e-10)

    at = index[anchor]

    def anchored(x: Sequence[float]) -> list[float]:
        shift = anchor_value - x[at] * ELO_PER_NAT
        return [v * ELO_PER_NAT + shift for v in x[:k]]

    elo = anchored(x_hat)
    seat = x_hat[k] * ELO_PER_NAT if seat_advantage else None

    rng = random.Random(seed)
    per_bot: list[list[float]] = [[] for _ in range(k)]
    seat_samples: list[float] = []
    n_units = len(unit_types)
    # Every resample is fitted from x_hat with the Hessian at x_hat, factored once: a resample's optimum lies
    # near x_hat, and a new factorisation per step (k^3 / 6 multiplications) made 200 bots take minutes.
    factors = parts.factors(ns, ws, x_hat) if bootstrap else None
    for _ in range(bootstrap):
        ns, ws = totals(Counter(rng.choices(unit_types, k=n_units)))
        x = parts.fit(ns, ws, x_hat, tol=1e-4, factors=factors)  # 0.02 Elo: intervals are shown to 1 Elo
        for lst, v in zip(per_bot, anchored(x), strict=True):
            lst.append(v)
        if seat_advantage:
            seat_samples.append(x[k] * ELO_PER_NAT)

    matches = [0] * k
    points = [0.0] * k
    for r in res:
        matches[index[r.first]] += 1
        matches[index[r.second]] += 1
        points[index[r.first]] += r.score
        points[index[r.second]] += 1.0 - r.score

    unit_count = Counter(b for unit in units(res) for b in {x for r in unit for x in (r.first, r.second)})
    lines = []
    for n, b in enumerate(bots):
        lo = hi = None
        if bootstrap:
            lo, hi = _interval(per_bot[n])
            f = small_sample_factor(unit_count[b])  # the percentile interval, widened about the estimate
            lo, hi = elo[n] - f * (elo[n] - lo), elo[n] + f * (hi - elo[n])
        lines.append(Rating(b, elo[n], lo, hi, matches[n], points[n], comp_of[b], unit_count[b]))
    lines.sort(key=lambda r: (-r.elo, index[r.bot]))
    return Ratings(
        table=tuple(lines),
        anchor=anchor,
        anchor_value=anchor_value,
        components=tuple(tuple(c) for c in comps),
        seat_advantage=seat,
        seat_interval=_interval(seat_samples) if seat_advantage and bootstrap else None,
        bootstrap=bootstrap,
        prior=prior,
        samples={b: tuple(per_bot[n]) for n, b in enumerate(bots)} if bootstrap else {},
    )


def t_quantile(q: float, df: float) -> float:
    """Student's t quantile for ``df`` degrees of freedom (Cornish-Fisher expansion about the normal
    quantile; at q = 0.975 within 0.004 of the exact value from df = 5 on, 0.03 low at df = 3)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(q)
    if math.isinf(df):
        return z
    z3, z5, z7 = z**3, z**5, z**7
    return (z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df**2)
            + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df**3))


def small_sample_factor(units: int) -> float:
    """How much wider than the bootstrap's percentiles a 95% interval from ``units`` resampling units (a
    bot's duplicate pairs, or its matches without a twin) is drawn: t(0.975, n - 1) / z(0.975) *
    sqrt(n / (n - 1)). The bootstrap spreads as the plug-in variance (n - 1)/n of the unbiased one, with
    normal tails where a mean of n units has Student's; at 10 pairs the percentile interval covered 83-94%
    of the time (docs/STATISTICS.md), widened 22% it covers 90-100%. 1.01 at 150 pairs, 1 in the limit."""
    if units <= 1:
        return 1.0  # one unit: the bootstrap has nothing to resample (the prior alone bounds it)
    df = units - 1
    return t_quantile(0.975, df) / t_quantile(0.975, math.inf) * math.sqrt(units / df)


def _interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    s = sorted(values)
    q = (1.0 - level) / 2.0
    return quantile(s, q), quantile(s, 1.0 - q)


def quantile(s: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


_Factor = tuple[list[list[float]], list[list[float]]]


class _Parts:
    """The fit split by connected component. Without a seat term, the bots of two components share no
    match, and each rating has a prior of its own: the penalised likelihood is a sum over the components,
    each fitted on its own (a tournament stopped early, with many bots and few matches, is many small fits
    instead of one large one). With a seat term, which every match shares, it is one part."""

    def __init__(self, comps: Sequence[Sequence[int]], ci: Sequence[int], cj: Sequence[int], k: int, seat: bool,
                 prior: float) -> None:
        self.seat = seat
        self.prior = prior
        groups = [list(range(k))] if seat else [sorted(c) for c in comps]
        part_of = {b: n for n, g in enumerate(groups) for b in g}
        cells: list[list[int]] = [[] for _ in groups]
        for c, i in enumerate(ci):
            cells[part_of[i]].append(c)
        self.parts = []  # (the bots' global indices (and the seat term's, last), cell ids, local ci, local cj)
        for g, ids in zip(groups, cells, strict=True):
            local = {b: n for n, b in enumerate(g)}
            params = g + [k] if seat else g
            self.parts.append((params, ids, [local[ci[c]] for c in ids], [local[cj[c]] for c in ids]))

    def fit(self, ns: Sequence[float], ws: Sequence[float], start: Sequence[float], tol: float,
            factors: Sequence[_Factor | None] | None = None) -> list[float]:
        x = list(start)
        for n, (params, ids, lci, lcj) in enumerate(self.parts):
            k = len(params) - (1 if self.seat else 0)
            xs = _fit(k, lci, lcj, [ns[c] for c in ids], [ws[c] for c in ids], self.seat, self.prior,
                      [x[p] for p in params], tol, factor=None if factors is None else factors[n])
            for p, v in zip(params, xs, strict=True):
                x[p] = v
        return x

    def factors(self, ns: Sequence[float], ws: Sequence[float], x: Sequence[float]) -> list[_Factor | None]:
        """`_cholesky` of each part's minus Hessian at ``x`` (None for a sparse part: see `_fit`)."""
        out = []
        for params, ids, lci, lcj in self.parts:
            k = len(params) - (1 if self.seat else 0)
            cells = _cells(lci, lcj, [ns[c] for c in ids], [ws[c] for c in ids])
            out.append(None if _sparse(len(params), cells) else
                       _cholesky(_evaluate(k, cells, self.seat, self.prior, [x[p] for p in params])[2]))
        return out


def _fit(
    k: int,
    ci: Sequence[int],
    cj: Sequence[int],
    ns: Sequence[float],
    ws: Sequence[float],
    seat: bool,
    prior: float,
    start: Sequence[float],
    tol: float,
    max_iter: int = 200,
    factor: _Factor | None = None,
) -> list[float]:
    """Maximise the penalised log-likelihood by Newton's method with backtracking.

    Parameters are k ratings (natural units, relative to the virtual opponent) and, with ``seat``, the
    seat-0 advantage as parameter k. Cell c holds ns[c] matches of ci[c] (seat 0 when ``seat``) against
    cj[c], of which ci[c] scored ws[c]. Stops when the largest Newton step is below ``tol``.

    With ``factor`` (`_cholesky` of minus the Hessian somewhere near the optimum) every step uses that
    matrix instead of the Hessian at the step (the chord method): each step costs k^2, not k^3, and still
    climbs, since the matrix is positive definite. Where that stalls, Newton's method takes over.
    """
    cells = _cells(ci, cj, ns, ws)
    x = list(start)
    if _sparse(len(x), cells):  # the Hessian kept as its cells, each step by conjugate gradients
        x, done = _newton(x, lambda v: _evaluate_cells(k, cells, seat, prior, v),
                          lambda out: _conjugate_gradients(k, seat, out[2], out[3], out[1]), tol, max_iter)
    else:
        done = False
        if factor is not None:
            x, done = _newton(x, lambda v: _evaluate(k, cells, seat, prior, v, hessian=False),
                              lambda out: _solve_factored(factor, out[1]), tol, max_iter)
        if not done:
            x, done = _newton(x, lambda v: _evaluate(k, cells, seat, prior, v),
                              lambda out: _solve_factored(_cholesky(out[2]), out[1]), tol, max_iter)
    if not done:
        raise ArithmeticError("rating fit did not converge")  # pragma: no cover - concave, so it converges
    return x


def _newton(x: list[float], evaluate: Callable[[list[float]], Any], step: Callable[[Any], list[float]],
            tol: float, max_iter: int) -> tuple[list[float], bool]:
    """Climb from ``x`` by the steps ``step(evaluate(x))`` (``evaluate`` gives the objective first, then what
    the step needs), each halved until the objective does not fall. Returns the point, and whether the last
    step was under ``tol`` (else where ``max_iter`` steps led)."""
    out = evaluate(x)
    for _ in range(max_iter):
        delta = step(out)
        if max(map(abs, delta)) < tol:
            return [v + d for v, d in zip(x, delta, strict=True)], True
        t = 1.0
        while True:
            xn = [v + t * d for v, d in zip(x, delta, strict=True)]
            on = evaluate(xn)
            if on[0] >= out[0] - 1e-12 * (1.0 + abs(out[0])) or t < 1e-8:
                break
            t *= 0.5
        x, out = xn, on
    return x, False


def _sparse(m: int, cells: Sequence[object]) -> bool:
    """Whether a fit of ``m`` parameters over ``cells`` is better solved with the Hessian as its cells (each
    step by conjugate gradients, about cells x 30 operations) than as a matrix (m^3 / 6 to factor): many
    bots, few of their pairings played (a tournament stopped early, a large gauntlet)."""
    return m >= 40 and 8 * len(cells) < m * m


def _evaluate_cells(k: int, cells: Sequence[tuple[int, int, float, float]], seat: bool, prior: float,
                    x: Sequence[float], curvature: bool = True,
                    ) -> tuple[float, list[float], list[tuple[int, int, float]], list[float]]:
    """`_evaluate` with minus the Hessian as its parts: each cell's curvature ``(i, j, c)`` (the Hessian
    adds c u u^T, u = e_i - e_j, plus e_k with a seat term) and the prior's curvature on the diagonal
    (without ``curvature``, two empty lists)."""
    m = len(x)
    f = 0.0
    g = [0.0] * m
    h = x[k] if seat else 0.0
    curv = []
    for i, j, n, w in cells:
        p, lp, lq = _log_sigmoids(x[i] - x[j] + h)
        f += w * lp + (n - w) * lq
        r = w - n * p
        g[i] += r
        g[j] -= r
        if seat:
            g[k] += r
        if curvature:
            curv.append((i, j, n * p * (1.0 - p)))
    half = 0.5 * prior
    diag = [0.0] * m if curvature else []
    for i in range(m):
        p, lp, lq = _log_sigmoids(x[i])
        f += half * (lp + lq)
        g[i] += half - prior * p
        if curvature:
            diag[i] = prior * p * (1.0 - p)
    return f, g, curv, diag


def _conjugate_gradients(k: int, seat: bool, curv: Sequence[tuple[int, int, float]], diag: Sequence[float],
                         b: Sequence[float]) -> list[float]:
    """Solve H x = b, H = diag + the cells' curvature (`_evaluate_cells`), by conjugate gradients with the
    diagonal of H as the preconditioner, to a residual of 1e-12 of b's."""
    m = len(b)

    def times(v: Sequence[float]) -> list[float]:
        out = list(map(mul, diag, v))
        for i, j, c in curv:
            t = c * (v[i] - v[j] + v[k]) if seat else c * (v[i] - v[j])
            out[i] += t
            out[j] -= t
            if seat:
                out[k] += t
        return out

    pre = list(diag)
    for i, j, c in curv:
        pre[i] += c
        pre[j] += c
        if seat:
            pre[k] += c
    x = [0.0] * m
    r = list(b)
    z = [ri / di for ri, di in zip(r, pre, strict=True)]
    p = list(z)
    rz = sum(map(mul, r, z))
    stop = 1e-24 * sum(map(mul, b, b))
    for _ in range(2 * m + 10):
        if sum(map(mul, r, r)) <= stop:
            break
        ap = times(p)
        alpha = rz / sum(map(mul, p, ap))
        x = [xi + alpha * pi for xi, pi in zip(x, p, strict=True)]
        r = [ri - alpha * ai for ri, ai in zip(r, ap, strict=True)]
        z = [ri / di for ri, di in zip(r, pre, strict=True)]
        rz, previous = sum(map(mul, r, z)), rz
        p = [zi + (rz / previous) * pi for zi, pi in zip(z, p, strict=True)]
    return x


def _cells(ci: Sequence[int], cj: Sequence[int], ns: Sequence[float],
           ws: Sequence[float]) -> list[tuple[int, int, float, float]]:
    return [(i, j, n, w) for i, j, n, w in zip(ci, cj, ns, ws, strict=True) if n > 0.0]


def _log_sigmoids(d: float) -> tuple[float, float, float]:
    """p = 1 / (1 + e^-d), log p and log(1 - p), without overflow."""
    if d >= 0.0:
        e = math.exp(-d)
        lp = -math.log1p(e)
        return 1.0 / (1.0 + e), lp, lp - d
    e = math.exp(d)
    lq = -math.log1p(e)
    return e / (1.0 + e), lq + d, lq


def _evaluate(
    k: int, cells: Sequence[tuple[int, int, float, float]], seat: bool, prior: float, x: Sequence[float],
    hessian: bool = True,
) -> tuple[float, list[float], list[list[float]]]:
    """Penalised log-likelihood, its gradient and minus its Hessian (positive definite) at ``x`` (without
    ``hessian``, an empty list instead of the Hessian)."""
    if not hessian:
        f, g, _, _ = _evaluate_cells(k, cells, seat, prior, x, curvature=False)
        return f, g, []
    m = len(x)
    f = 0.0
    g = [0.0] * m
    h = x[k] if seat else 0.0
    a = [[0.0] * m for _ in range(m)]
    ak = a[k] if seat else a[0]
    for i, j, n, w in cells:
        p, lp, lq = _log_sigmoids(x[i] - x[j] + h)
        f += w * lp + (n - w) * lq
        r = w - n * p
        c = n * p * (1.0 - p)
        g[i] += r
        g[j] -= r
        ai, aj = a[i], a[j]
        ai[i] += c
        aj[j] += c
        ai[j] -= c
        aj[i] -= c
        if seat:
            g[k] += r
            ak[k] += c
            ai[k] += c
            ak[i] += c
            aj[k] -= c
            ak[j] -= c
    half = 0.5 * prior
    for i in range(m):  # the prior: `prior` virtual draws per parameter, against a fixed 0
        p, lp, lq = _log_sigmoids(x[i])
        f += half * (lp + lq)
        g[i] += half - prior * p
        a[i][i] += prior * p * (1.0 - p)
    return f, g, a


def _cholesky(a: Sequence[Sequence[float]]) -> _Factor:
    """The Cholesky factor L of symmetric positive definite ``a`` (a = L L^T), by rows, and L^T by rows
    (which makes the back substitution sums of row products too)."""
    m = len(a)
    low: list[list[float]] = []
    for i in range(m):
        li = [0.0] * m
        ai = a[i]
        for j in range(i):
            lj = low[j]
            li[j] = (ai[j] - sum(map(mul, li[:j], lj[:j]))) / lj[j]
        d = ai[i] - sum(map(mul, li[:i], li[:i]))
        # The prior makes a positive definite; guard against rounding for ratings far out in the tails.
        li[i] = math.sqrt(d) if d > 1e-300 else 1e-150
        low.append(li)
    return low, [list(column) for column in zip(*low, strict=True)]


def _solve_factored(factor: _Factor, b: Sequence[float]) -> list[float]:
    """Solve a x = b, given `_cholesky` of a."""
    low, up = factor
    m = len(b)
    y = [0.0] * m
    for i in range(m):
        li = low[i]
        y[i] = (b[i] - sum(map(mul, li[:i], y[:i]))) / li[i]
    out = [0.0] * m
    for i in range(m - 1, -1, -1):
        ui = up[i]
        out[i] = (y[i] - sum(map(mul, ui[i + 1:], out[i + 1:]))) / ui[i]
    return out
