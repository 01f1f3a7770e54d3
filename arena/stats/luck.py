"""The luck-adjusted score: a match's score less what the cards alone explain of it (docs/STATISTICS.md).

For deal k of a match, ``luck_k`` is seat 0's luck in the cards (arena.game.luck.deal_luck: exactly zero in
mean over shuffled decks, whoever deals). A deal's luck matters as much as the deal can change the match:
:func:`leverage` weighs it by the difference, at the score before the deal, between winning and losing it
(a coin-toss model of the rest of the match). The match's luck is ``sum_k leverage(score before k) *
luck_k``, and the adjusted score ``score - beta * luck`` with :data:`BETA` fixed in advance.

Why it is unbiased: the deck of deal k is shuffled from seeds no bot knows, independently of everything that
happened before it, and the leverage is fixed by the score before it; so each term has mean zero given the
past, whatever the bots do, and so has their sum over a match (a bounded number of deals). Hence the
adjusted score's mean is the raw score's, for any fixed ``beta``; a good ``beta`` only makes it less noisy.

Pure code: no I/O.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.stats.results import Z95, Result, units

#: The share of deals won by 1, 2 and 3 game points in the leverage's coin-toss model (the reference bots'
#: deals, bench/luck_bench.py fit).
GAME_POINT_SHARES: tuple[float, float, float] = (0.529, 0.397, 0.074)
#: The adjusted score's weight on the match's luck, fixed in advance (bench/luck_bench.py fit).
BETA = 0.5375
#: The intervals' variance starts from this many virtual units of a coin toss's variance (0.25 a match, the
#: k-th of it for a unit of k matches): the spread of a few alike units is no 95% interval.
PRIOR_UNITS = 2
PRIOR_VARIANCE = 0.25


@functools.lru_cache(maxsize=4096)
def win_chance(need: int, other_needs: int) -> float:
    """The chance of winning the match for a seat that needs ``need`` game points while its opponent needs
    ``other_needs``, when every deal is a fair coin worth 1, 2 or 3 game points (GAME_POINT_SHARES)."""
    if need <= 0:
        return 1.0
    if other_needs <= 0:
        return 0.0
    return sum(share * 0.5 * (win_chance(need - g, other_needs) + win_chance(need, other_needs - g))
               for g, share in zip((1, 2, 3), GAME_POINT_SHARES, strict=True))


def leverage(need: int, other_needs: int) -> float:
    """What a deal can change in the match: the chance of winning the match after winning the deal less
    that after losing it, halved: ½ for a deal that decides the match, near 0 for one that hardly matters."""
    won = sum(share * win_chance(need - g, other_needs) for g, share in zip((1, 2, 3), GAME_POINT_SHARES, strict=True))
    lost = sum(share * win_chance(need, other_needs - g) for g, share in zip((1, 2, 3), GAME_POINT_SHARES, strict=True))
    return (won - lost) / 2


def match_luck(deal_luck: Sequence[float], deals: Sequence[tuple[int | None, int]], target: int) -> float:
    """Seat 0's luck in a match: ``deal_luck[k]`` is its luck in deal k, ``deals[k]`` that deal's (winner
    seat or None, game points); the score before each deal sets its leverage. Seat 1's luck is minus it."""
    score = [0, 0]
    total = 0.0
    for luck, (winner, points) in zip(deal_luck, deals, strict=False):
        total += leverage(target - score[0], target - score[1]) * luck
        if winner in (0, 1):
            score[winner] += points
    return total


def adjusted(score: float, luck: float, beta: float = BETA) -> float:
    """The luck-adjusted score of a match (or of a pair, with the pair's mean score and mean luck)."""
    return score - beta * luck


