"""A finished match's luck (`record_luck`; `Store.match_luck` reads the same from the stored decks and
actions). What the standings count of it is the record's own `MatchRecord.facts()`; `Store.match_facts` reads
the same from the rows with the record's `match_facts` and `deal_facts`, so the two cannot disagree."""

from __future__ import annotations

from collections.abc import Sequence

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.luck import deal_luck
from arena.game.variants import RuleSet
from arena.referee.record import MatchRecord
from arena.stats.luck import match_luck


def record_luck(rec: MatchRecord) -> float:
    """Seat 0's luck in a finished match (`Store.match_luck` reads the same back)."""
    return _match_luck(rec.rules, [(d.dealer, d.deck, d.actions, d.winner, d.game_points) for d in rec.deals])


LuckDeal = tuple[int | None, Sequence[Card], Sequence[tuple[int, Action]], int | None, int | None]


def _match_luck(rules: RuleSet, deals: Sequence[LuckDeal]) -> float:
    """Seat 0's luck (arena.stats.luck.match_luck) from each deal's (dealer, deck, actions, winner, game
    points); a deal whose deck or dealer is not stored (a corrupt row) counts no luck, and one whose actions
    do not replay counts its dealt cards' only."""
    lucks: list[float] = []
    for dealer, cards, actions, _, _ in deals:
        if dealer not in (0, 1) or dealer is None or len(cards) != rules.deck_size:
            lucks.append(0.0)
            continue
        try:
            lucks.append(deal_luck(rules, list(cards), dealer, actions))
        except ValueError:
            lucks.append(deal_luck(rules, list(cards), dealer))
    return match_luck(lucks, [(w if w in (0, 1) else None, gp or 0) for *_, w, gp in deals], rules.match_target)
