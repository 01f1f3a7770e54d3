"""The input of every statistic: a list of match results, and how they group into resampling units."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class Result:
    """One finished match.

    ``first`` sat in seat 0 and ``second`` in seat 1. ``score`` is the first bot's score: 1.0 if it won the
    match, 0.0 if it lost (0.5 is accepted, for robustness, as half a win for each). The two matches of a
    duplicate pair (same deals, seats swapped) share a ``pair`` id; statistics then treat the pair as one
    observation, because the two matches are not independent (the same lucky deals go once to each bot).
    """

    first: str
    second: str
    score: float
    pair: str | None = None


def check_results(results: Iterable[Result]) -> list[Result]:
    """The results as a list, or ValueError naming the first bad one."""
    out = list(results)
    for n, r in enumerate(out):
        if not isinstance(r, Result):
            raise ValueError(f"result #{n} is not a Result: {r!r}")
        if not r.first or not r.second:
            raise ValueError(f"result #{n} has an empty bot name: {r!r}")
        if r.first == r.second:
            raise ValueError(f"result #{n}: bot {r.first!r} cannot play itself")
        if not (isinstance(r.score, int | float) and math.isfinite(r.score) and 0.0 <= r.score <= 1.0):
            raise ValueError(f"result #{n}: score must be between 0 and 1, got {r.score!r}")
    return out


def bots_in_order(results: Sequence[Result]) -> list[str]:
    """Every bot, in order of first appearance (first seat before second seat)."""
    seen: dict[str, None] = {}
    for r in results:
        seen.setdefault(r.first, None)
        seen.setdefault(r.second, None)
    return list(seen)


def units(results: Sequence[Result]) -> list[list[Result]]:
    """The resampling units: all results sharing a ``pair`` id form one unit, every other result its own.

    Units come in order of first appearance. A pair id used by matches of different bot pairings is an
    error (it would tie unrelated matches together).
    """
    out: list[list[Result]] = []
    by_pair: dict[str, list[Result]] = {}
    for r in results:
        if r.pair is None:
            out.append([r])
            continue
        unit = by_pair.get(r.pair)
        if unit is None:
            unit = by_pair[r.pair] = []
            out.append(unit)
        elif {unit[0].first, unit[0].second} != {r.first, r.second}:
            raise ValueError(
                f"pair {r.pair!r} mixes pairings: {unit[0].first} v {unit[0].second} "
                f"and {r.first} v {r.second}"
            )
        unit.append(r)
    return out


def components(bots: Sequence[str], results: Sequence[Result]) -> list[list[str]]:
    """Connected components of the graph "played at least one match", largest first (ties: first seen)."""
    parent = {b: b for b in bots}

    def find(b: str) -> str:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for r in results:
        ra, rb = find(r.first), find(r.second)
        if ra != rb:
            parent[rb] = ra
    groups: dict[str, list[str]] = {}
    for b in bots:
        groups.setdefault(find(b), []).append(b)
    order = {b: n for n, b in enumerate(bots)}
    return sorted(groups.values(), key=lambda g: (-len(g), order[g[0]]))
