"""What the standings count of a finished match (arena.stats.standings' MatchFacts), built alike from a
MatchRecord (`record_facts`, for `arena match`) and from the database's rows (`Store.match_facts`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.game.cards import parse_cards
from arena.game.hand import parse_seat_action
from arena.game.luck import deal_luck
from arena.game.variants import RuleSet
from arena.referee.record import MatchRecord
from arena.stats.luck import match_luck
from arena.stats.standings import DealFacts, MatchFacts, TerminationFacts


# The standings' facts of a match, from a MatchRecord (`record_facts`) or from its rows (`Store.match_facts`):
# both go through `_match_facts` and `_deal_facts`, so `arena match` and the report count alike.
def record_facts(rec: MatchRecord) -> MatchFacts:
    """What the standings count of a finished match (`Store.match_facts` reads the same back)."""
    return _match_facts(
        rec.match_id, rec.bots, rec.winner, rec.score,
        [_deal_facts(d.get("winner"), d.get("game_points"), " ".join(d.get("actions") or ())) for d in rec.deals],
        [TerminationFacts(t.bot, str(t.kind)) for t in rec.terminations], rec.think_ms,
    )


def record_luck(rec: MatchRecord) -> float:
    """Seat 0's luck in a finished match (`Store.match_luck` reads the same back)."""
    return _match_luck(RuleSet.from_dict(rec.rules),
                       [(d.get("dealer"), str(d.get("deck") or ""), d.get("winner"), d.get("game_points"))
                        for d in rec.deals])


def _match_luck(rules: RuleSet, deals: Sequence[tuple[int | None, str, int | None, int | None]]) -> float:
    """Seat 0's luck (arena.stats.luck.match_luck) from each deal's (dealer, deck text, winner, game points);
    a deal whose deck or dealer is not stored (a corrupt row) counts no luck."""
    lucks: list[float] = []
    for dealer, deck, _, _ in deals:
        cards = parse_cards(deck) if deck else []
        whole = dealer in (0, 1) and len(cards) == rules.deck_size
        lucks.append(deal_luck(rules, cards, dealer) if whole and dealer is not None else 0.0)
    return match_luck(lucks, [(w if w in (0, 1) else None, gp or 0) for _, _, w, gp in deals], rules.match_target)


def _match_facts(
    match_id: str,
    bots: Sequence[str],
    winner: int | None,
    score: Sequence[int | None],
    deals: Iterable[DealFacts],
    terminations: Iterable[TerminationFacts],
    think_ms: Sequence[Iterable[float]],
) -> MatchFacts:
    return MatchFacts(
        match_id, (bots[0], bots[1]), winner if winner in (0, 1) else None, (score[0] or 0, score[1] or 0),
        tuple(deals), tuple(terminations), (tuple(think_ms[0]), tuple(think_ms[1])),
    )


def _deal_facts(winner: int | None, game_points: int | None, actions: str) -> DealFacts:
    """A deal's facts from its winner, game points and actions (space-separated, as the database holds them)."""
    counts = [0, 0, 0, 0]  # closes by seat, marriages by seat
    if "close" in actions or "marriage" in actions:  # else there is nothing to count: skip the parsing
        for text in actions.split():
            i = _COUNTED.get(text)
            if i is None:
                if len(_COUNTED) > 10_000:  # only a corrupt database has that many different actions
                    _COUNTED.clear()
                i = _COUNTED[text] = _counted(text)
            if i >= 0:
                counts[i] += 1
    decided = winner in (0, 1)
    return DealFacts(winner if decided else None, (game_points or 0) if decided else 0,
                     (counts[0], counts[1]), (counts[2], counts[3]))


def _counted(text: str) -> int:
    """Where `_deal_facts` counts an action: 0/1 a close by seat 0/1, 2/3 a marriage, -1 nowhere (also for
    an action that cannot be read: a corrupt row counts for nothing, and its replay shows where it is)."""
    try:
        seat, action = parse_seat_action(text)
    except ValueError:
        return -1
    if action.kind == "close":
        return seat
    if action.kind == "marriage":
        return 2 + seat
    return -1


_COUNTED: dict[str, int] = {}  # action text -> where it counts: a tournament repeats the same few hundred
