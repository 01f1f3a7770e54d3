"""Per-bot aggregates over deals, from simple counters the store supplies."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BotDealStats:
    """Counters for one bot over all its deals (the store fills these in).

    ``game_points`` are the game points the bot won, summed over deals (a lost deal adds 0). ``closes``
    counts deals in which the bot closed the stock (or, in Schnapsen, turned the trump), ``closes_won``
    those of them it won. ``terminations`` counts how the bot's deals ended, by kind (e.g. "sixty-six",
    "last-trick", "closed", "timeout", "illegal", "crash"; the kinds are whatever the store records).
    ``think_times_ms`` holds the bot's time per decision.
    """

    deals: int = 0
    deals_won: int = 0
    game_points: int = 0
    closes: int = 0
    closes_won: int = 0
    marriages: int = 0
    terminations: Mapping[str, int] = field(default_factory=dict)
    think_times_ms: Sequence[float] = ()


@dataclass(frozen=True)
class DealSummary:
    """The figures a report shows per bot; rates are None when their denominator is 0."""

    deals: int
    deal_win_rate: float | None
    game_points_per_deal: float | None
    closes: int
    closes_won: int
    close_win_rate: float | None
    marriages: int
    marriages_per_deal: float | None
    terminations: dict[str, int]
    think_median_ms: float | None
    think_worst_ms: float | None


def summarize_deals(stats: BotDealStats) -> DealSummary:
    """Rates and think-time figures from one bot's counters (ValueError if the counters contradict)."""
    for name in ("deals", "deals_won", "game_points", "closes", "closes_won", "marriages"):
        if getattr(stats, name) < 0:
            raise ValueError(f"{name} cannot be negative, got {getattr(stats, name)!r}")
    if stats.deals_won > stats.deals:
        raise ValueError(f"deals_won ({stats.deals_won}) exceeds deals ({stats.deals})")
    if stats.closes > stats.deals or stats.closes_won > stats.closes:
        raise ValueError(
            f"need closes_won <= closes <= deals, got {stats.closes_won}, {stats.closes}, {stats.deals}"
        )
    d = stats.deals
    times = list(stats.think_times_ms)
    return DealSummary(
        deals=d,
        deal_win_rate=stats.deals_won / d if d else None,
        game_points_per_deal=stats.game_points / d if d else None,
        closes=stats.closes,
        closes_won=stats.closes_won,
        close_win_rate=stats.closes_won / stats.closes if stats.closes else None,
        marriages=stats.marriages,
        marriages_per_deal=stats.marriages / d if d else None,
        terminations=dict(sorted(stats.terminations.items(), key=lambda kv: (-kv[1], kv[0]))),
        think_median_ms=statistics.median(times) if times else None,
        think_worst_ms=max(times) if times else None,
    )
