"""The luck of a deal: how much better one seat's cards are than the other's, as the cards fell.

The referee's deck is shuffled from seeds no bot influences, so whatever a deck gives one seat more than
the other is luck. :func:`deal_luck` measures it in two parts, both in game points, from seat 0's side:

- **The dealt cards**: ``G(cards of seat 0) - G(cards of seat 1)``, where ``G`` is a fixed linear
  evaluation (:data:`WEIGHTS`) of a seat's dealt hand and of the talon cards it would draw were the current
  leader to win every trick (the leader takes the talon's cards at even positions, the follower those at odd
  ones, the last odd card and the turned card left out). Its mean is exactly zero whatever the bots do:
  with the dealer fixed, exchanging the two hands and each pair of talon cards (2i, 2i+1) maps decks one to
  one onto decks, so a uniformly shuffled deck is as likely as its exchanged twin, and ``G`` (which does not
  know the seat's role) turns the luck of one into minus the luck of the other.
- **The draws** (AIVAT's correction at each chance event, Burch et al. 2018): after each trick while the
  talon is open, the winner draws the next face-down card and the loser the one after it (or the face-up
  trump, which is no chance). Given everything that happened before, the face-down cards still lie in a
  uniformly random order (no bot has seen them), so a fixed value ``h`` of the card a seat draws, less the
  mean of ``h`` over the face-down cards it could have drawn, has mean zero given the past, whatever the
  bots do. ``h`` (:data:`DRAW_WEIGHTS`, one set for the trick's winner and one for its loser) values the
  card's rank and whether it is a trump, and whether it completes a marriage with a card the seat holds.

No constant is estimated; docs/STATISTICS.md has the whole argument. The weights were fitted once, offline,
by least squares of the deal's game points (won minus lost) on both parts' features together, over real
matches of the reference bots (bench/luck_bench.py fit); any fixed weights keep the mean at zero, better
ones only explain more of the outcome. Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.game.actions import Action
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
    +0.1768,  # trump 9
    -0.0575,  # trump J
    +0.3425,  # trump Q
    +0.3877,  # trump K
    +0.1789,  # trump 10
    +0.3388,  # trump A
    -0.3400,  # plain 9s
    -0.3475,  # plain Js
    -0.1957,  # plain Qs
    -0.1632,  # plain Ks
    -0.2495,  # plain 10s
    -0.0713,  # plain As
    +0.4816,  # trump marriage
    +0.2619,  # plain marriages
    -0.0081,  # exchange
    -0.0105,  # trumps squared
    -0.0223,  # drawn trumps
    +0.0022,  # drawn trump points
    -0.0026,  # drawn plain 10s and As
    +0.0016,  # drawn points
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
    return _dealt_features(Deal(rules, deck, dealer, check_deck=False))


def _dealt_features(deal: Deal) -> tuple[list[float], list[float]]:
    """Both seats' :data:`FEATURES` of a deal not yet played."""
    rules = deal.rules
    talon = deal.talon  # index 0 is drawn first; the turned card is last
    drawn = [0, 0]
    leader = deal.leader
    for i in range((len(talon) - 1) // 2):
        drawn[leader] |= 1 << talon[2 * i]
        drawn[1 - leader] |= 1 << talon[2 * i + 1]
    turned = deal.turned_card
    return (seat_features(rules, deal.hands[0], drawn[0], turned),
            seat_features(rules, deal.hands[1], drawn[1], turned))


#: What :func:`draw_features` measures of one drawn card, in order (each less its mean over the face-down
#: cards that could have been drawn instead).
DRAW_FEATURES: tuple[str, ...] = (
    "drawn trump 9", "drawn trump J", "drawn trump Q", "drawn trump K", "drawn trump 10", "drawn trump A",
    "drawn plain 9", "drawn plain J", "drawn plain Q", "drawn plain K", "drawn plain 10", "drawn plain A",
    "completes the trump marriage", "completes a plain marriage",  # the drawn K or Q's partner is in the hand
)

#: h's weights, in game points of the deal: the trick winner's draw (:data:`DRAW_FEATURES` in order), then
#: the loser's (bench/luck_bench.py fit prints them).
DRAW_WEIGHTS: tuple[float, ...] = (
    +0.1496,  # the trick's winner: drawn trump 9
    -0.0503,  # the trick's winner: drawn trump J
    +0.2597,  # the trick's winner: drawn trump Q
    +0.2718,  # the trick's winner: drawn trump K
    +0.1561,  # the trick's winner: drawn trump 10
    +0.3939,  # the trick's winner: drawn trump A
    -0.2444,  # the trick's winner: drawn plain 9
    -0.3340,  # the trick's winner: drawn plain J
    -0.1931,  # the trick's winner: drawn plain Q
    -0.1748,  # the trick's winner: drawn plain K
    -0.2303,  # the trick's winner: drawn plain 10
    -0.0042,  # the trick's winner: drawn plain A
    +0.6457,  # the trick's winner: completes the trump marriage
    +0.3988,  # the trick's winner: completes a plain marriage
    +0.0740,  # the trick's loser: drawn trump 9
    -0.0178,  # the trick's loser: drawn trump J
    +0.1932,  # the trick's loser: drawn trump Q
    +0.2266,  # the trick's loser: drawn trump K
    +0.1896,  # the trick's loser: drawn trump 10
    +0.3654,  # the trick's loser: drawn trump A
    -0.2382,  # the trick's loser: drawn plain 9
    -0.3121,  # the trick's loser: drawn plain J
    -0.1764,  # the trick's loser: drawn plain Q
    -0.1412,  # the trick's loser: drawn plain K
    -0.1832,  # the trick's loser: drawn plain 10
    +0.0202,  # the trick's loser: drawn plain A
    +0.2389,  # the trick's loser: completes the trump marriage
    +0.1557,  # the trick's loser: completes a plain marriage
)


_QUEENS = sum(1 << (6 * suit + QUEEN) for suit in range(4))
_KINGS = sum(1 << (6 * suit + KING) for suit in range(4))
_SUIT = tuple(0b111111 << (6 * suit) for suit in range(4))
_RANK = tuple(sum(1 << (6 * suit + rank) for suit in range(4)) for rank in range(6))


def _completing(hand: int) -> int:
    """The cards that would complete a marriage with a King or Queen in ``hand`` (a card mask)."""
    return (hand & _QUEENS) << (KING - QUEEN) | (hand & _KINGS) >> (KING - QUEEN)


def draw_features(out: list[float], at: int, hand: int, card: Card, face_down: int, trump: int,
                  sign: float) -> None:
    """Add ``sign`` times the :data:`DRAW_FEATURES` of drawing ``card`` into ``hand`` (a card mask, before
    the draw) to ``out[at:]``, each less its mean over ``face_down`` (a card mask): the cards it could have
    been, each as likely."""
    share = sign / face_down.bit_count()
    trumps = face_down & _SUIT[trump]
    plain = face_down & ~_SUIT[trump]
    for rank in range(6):
        out[at + rank] -= share * (trumps & _RANK[rank]).bit_count()
        out[at + 6 + rank] -= share * (plain & _RANK[rank]).bit_count()
    completing = _completing(hand)
    out[at + 12] -= share * (trumps & completing).bit_count()
    out[at + 13] -= share * (plain & completing).bit_count()
    suit, rank = divmod(card, 6)
    out[at + (0 if suit == trump else 6) + rank] += sign
    if completing >> card & 1:
        out[at + (12 if suit == trump else 13)] += sign


def deal_draw_features(rules: RuleSet, deck: Sequence[Card], dealer: int,
                       actions: Sequence[tuple[int, Action]]) -> list[float]:
    """The deal's draws, from seat 0's side: the trick winners' :data:`DRAW_FEATURES`, then the losers',
    summed over the draws that were chance (two face-down cards or more). Replays ``actions`` (seat,
    action) with the engine: IllegalActionError (a ValueError) when they do not replay."""
    return _draw_features(Deal(rules, deck, dealer, check_deck=False), actions)


def _draw_features(deal: Deal, actions: Sequence[tuple[int, Action]]) -> list[float]:
    """:func:`deal_draw_features` of a deal not yet played: plays ``actions`` on it."""
    k = len(DRAW_FEATURES)
    out = [0.0] * (2 * k)
    talon = deal.talon
    for seat, action in actions:
        size = len(talon)
        if size < 3 or deal.led is None or deal.closed_by is not None:  # no chance draw can follow
            deal.apply(action, seat)
            continue
        first, second = talon[0], talon[1]
        face_down = 0
        for card in talon[:-1]:
            face_down |= 1 << card
        deal.apply(action, seat)
        winner = deal.last_trick_winner
        if len(talon) == size or winner is None:  # not a trick's last card (a declaration of 66, say)
            continue
        sign = 1.0 if winner == 0 else -1.0
        draw_features(out, 0, deal.hands[winner] & ~(1 << first), first, face_down, deal.trump, sign)
        draw_features(out, k, deal.hands[1 - winner] & ~(1 << second), second, face_down, deal.trump, -sign)
    return out


def deal_luck(rules: RuleSet, deck: Sequence[Card], dealer: int, actions: Sequence[tuple[int, Action]] = (),
              weights: Sequence[float] = WEIGHTS, draw_weights: Sequence[float] = DRAW_WEIGHTS) -> float:
    """Seat 0's luck in a deal, in game points (seat 1's is its negative): G(seat 0's cards) - G(seat 1's),
    plus the draws' corrections when the deal's ``actions`` are given.

    Its mean over uniformly shuffled decks is exactly 0 for either dealer, any weights and any play."""
    deal = Deal(rules, deck, dealer, check_deck=False)
    f0, f1 = _dealt_features(deal)
    luck = sum(w * (a - b) for w, a, b in zip(weights, f0, f1, strict=True))
    if actions:
        luck += sum(w * x for w, x in zip(draw_weights, _draw_features(deal, actions), strict=True))
    return luck
