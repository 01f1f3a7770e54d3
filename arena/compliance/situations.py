"""The situations bots get wrong, found with the rules engine alone (pure: no I/O, no trio).

``offered(deal, seat)`` names what a decision puts before a seat: a follow rule that narrows its answer
(follow suit, head the led card, trump), a marriage, an exchange, a close, a declaration of 66. `arena check`
uses it twice: to search deal seeds where a situation arises at the bot's very first decision, whatever the
bot does, and to replay the matches it played and see which situations the bot really met and answered.

``never_arises(rules, situation)`` says why a rule set can never produce a situation (a check of it then does
not apply). Where the rules can produce a follow rule but not at a first decision (the talon is free while it
lasts and cannot be closed), ``steered_setups`` finds deals in which the steering opponent (opponent.py
``--steer``) forces it on the bot once the talon has run out, against every model bot tried.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from arena.compliance import opponent as steering
from arena.game.actions import CLOSE, PLAY, Action
from arena.game.actions import DECLARE as DECLARE_ACTION
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
_STEER_SEARCH = 30  # deal seeds tried for a steered set-up that forces the rule against every model bot


def never_arises(rules: RuleSet, situation: str) -> str | None:
    """Why ``rules`` never put ``situation`` before a seat, or None when some deal can."""
    talon = rules.deck_size - 2 * rules.hand_size  # a full talon, the turned card included
    if situation == FOLLOW and not rules.must_follow_suit:
        return "must_follow_suit=false: no rule makes a seat follow suit"
    if situation == HEAD and not (rules.must_follow_suit and rules.must_head):
        return "must_head=false: no rule makes a seat beat the led card" if rules.must_follow_suit else \
            "must_follow_suit=false: no rule makes a seat follow suit, nor beat the led card"
    if situation == TRUMP and not rules.must_trump:
        return "must_trump=false: no rule makes a seat trump"
    if situation == EXCHANGE:
        if rules.exchange_rank == "none":
            return "exchange_rank=none: there is no exchange"
        if rules.exchange_min_talon > talon:
            return f"exchange_min_talon={rules.exchange_min_talon} is more than a full talon ({talon} cards)"
    if situation == CLOSE_TALON:
        if rules.close_min is None:
            return "close_min_talon=none: closing is never legal"
        if rules.close_min > talon:
            return f"close_min_talon={rules.close_min} is more than a full talon ({talon} cards)"
    if situation == DECLARE and rules.declare_66 != "manual":
        return "declare_66=automatic: the deal ends at 66 by itself, nobody declares"
    return None


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
    steered: bool = False  # the opponent steers towards ``kind`` (opponent.py --steer) rather than playing at random

    def talon(self, rules: RuleSet) -> str:
        """The deal's talon as dealt, in drawing order (the steering opponent's --talon)."""
        deal = Deal(rules, shuffled_deck(rules, self.deal_seed, 0), first_dealer(self.deal_seed), check_deck=False)
        return ",".join(map(str, deal.talon))

    def describe(self) -> str:
        if self.steered:
            return f"the opponent steers the deal until the talon has run out, then forces {self.kind}"
        if self.kind == LEAD:
            return "the bot leads the first trick"
        if "close" not in self.script:  # closing is never legal, and the follow rules bind from the start
            return f"the opponent leads {self.script[-1].split(':')[1]}"
        return f"the opponent closes the talon and leads {self.script[-1].split(':')[1]}"


def lead_wants(rules: RuleSet) -> frozenset[str]:
    """What the bot's first lead should offer: a marriage, and a close and an exchange where the rules have
    them (not with ``close_min_talon=none``, ``exchange_rank=none``, ...: see never_arises)."""
    return frozenset(k for k in (MARRIAGE, CLOSE_TALON, EXCHANGE) if never_arises(rules, k) is None)


def find_setup(rules: RuleSet, kind: str, seed: int) -> SetUp | None:
    """The first deal seed (derived from ``seed``) where the set-up ``kind`` puts its situations before the bot
    at its first decision, whatever the bot does; None if the rules never allow it within the search."""
    if kind not in SETUPS:
        raise ValueError(f"unknown set-up {kind!r}")
    if kind != LEAD and never_arises(rules, kind) is not None:
        return None
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


Model = Callable[[Deal, int, list[Action]], Action]


def _models(seed: int) -> list[Model]:
    """Bots the steered deals are tried against: first and last legal, a cheap greedy, and random ones. None
    declares 66 (a wrong declaration ends the deal, and no deal can be chosen around one)."""

    def legal_plays(legal: list[Action]) -> list[Action]:
        return [a for a in legal if a is not DECLARE_ACTION] or legal

    def greedy(deal: Deal, seat: int, legal: list[Action]) -> Action:
        plays = [a for a in legal if a.kind == "play"]
        if not plays:
            return legal_plays(legal)[0]
        led = deal.led
        if led is not None and led.points >= 10:
            wins = [a for a in plays if a.card is not None and (a.card.rank > led.rank if a.card.suit == led.suit
                                                                else a.card.suit == deal.trump)]
            if wins:
                return min(wins, key=lambda a: a.card.points if a.card else 0)
        return min(plays, key=lambda a: a.card.points if a.card else 0)

    def seeded(n: int) -> Model:
        rng = random.Random(seed * 7 + n)
        return lambda deal, seat, legal: rng.choice(legal_plays(legal))

    return [lambda deal, seat, legal: legal_plays(legal)[0], lambda deal, seat, legal: legal_plays(legal)[-1],
            greedy, seeded(0)]


def _steered_reaches(rules: RuleSet, deal_seed: int, bot: int, kind: str, model: Model) -> bool:
    """Does the steering opponent put ``kind`` before ``model`` in this deal?"""
    from arena.protocol.codec import rules_to_wire, turn_line

    wire = rules_to_wire(rules)
    deal = Deal(rules, shuffled_deck(rules, deal_seed, 0), first_dealer(deal_seed), check_deck=False)
    talon = steering.cards(",".join(map(str, deal.talon)))
    while not deal.over:
        seat = deal.to_move
        legal = deal.legal_actions(seat)
        if seat == bot:
            if kind in offered(deal, seat):
                return True
            action = model(deal, seat, legal)
        else:
            turn = dict(w.split("=", 1) for w in turn_line(deal, seat, (0, 0), legal, 0, None).split()[1:])
            action = Action.parse(steering.steer(kind, turn, turn["legal"].split(","), wire, talon).replace(":", " "))
        deal.apply(action, seat)
    return False


def steered_setups(rules: RuleSet, kind: str, seed: int) -> Iterator[SetUp]:
    """Deals for a follow rule the rules produce only once the talon has run out, best first: those where the
    steering opponent forces ``kind`` on every model bot, then (after _STEER_SEARCH seeds) any deal."""
    if kind not in FORCED:
        raise ValueError(f"not a follow rule: {kind!r}")
    if never_arises(rules, kind) is not None:
        return
    models = _models(seed)
    for i in range(_TRIES):
        deal_seed = derive_seed("arena-check", seed, rules.name, kind, "steered", i)
        setup = SetUp(kind, deal_seed, i % 2, (), steered=True)
        if i >= _STEER_SEARCH:
            yield setup
        elif all(_steered_reaches(rules, deal_seed, setup.bot_seat, kind, m) for m in models):
            yield setup


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