@dataclass(frozen=True)
class LuckAdjusted:
    """A bot's mean score against one opponent, raw and luck-adjusted, with 95% intervals.

    The unit is the duplicate pair when ``paired`` (the mean of its two matches), else the match: the
    intervals are normal ones from the units' spread, ``mean ± 1.96 sd / sqrt(units)``, the variance pooled
    with two virtual units of a unit's coin-toss variance (0.25 a match, 0.125 a pair).
    ``variance_ratio`` is the adjusted score's variance over the raw score's (without the virtual units):
    the share of matches the adjustment needs for the same precision."""

    units: int
    paired: bool
    raw: float
    raw_lo: float
    raw_hi: float
    score: float
    lo: float
    hi: float
    variance_ratio: float | None
    matches: int = 0  # the matches the units hold (two a pair, one a match without its twin)

    def as_dict(self) -> dict[str, object]:
        return {"units": self.units, "unit": "pair" if self.paired else "match", "matches": self.matches,
                "raw": round(self.raw, 4),
                "raw_interval": [round(self.raw_lo, 4), round(self.raw_hi, 4)], "adjusted": round(self.score, 4),
                "interval": [round(self.lo, 4), round(self.hi, 4)],
                "variance_ratio": None if self.variance_ratio is None else round(self.variance_ratio, 4)}


def luck_adjusted(units: Sequence[tuple[float, float]], paired: bool, beta: float = BETA,
                  sizes: Sequence[int] | None = None) -> LuckAdjusted | None:
    """From ``(score, luck)`` per unit (a pair's mean score and mean luck, or one match's), from the bot's
    side, and each unit's matches (``sizes``: 2 a unit when ``paired``, else 1, unless given); None without
    units. The means are per match (a unit counts as many times as it has matches, so the raw one is the
    share of matches won, what the standings show), with the ratio estimator's variance over the units."""
    if not units:
        return None
    size = [float(m) for m in sizes] if sizes is not None else [2.0 if paired else 1.0] * len(units)
    matches = sum(size)
    raw = [m * s for m, (s, _) in zip(size, units, strict=True)]  # a unit's points, and adjusted points
    adj = [m * adjusted(s, luck, beta) for m, (s, luck) in zip(size, units, strict=True)]
    m_raw, m_adj = sum(raw) / matches, sum(adj) / matches
    q_raw = sum((x - m_raw * m) ** 2 for x, m in zip(raw, size, strict=True))
    q_adj = sum((x - m_adj * m) ** 2 for x, m in zip(adj, size, strict=True))
    n = len(units)
    # the variance starts from virtual units (a unit's variance were its matches coin tosses, 0.25 a
    # match): the spread of a few alike units, 0 for a bot that won them all, is no 95% interval
    virtual = PRIOR_UNITS * PRIOR_VARIANCE * matches / n
    h_raw, h_adj = (Z95 * math.sqrt(n * (q + virtual) / (matches**2 * (n - 1 + PRIOR_UNITS)))
                    for q in (q_raw, q_adj))
    # a share of matches won lies in [0, 1]; the adjusted score, and so its interval, may leave it
    raw_lo, raw_hi = max(m_raw - h_raw, 0.0), min(m_raw + h_raw, 1.0)
    return LuckAdjusted(n, paired, m_raw, raw_lo, raw_hi, m_adj, m_adj - h_adj, m_adj + h_adj,
                        q_adj / q_raw if q_raw > 1e-12 else None, round(matches))


def luck_table(results: Sequence[Result], lucks: Sequence[float], beta: float = BETA) -> dict[str, LuckAdjusted]:
    """Every bot's raw and luck-adjusted mean score over its matches. ``lucks[i]`` is seat 0's (that is
    ``results[i].first``'s) luck in ``results[i]``. The matches of a duplicate pair (one ``pair`` id) make
    one unit, the mean of the bot's two; a match without a pair is a unit of its own."""
    luck_of = {id(r): luck for r, luck in zip(results, lucks, strict=True)}
    means: dict[str, list[tuple[float, float]]] = {}  # per bot: each unit's mean score and mean luck
    sizes: dict[str, list[int]] = {}  # per bot: each unit's matches
    paired: dict[str, bool] = {}
    for unit in units(results):
        for bot in dict.fromkeys((unit[0].first, unit[0].second)):
            own = [(r.score, luck_of[id(r)]) if r.first == bot else (1.0 - r.score, -luck_of[id(r)]) for r in unit]
            means.setdefault(bot, []).append((sum(s for s, _ in own) / len(own), sum(x for _, x in own) / len(own)))
            sizes.setdefault(bot, []).append(len(own))
            paired[bot] = paired.get(bot, False) or len(unit) == 2
    out: dict[str, LuckAdjusted] = {}
    for bot, bot_means in means.items():
        fig = luck_adjusted(bot_means, paired=paired[bot], beta=beta, sizes=sizes[bot])
        if fig is not None:
            out[bot] = fig
    return out
