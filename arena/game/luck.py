"""The luck of a deal: how much better one seat's cards are than the other's, from the deck alone.

The referee's deck is shuffled from seeds no bot influences, so whatever a deck gives one seat more than
the other is luck. :func:`deal_luck` measures it as ``G(cards of seat 0) - G(cards of seat 1)``, where
``G`` is a fixed linear evaluation (:data:`WEIGHTS`, in game points) of a seat's dealt hand and of the
talon cards it would draw were the current leader to win every trick (the leader takes the talon's cards
at even positions, the follower those at odd ones, the last odd card and the turned card left out).

Why its mean is exactly zero whatever the bots do: with the dealer fixed, exchanging the two hands and each
pair of talon cards (2i, 2i+1) maps decks one to one onto decks, so a uniformly shuffled deck is as likely
as its exchanged twin, and ``G`` (which does not know the seat's role) turns the luck of one into minus the
luck of the other. No constant is estimated; docs/STATISTICS.md has the whole argument.

The weights were fitted once, offline, by least squares of the deal's game points (won minus lost) on
these features over real matches of the reference bots (bench/luck_bench.py fit); any fixed weights keep
the mean at zero, better ones only explain more of the outcome. Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.game.cards import KING, QUEEN, TEN, Card, cards_in
from arena.game.hand import Deal
from arena.game.variants import RuleSet

#: What :func:`seat_features` measures of one seat's cards, in order.
FEATURES: tuple[str, ...] = (
    "trump 9", "trump J", "trump Q", "trump K", "trump 10", "trump A",  # held in the dealt hand (0 or 1)
    "plain 9s", "plain Js", "plain Qs", "plain Ks", "plain 10s", "plain As",  # counted in the dealt hand
    "trump marriage", "plain marriages",  # King and Queen of one suit, both in the dealt hand
    "exchange",  # the turned card's points, when the hand holds the trump that may be exchanged for it
    "trumps squared",  # the square of the hand's trump count: length in trumps is worth more than its parts
    "drawn trumps", "drawn trump points", "drawn plain 10s and As", "drawn points",  # the seat's talon cards
)

#: G's weight for each feature, in game points of the deal (bench/luck_bench.py fit prints them).
WEIGHTS: tuple[float, ...] = (
    +0.1995,  # trump 9
    -0.0460,  # trump J
    +0.3736,  # trump Q
    +0.4098,  # trump K
    +0.1750,  # trump 10
    +0.3488,  # trump A
    -0.3593,  # plain 9s
    -0.3678,  # plain Js
    -0.2055,  # plain Qs
    -0.1694,  # plain Ks
    -0.2665,  # plain 10s
    -0.0923,  # plain As
    +0.4226,  # trump marriage
    +0.2737,  # plain marriages
    -0.0084,  # exchange
    -0.0173,  # trumps squared
    -0.0313,  # drawn trumps
    +0.0051,  # drawn trump points
    +0.0162,  # drawn plain 10s and As
    -0.0007,  # drawn points
)


def seat_features(rules: RuleSet, hand: int, drawn: int, trump_card: Card) -> list[float]:
    """The :data:`FEATURES` of one seat: ``hand`` and ``drawn`` are card masks (``1 << card``)."""
    trump = trump_card.suit
    out = [0.0] * len(FEATURES)
    trumps = 0
    for card in cards_in(hand):
        if card.suit == trump:
            out[card.rank] = 1.0
            trumps += 1
        else:
            out[6 + card.rank] += 1.0
    for suit in range(4):
        king_queen = (1 << (6 * suit + KING)) | (1 << (6 * suit + QUEEN))
        if hand & king_queen == king_queen:
            out[12 if suit == trump else 13] += 1.0
    exchange = rules.exchange_rank_index
    if exchange >= 0 and hand >> (6 * trump + exchange) & 1:
        out[14] = float(trump_card.points)
    out[15] = float(trumps * trumps)
    for card in cards_in(drawn):
        if card.suit == trump:
            out[16] += 1.0
            out[17] += card.points
        elif card.rank >= TEN:
            out[18] += 1.0
        out[19] += card.points
    return out


def deal_seat_features(rules: RuleSet, deck: Sequence[Card], dealer: int) -> tuple[list[float], list[float]]:
    """Both seats' :data:`FEATURES` for a deal dealt from ``deck`` by ``dealer`` (by seat)."""
    deal = Deal(rules, deck, dealer, check_deck=False)
    talon = deal.talon  # index 0 is drawn first; the turned card is last
    drawn = [0, 0]
    leader = deal.leader
    for i in range((len(talon) - 1) // 2):
        drawn[leader] |= 1 << talon[2 * i]
        drawn[1 - leader] |= 1 << talon[2 * i + 1]
    turned = deal.turned_card
    return (seat_features(rules, deal.hands[0], drawn[0], turned),
            seat_features(rules, deal.hands[1], drawn[1], turned))


def deal_luck(rules: RuleSet, deck: Sequence[Card], dealer: int,
              weights: Sequence[float] = WEIGHTS) -> float:
    """Seat 0's luck in a deal, in game points: G(seat 0's cards) - G(seat 1's); seat 1's is its negative.

    Its mean over uniformly shuffled decks is exactly 0 for either dealer and any ``weights``."""
    f0, f1 = deal_seat_features(rules, deck, dealer)
    return sum(w * (a - b) for w, a, b in zip(weights, f0, f1, strict=True))
