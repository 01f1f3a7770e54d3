"""The situations bots get wrong, found with the rules engine alone (pure: no I/O, no trio).

``offered(deal, seat)`` names what a decision puts before a seat: a follow rule that narrows its answer
(follow suit, head the led card, trump), a marriage, an exchange, a close, a declaration of 66. `arena check`
uses it twice: to search deal seeds where a situation arises at the bot's very first decision, whatever the
bot does, and to replay the matches it played and see which situations the bot really met and answered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arena.game.actions import CLOSE, PLAY, Action
from arena.game.hand import Deal
from arena.game.match import first_dealer, shuffled_deck
from arena.game.variants import RuleSet
from arena.referee.record import DealRecord
from arena.seeds import derive_seed

FOLLOW = "follow"  # the follow rules make the seat follow suit (and it cannot, or need not, head)
HEAD = "head"  # the seat must beat the led card in its suit, though it holds a lower card of that suit
TRUMP = "trump"  # void in the led suit, the seat must trump, though it holds other cards
MARRIAGE = "marriage"
EXCHANGE = "exchange"
CLOSE_TALON = "close"
DECLARE = "declare"  # declare_66=manual: declaring is always legal (a wrong one loses the deal)

FORCED = (FOLLOW, HEAD, TRUMP)
# What a set-up deal arranges: the bot leads the first trick (exchange, marriage and close are offered), or
# the opponent closes the talon and leads a card that forces one of the follow rules on the bot.
LEAD = "lead"
SETUPS = (LEAD, FOLLOW, HEAD, TRUMP)
_TRIES = 20_000  # deal seeds searched per set-up; each kind turns up within a few dozen in every preset


def offered(deal: Deal, seat: int) -> frozenset[str]:
    """The situations the seat's decision now puts before it (empty when it is not the seat's turn)."""
    legal = deal.legal_actions(seat)
    kinds = {a.kind for a in legal}
    out = {name for kind, name in (("marriage", MARRIAGE), ("exchange", EXCHANGE), ("close", CLOSE_TALON),
                                   ("declare", DECLARE)) if kind in kinds}
    led = deal.led
    if led is not None:
        plays = {a.card for a in legal if a.kind == "play"}
        hand = set(deal.hand(seat))
        if plays and plays < hand:  # a follow rule narrows the answer
            same = [c for c in hand if c.suit == led.suit]
            if all(c is not None and c.suit == led.suit for c in plays):
                heads = all(c is not None and c.rank > led.rank for c in plays)
                out.add(HEAD if heads and any(c.rank < led.rank for c in same) else FOLLOW)
            elif not same and all(c is not None and c.suit == deal.trump for c in plays):
                out.add(TRUMP)
    return frozenset(out)


def can_declare_rightly(deal: Deal, seat: int) -> bool:
    """A declaration of 66 now would win the deal (the seat has a trick and 66 counted points)."""
    return deal.tricks[seat] > 0 and deal.total(seat) >= 66


@dataclass(frozen=True)
class SetUp:
    """One deal to play as a one-deal match: its seed, the bot's seat, and the opponent's first actions."""

    kind: str  # LEAD, FOLLOW, HEAD or TRUMP
    deal_seed: int
    bot_seat: int
    script: tuple[str, ...]  # action tokens the opponent plays first (close, play:Kd), then it plays at random

    def describe(self) -> str:
        if self.kind == LEAD:
            return "the bot leads the first trick"
        if "close" not in self.script:  # closing is never legal, and the follow rules bind from the start
            return f"the opponent leads {self.script[-1].split(':')[1]}"
        return f"the opponent closes the talon and leads {self.script[-1].split(':')[1]}"


def lead_wants(rules: RuleSet) -> frozenset[str]:
    """What the bot's first lead should offer: a marriage, and a close and an exchange where the rules have
    them (``close_min_talon=none``, ``exchange_rank=none``)."""
    return frozenset({MARRIAGE} | ({CLOSE_TALON} if rules.close_min is not None else set())
                     | ({EXCHANGE} if rules.exchange_rank != "none" else set()))


def find_setup(rules: RuleSet, kind: str, seed: int) -> SetUp | None:
    """The first deal seed (derived from ``seed``) where the set-up ``kind`` puts its situations before the bot
    at its first decision, whatever the bot does; None if the rules never allow it within the search."""
    if kind not in SETUPS:
        raise ValueError(f"unknown set-up {kind!r}")
    for i in range(_TRIES):
        deal_seed = derive_seed("arena-check", seed, rules.name, kind, i)
        dealer = first_dealer(deal_seed)
        deck = shuffled_deck(rules, deal_seed, 0)
        if kind == LEAD:
            bot = 1 - dealer
            if lead_wants(rules) <= offered(Deal(rules, deck, dealer, check_deck=False), bot):
                return SetUp(kind, deal_seed, bot, ())
            continue
        bot, opponent = dealer, 1 - dealer
        first = Deal(rules, deck, dealer, check_deck=False)
        close = CLOSE in first.legal_actions(opponent)
        if not close and not first.strict:
            return None  # these rules never let the leader close at once, nor follow rules bind the first trick
        for card in first.hand(opponent):
            deal = Deal(rules, deck, dealer, check_deck=False)
            if close:
                deal.apply(CLOSE, opponent)
            deal.apply(PLAY[card], opponent)
            if kind in offered(deal, bot):
                return SetUp(kind, deal_seed, bot, ("close", f"play:{card}") if close else (f"play:{card}",))
    return None


@dataclass(frozen=True)
class Decision:
    """One decision of the bot in a played match, replayed: what it was offered and what it answered."""

    deal: int
    situations: frozenset[str]
    answer: Action | None  # None: the bot's part ended at this decision (see the match's termination)
    could_declare: bool  # a declaration would have been right (66 points and a trick)


def decisions(rules: RuleSet, deals: Sequence[DealRecord], seat: int, ended_in: int | None) -> Iterator[Decision]:
    """Replay a match's deals (``MatchRecord.deals``) and yield every decision of ``seat``; when its part ended
    during deal ``ended_in`` while the decision was its own, the last one comes with no answer."""
    for index, record in enumerate(deals):
        deal = Deal(rules, record.deck, record.dealer, check_deck=False)
        for who, action in record.actions:
            if who == seat:
                yield Decision(index, offered(deal, seat), action, can_declare_rightly(deal, seat))
            deal.apply(action, who)
        if index == ended_in and not deal.over and deal.to_move == seat:
            yield Decision(index, offered(deal, seat), None, can_declare_rightly(deal, seat))
