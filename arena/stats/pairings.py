"""Head-to-head statistics per pairing, with what the duplicate pairs bought, and the LOS matrix."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.stats.ratings import ratings
from arena.stats.results import Z95, Result, check_results, units


@dataclass(frozen=True)
class Pairing:
    """What ``a`` did against ``b``, from ``a``'s side.

    ``score`` is a's mean score per match; ``lo``..``hi`` its 95% interval (Agresti-Coull "plus four":
    two virtual wins and two virtual losses are added, in units like the real ones, then a normal
    interval from the pair-aware variance). ``pair_outcomes`` counts complete duplicate pairs by a's
    points in the pair ("2-0", "1-1", "0-2"; others only if a match was scored 0.5). ``variance`` treats
    each pair as one observation; ``naive_variance`` pretends all matches were independent; their ratio
    below 1 is what duplicate deals bought: ``effective_matches`` independent matches would have given the
    same precision as the ``matches`` played. ``los`` is the head-to-head likelihood of superiority.
    """

    a: str
    b: str
    matches: int
    points: float
    score: float
    lo: float
    hi: float
    pairs: int
    pair_outcomes: Mapping[str, int]
    unpaired: int  #: matches not in a complete (two-match) pair
    variance: float
    naive_variance: float
    variance_ratio: float
    effective_matches: float
    los: float


def pairings(results: Iterable[Result]) -> dict[tuple[str, str], Pairing]:
    """Every pairing that played, keyed both ways: ``out[a, b]`` is from a's side, ``out[b, a]`` from b's."""
    res = check_results(results)
    by_pairing: dict[tuple[str, str], list[list[Result]]] = {}
    for unit in units(res):
        r = unit[0]
        key = (r.first, r.second) if (r.second, r.first) not in by_pairing else (r.second, r.first)
        by_pairing.setdefault(key, []).append(unit)
    out: dict[tuple[str, str], Pairing] = {}
    for (a, b), us in by_pairing.items():
        out[a, b] = _pairing(a, b, us)
        out[b, a] = _pairing(b, a, us)
    return out


def _pairing(a: str, b: str, us: list[list[Result]]) -> Pairing:
    # Per unit: (matches, a's points)
    per_unit = [(len(u), sum(r.score if r.first == a else 1.0 - r.score for r in u)) for u in us]
    scores = [r.score if r.first == a else 1.0 - r.score for u in us for r in u]
    n = len(scores)
    points = sum(scores)
    outcomes = {"2-0": 0, "1-1": 0, "0-2": 0}
    pairs = 0
    for m, s in per_unit:
        if m == 2:
            pairs += 1
            key = f"{s:g}-{2 - s:g}"
            outcomes[key] = outcomes.get(key, 0) + 1
    # Plus four: 2 virtual wins and 2 virtual losses, as units of the mean unit size.
    size = n / len(per_unit)
    nt = n + 4.0
    pt = (points + 2.0) / nt
    virtual = 2.0 * size * ((1.0 - pt) ** 2 + pt**2)
    variance = (sum((s - pt * m) ** 2 for m, s in per_unit) + virtual) / nt**2
    naive = (sum((s - pt) ** 2 for s in scores) + 2.0 * ((1.0 - pt) ** 2 + pt**2)) / nt**2
    ratio = variance / naive
    half = Z95 * math.sqrt(variance)
    # Head-to-head LOS: each unit's margin (a's points minus b's) as one observation.
    margins = [2.0 * s - m for m, s in per_unit]
    q = sum(d * d for d in margins)
    los = 0.5 * (1.0 + math.erf(sum(margins) / math.sqrt(2.0 * q))) if q > 0 else 0.5
    return Pairing(
        a=a,
        b=b,
        matches=n,
        points=points,
        score=points / n,
        lo=max(0.0, pt - half),
        hi=min(1.0, pt + half),
        pairs=pairs,
        pair_outcomes=outcomes,
        unpaired=n - 2 * pairs,
        variance=variance,
        naive_variance=naive,
        variance_ratio=ratio,
        effective_matches=n / ratio,
        los=los,
    )


def los(
    results: Iterable[Result], seat_advantage: bool = False, bootstrap: int = 1000, seed: int = 0
) -> dict[str, dict[str, float | None]]:
    """Likelihood of superiority for every two bots, ``m[a][b]``: the share of bootstrap samples of
    :func:`ratings` in which a is rated above b. None on the diagonal and between bots of different
    components. Use ``Ratings.los_matrix()`` instead when the ratings are already computed."""
    fit = ratings(results, seat_advantage=seat_advantage, bootstrap=max(bootstrap, 1), seed=seed)
    return fit.los_matrix()
