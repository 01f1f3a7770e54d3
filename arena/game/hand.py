"""One deal (hand) of the game: state, legal actions, applying actions, scoring.

The deal is the only holder of the full state. Bots see it through ``view(seat)`` (a SeatView); reports
see it through ``record()`` once it is over. Seats are 0 and 1.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from arena.game.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE, PLAY, TOKEN_OF_INTERNED, Action
from arena.game.cards import ALL_CARDS, CARD_TEXT, KING, QUEEN, SUIT_MASKS, Card, cards_in, mask_of
from arena.game.variants import RuleSet
from arena.game.views import SeatView


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow now. ``rule`` names the rule broken."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


# Events are built with tuple.__new__ directly: NamedTuple's generated __new__ was a fifth of the cost of
# a random deal (several events per trick).
_new = tuple.__new__


class DealEndReason(StrEnum):
    """How a deal ended. The value is the text the database and the reports show; the protocol's
    ``deal-end`` line writes it with '-' for each space (``closed-and-reached-66``)."""

    REACHED_66 = "reached 66"  # automatic 66: the winner's total reached 66 after a won trick or a marriage
    DECLARED_66 = "declared 66"  # manual 66: the winner declared it, rightly
    CLOSED_AND_REACHED_66 = "closed and reached 66"  # the closer reached 66, as a close requires
    CLOSED_AND_DECLARED_66 = "closed and declared 66"  # the closer declared 66, rightly
    WRONG_DECLARATION = "wrong declaration"  # a seat declared 66 without having it: its opponent wins
    FAILED_CLOSE = "failed close"  # the closer did not reach 66 first: its opponent wins
    LAST_TRICK = "last trick"  # nobody reached 66; the winner of the last trick wins (rule no_66_winner)
    MORE_POINTS = "more points"  # nobody reached 66; the higher total wins (rule no_66_winner)
    FORFEIT = "forfeit"  # not by the rules: the referee gave the deal away after a bot's violation


_AFTER_CLOSE = {
    DealEndReason.REACHED_66: DealEndReason.CLOSED_AND_REACHED_66,
    DealEndReason.DECLARED_66: DealEndReason.CLOSED_AND_DECLARED_66,
}


@dataclass(frozen=True, slots=True)
class DealResult:
    winner: int
    game_points: int
    reason: DealEndReason
    points: tuple[int, int]  # card points incl. counted marriages and bonus, at the end
    tricks: tuple[int, int]


class Event(NamedTuple):
    """Something that happened, in order; the referee turns these into protocol event lines per seat.

    Not all of it is public: a ``draw`` event carries the card, which only the drawer may see (and both,
    when it is the face-up trump card). A NamedTuple, because the engine makes several per trick.
    """

    kind: str  # play | marriage | exchange | close | trick | draw | declare | deal-end
    seat: int
    card: Card | None = None
    points: int = 0


class Deal:
    """State of one deal. Build it from a shuffled deck with ``Deal(rules, deck, dealer)``."""

    def __init__(self, rules: RuleSet, deck: Sequence[Card], dealer: int, check_deck: bool = True) -> None:
        if check_deck and (len(deck) != rules.deck_size or mask_of(deck) != _full_mask(rules)):
            raise ValueError("deck is not the rule set's full deck")
        self.rules = rules
        # rules read on every decision (RuleSet is frozen, and some of these are computed properties)
        self._manual = rules.declare_66 == "manual"
        self._exchange_rank = rules.exchange_rank_index
        self._close_min = rules.close_min
        self._exchange_min_talon = rules.exchange_min_talon
        self._leader_only = rules.exchange_leader_only
        self._marriage_lead = rules.marriage_lead
        self._always_strict = rules.follow_while_open == "strict"
        self._automatic = rules.declare_66 == "automatic"
        self.deck: tuple[Card, ...] = tuple(deck)
        self.dealer = dealer
        nondealer = 1 - dealer
        hands = [0, 0]
        pos = 0
        for batch in rules.deal_batches:
            for seat in (nondealer, dealer):
                for c in deck[pos:pos + batch]:
                    hands[seat] |= 1 << c
                pos += batch
        rest = list(deck[pos:])
        if rules.trump_card == "after-deal":
            turned = rest.pop(0)
        else:
            turned = rest.pop()
        self.talon: list[Card] = rest + [turned]  # index 0 is drawn next; the turned card lies at the bottom
        self.turned_card: Card = turned  # as dealt; trump_card below changes with an exchange
        self.trump_card: Card = turned
        self.trump: int = turned.suit
        self.hands = hands
        self.leader = nondealer
        self.to_move = nondealer
        self.led: Card | None = None
        self.closed_by: int | None = None
        self.close_snapshot: tuple[int, int] = (0, 0)  # opponent's (points, tricks) at the close
        self.won_points = [0, 0]
        self.tricks = [0, 0]
        self.marriage_points = [0, 0]  # counted
        self.pending_marriage = [0, 0]  # declared, not counted yet: counted at the seat's next won trick
        self.marriages: list[tuple[int, int]] = []  # (seat, suit) in order
        self.known = [0, 0]  # cards of each seat's hand that the other seat has seen
        self.played_mask = 0
        self.taken = [0, 0]  # mask of the cards each seat has won in tricks
        self.led_marriage = False  # the card on the table was led with a marriage
        self.first_66: int | None = None
        self.last_trick_winner: int | None = None
        self.result: DealResult | None = None
        # why the winner got more than 1 game point, for people reading the result: "no-tricks" or
        # "no-points" (3, rule schwarz), "schneider" (2, the loser under schneider_below), "closer-no-tricks"
        # (a failed close whose closer took no trick); "" when the count is the reason's own (1, a failed
        # close, a wrong declaration, no 66)
        self.game_points_why = ""
        self.actions: list[tuple[int, Action]] = []
        self.events: list[Event] = []  # public events, for the referee; it may clear it

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def strict(self) -> bool:
        return self.closed_by is not None or not self.talon or self._always_strict

    @property
    def talon_open(self) -> bool:
        return self.closed_by is None and bool(self.talon)

    def total(self, seat: int) -> int:
        return self.won_points[seat] + self.marriage_points[seat]

    # What a seat may see, as the view and the protocol's turn line both need it (one rule, two speeds).

    def face_up_card(self) -> Card | None:
        """The turned trump card while it lies face up under the talon; None once it is drawn or exchanged."""
        return self.trump_card if self.talon and self.talon[-1] == self.trump_card else None

    def opponent_known_mask(self, seat: int) -> int:
        """The cards of the opponent's hand that ``seat`` has seen (an exchanged nine, a shown marriage)."""
        return self.known[1 - seat] & self.hands[1 - seat]

    def hand(self, seat: int) -> list[Card]:
        return list(cards_in(self.hands[seat]))

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action the seat may take now; empty when it is not that seat's turn or the deal is over.

        Always in the same order (declare, exchange, close, marriages, plays by card index), so a seeded
        random choice over it replays.
        """
        if seat is None:
            seat = self.to_move
        if self.result is not None or seat != self.to_move:
            return []
        hand = self.hands[seat]
        out: list[Action] = [DECLARE] if self._manual else []
        if self.led is None:
            if self._exchange_rank >= 0 and self._can_exchange(seat):
                out.append(EXCHANGE)
            if self._close_min is not None and self._can_close():
                out.append(CLOSE)
            if hand & _ANY_PAIR:
                out.extend(_marriages(hand, self._marriage_lead))
            out.extend(_plays(hand))
        else:
            if not self._leader_only and self._exchange_rank >= 0 and self._can_exchange(seat):
                out.append(EXCHANGE)
            out.extend(_plays(self._playable(seat)))
        return out

    def is_legal(self, action: Action, seat: int | None = None) -> bool:
        """The same answer as ``action in legal_actions(seat)``, without building the list."""
        if seat is None:
            seat = self.to_move
        if self.result is not None or seat != self.to_move:
            return False
        kind = action.kind
        card = action.card
        if kind == "play":
            assert card is not None
            mask = self.hands[seat] if self.led is None else self._playable(seat)
            return bool(mask >> card & 1)
        if kind == "declare":
            return self._manual
        if kind == "exchange":
            return (self.led is None or not self._leader_only) and self._can_exchange(seat)
        if self.led is not None:
            return False
        if kind == "close":
            return self._can_close()
        assert card is not None
        return action in _marriages(self.hands[seat], self._marriage_lead)

    def _can_close(self) -> bool:
        limit = self._close_min  # None: close_min_talon=none, closing is never legal
        return limit is not None and self.closed_by is None and len(self.talon) >= limit

    def _can_exchange(self, seat: int) -> bool:
        rank = self._exchange_rank
        talon = self.talon
        return (
            rank >= 0
            and self.closed_by is None
            and bool(talon)
            and len(talon) >= self._exchange_min_talon
            and bool(self.hands[seat] >> (self.trump * 6 + rank) & 1)
        )

    def _playable(self, seat: int) -> int:
        """Mask of cards the responder may play to the led card."""
        hand = self.hands[seat]
        led = self.led
        if led is None or not self.strict:
            return hand
        rules = self.rules
        same = hand & SUIT_MASKS[led // 6]
        if rules.must_follow_suit and same:
            if rules.must_head:
                higher = same & ~((2 << led) - 1)
                if higher:
                    return higher
            return same
        if not same and rules.must_trump and led // 6 != self.trump:
            trumps = hand & SUIT_MASKS[self.trump]
            if trumps:
                return trumps
        return hand

    # ------------------------------------------------------------------ applying
    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the action of the seat to move; IllegalActionError (with the rule) when not allowed."""
        if self.result is not None:
            raise IllegalActionError("deal-over", "the deal is over")
        if seat is not None and seat != self.to_move:
            raise IllegalActionError("turn", f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        seat = self.to_move
        if not self.is_legal(action, seat):
            raise IllegalActionError(*self._why_illegal(seat, action))
        self._apply(seat, action)

    def apply_legal(self, action: Action) -> None:
        """`apply` for an action the caller took from ``legal_actions()`` of this very state (the referee checks
        every reply against the list it sent): the same effect, without checking legality a second time."""
        self._apply(self.to_move, action)

    def _apply(self, seat: int, action: Action) -> None:
        self.actions.append((seat, action))
        kind = action.kind
        if kind == "play":
            assert action.card is not None
            self._play(seat, action.card)
        elif kind == "marriage":
            assert action.card is not None
            self._marriage(seat, action.card)
        elif kind == "exchange":
            self._exchange(seat)
        elif kind == "close":
            self.closed_by = seat
            other = 1 - seat
            self.close_snapshot = (self.total(other), self.tricks[other])
            self.events.append(_new(Event, ("close", seat, None, 0)))
        elif kind == "declare":
            self._declare(seat)

    def _why_illegal(self, seat: int, action: Action) -> tuple[str, str]:
        card = action.card
        if card is not None and not self.hands[seat] >> card & 1:
            return "not-in-hand", f"{card} is not in seat {seat}'s hand"
        if action.kind == "play" and self.led is not None:
            return "follow", (
                f"{card} breaks the follow rules: to {self.led} seat {seat} must play one of "
                + " ".join(str(c) for c in cards_in(self._playable(seat)))
            )
        if action.kind == "marriage":
            if self.led is not None:
                return "marriage", "only the player on lead may declare a marriage"
            return "marriage", f"{card} does not start a marriage the rules allow (need K and Q of a suit)"
        if action.kind == "exchange":
            return "exchange", "exchange is not allowed now (need the exchange trump, the lead and an open talon)"
        if action.kind == "close":
            if self.rules.close_min is None:
                return "close", "closing is never allowed in this variant (close_min_talon=none)"
            return "close", "closing is not allowed now (need the lead and a large enough open talon)"
        if action.kind == "declare":
            return "declare", "declaring 66 is automatic in this variant"
        return "illegal", f"{action} is not legal now"

    def _exchange(self, seat: int) -> None:
        low = ALL_CARDS[self.trump * 6 + self._exchange_rank]
        old = self.talon[-1]
        self.hands[seat] = self.hands[seat] & ~(1 << low) | (1 << old)
        self.talon[-1] = low
        self.trump_card = low
        self.known[seat] |= 1 << old
        self.events.append(_new(Event, ("exchange", seat, old, 0)))

    def marriage_worth(self, seat: int, suit: int) -> int:
        """What a marriage in ``suit`` declared by ``seat`` now would score (counted now or pending): its
        value, or 0 when it is declared before the seat's first trick and marriage_without_trick is void."""
        if self.tricks[seat] or self.rules.marriage_without_trick == "pending":
            return self.rules.marriage_value(suit, self.trump)
        return 0

    def _marriage(self, seat: int, card: Card) -> None:
        suit = card.suit
        pts = self.marriage_worth(seat, suit)
        self.marriages.append((seat, suit))
        partner = Card.of(KING if card.rank == QUEEN else QUEEN, suit)
        self.known[seat] |= 1 << partner
        # marriage_credit decides when a marriage of a seat that has won a trick counts (now, or at its next
        # won trick); marriage_without_trick decides whether one declared before any won trick waits for
        # the first won trick or is void.
        if self.tricks[seat] and self.rules.marriage_credit == "immediate":
            self.marriage_points[seat] += pts
        else:  # waits for the seat's next won trick (nothing, when void)
            self.pending_marriage[seat] += pts
        self.events.append(_new(Event, ("marriage", seat, card, pts)))
        if self._reached_66(seat) and self._automatic:
            self._finish_win(seat, DealEndReason.REACHED_66)
            return
        self.led_marriage = True
        self._play(seat, card)

    def _play(self, seat: int, card: Card) -> None:
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.known[seat] &= ~bit
        self.events.append(_new(Event, ("play", seat, card, 0)))
        if self.led is None:
            self.led = card
            self.to_move = 1 - seat
            return
        led = self.led
        leader = 1 - seat
        if card // 6 == led // 6:
            winner = seat if card > led else leader
        else:
            winner = seat if card // 6 == self.trump else leader
        self.led = None
        self.led_marriage = False
        self.played_mask |= bit | (1 << led)
        self.taken[winner] |= bit | (1 << led)
        pts = _POINTS[led] + _POINTS[card]
        self.won_points[winner] += pts
        self.tricks[winner] += 1
        if self.pending_marriage[winner]:
            self.marriage_points[winner] += self.pending_marriage[winner]
            self.pending_marriage[winner] = 0
        self.last_trick_winner = winner
        self.events.append(_new(Event, ("trick", winner, None, pts)))
        loser = 1 - winner
        talon = self.talon
        if talon and self.closed_by is None:
            a = talon.pop(0)
            b = talon.pop(0)
            self.hands[winner] |= 1 << a
            self.hands[loser] |= 1 << b
            self.events.append(_new(Event, ("draw", winner, a, 0)))
            self.events.append(_new(Event, ("draw", loser, b, 0)))
            if not talon:
                self.known[loser] |= 1 << b  # the turned trump card was face up
        self.leader = winner
        self.to_move = winner
        if not self.hands[0] and not self.hands[1]:
            # The last trick: its bonus is counted before the winner is decided, whether or not the trick
            # itself already took its winner to 66 (the same totals in automatic and manual mode).
            self._finish_natural(winner)
            return
        if self._reached_66(winner) and self._automatic:
            self._finish_win(winner, DealEndReason.REACHED_66)

    def _reached_66(self, seat: int) -> bool:
        if self.tricks[seat] and self.total(seat) >= 66:
            if self.first_66 is None:
                self.first_66 = seat
            return True
        return False

    def _declare(self, seat: int) -> None:
        self.events.append(_new(Event, ("declare", seat, None, self.total(seat))))
        if self.tricks[seat] and self.total(seat) >= 66:
            self._finish_win(seat, DealEndReason.DECLARED_66)
        else:
            self._finish(1 - seat, self.rules.wrong_declaration_points, DealEndReason.WRONG_DECLARATION)

    def _finish_natural(self, last: int) -> None:
        self._reached_66(last)  # the last trick's cards (and a marriage it unlocked)
        if self.closed_by is None and self.rules.last_trick_bonus:
            self.won_points[last] += self.rules.last_trick_bonus
            self._reached_66(last)
        if self.closed_by is not None:
            winner = self.closed_by if self.first_66 == self.closed_by else 1 - self.closed_by
            self._finish_win(winner, DealEndReason.REACHED_66)
        elif self.first_66 is not None:
            self._finish_win(self.first_66, DealEndReason.REACHED_66)
        else:
            winner = last
            if self.rules.no_66_winner == "more-points" and self.total(0) != self.total(1):
                winner = 0 if self.total(0) > self.total(1) else 1
            last_trick = self.rules.no_66_winner == "last-trick"
            reason = DealEndReason.LAST_TRICK if last_trick else DealEndReason.MORE_POINTS
            self._finish(winner, self.rules.no_66_game_points, reason)

    def _finish_win(self, winner: int, reason: DealEndReason) -> None:
        closer = self.closed_by
        rules = self.rules
        if closer is not None and winner != closer:
            if self.tricks[closer] == 0:
                gp, self.game_points_why = rules.failed_close_points_no_tricks, "closer-no-tricks"
            else:
                gp = rules.failed_close_points
            self._finish(winner, gp, DealEndReason.FAILED_CLOSE)
            return
        loser = 1 - winner
        if closer is not None and rules.close_scoring == "at-close":
            loser_points, loser_tricks = self.close_snapshot
        else:
            loser_points, loser_tricks = self.total(loser), self.tricks[loser]
        if (loser_tricks if rules.schwarz == "no-tricks" else loser_points) == 0:
            gp, self.game_points_why = 3, rules.schwarz
        elif loser_points < rules.schneider_below:
            gp, self.game_points_why = 2, "schneider"
        else:
            gp = 1
        if closer is not None:
            reason = _AFTER_CLOSE[reason]
        self._finish(winner, gp, reason)

    def _finish(self, winner: int, game_points: int, reason: DealEndReason) -> None:
        self.result = DealResult(
            winner, game_points, reason, (self.total(0), self.total(1)), (self.tricks[0], self.tricks[1])
        )
        self.to_move = -1
        self.events.append(_new(Event, ("deal-end", winner, None, game_points)))

    # ------------------------------------------------------------------ what leaves the engine
    def view(self, seat: int, match_score: tuple[int, int] = (0, 0)) -> SeatView:
        """Everything the seat may know, and nothing more."""
        other = 1 - seat
        return SeatView(
            seat=seat,
            hand=tuple(cards_in(self.hands[seat])),
            trump_suit=self.trump,
            trump_card=self.face_up_card(),
            talon_size=len(self.talon),
            closed=self.closed_by is not None,
            closed_by=self.closed_by,
            led=self.led,
            leader=self.leader,
            dealer=self.dealer,
            points=(self.total(seat), self.total(other)),
            pending_marriage=self.pending_marriage[seat],
            tricks=(self.tricks[seat], self.tricks[other]),
            marriages=tuple(self.marriages),
            played=tuple(cards_in(self.played_mask)),
            opponent_known=tuple(cards_in(self.opponent_known_mask(seat))),
            match_score=match_score,
            taken=(tuple(cards_in(self.taken[seat])), tuple(cards_in(self.taken[other]))),
            opponent_pending=self.pending_marriage[other],
            led_marriage=self.led_marriage,
        )

    def record(self) -> dict[str, object]:
        """The complete deal for replays and the database (only after the deal, or for reports).

        ``actions`` are ``<seat>:<action token>`` (``0:play:Th``); `parse_seat_action` reads one back.
        """
        r = self.result
        return {
            "dealer": self.dealer,
            "deck": " ".join([CARD_TEXT[c] for c in self.deck]),
            "trump": str(self.turned_card),
            "actions": [f"{s}:{TOKEN_OF_INTERNED.get(id(a)) or a.token()}" for s, a in self.actions],
            "winner": None if r is None else r.winner,
            "game_points": None if r is None else r.game_points,
            "reason": None if r is None else r.reason,
            "points": None if r is None else list(r.points),
            "tricks": None if r is None else list(r.tricks),
        }


_POINTS = tuple(c.points for c in ALL_CARDS)
# K and Q bits of every suit: a hand with any of them may hold a marriage
_ANY_PAIR = sum((1 << (6 * s + KING)) | (1 << (6 * s + QUEEN)) for s in range(4))
# PLAY actions of every 6-bit pattern of every suit: four table look-ups give a hand's plays in order
_SUIT_PLAYS: tuple[tuple[tuple[Action, ...], ...], ...] = tuple(
    tuple(tuple(PLAY[6 * s + r] for r in range(6) if m >> r & 1) for m in range(64)) for s in range(4)
)


def _plays(mask: int) -> tuple[Action, ...]:
    t = _SUIT_PLAYS
    return t[0][mask & 63] + t[1][(mask >> 6) & 63] + t[2][(mask >> 12) & 63] + t[3][(mask >> 18) & 63]


def _marriages(hand: int, lead: str) -> list[Action]:
    out: list[Action] = []
    for suit in range(4):
        base = 6 * suit
        if (hand >> (base + QUEEN)) & 3 == 3:  # QUEEN and KING are adjacent ranks
            if lead != "king":
                out.append(MARRIAGE[base + QUEEN])
            if lead != "queen":
                out.append(MARRIAGE[base + KING])
    return out


def _full_mask(rules: RuleSet) -> int:
    return mask_of(full_deck(rules))


def full_deck(rules: RuleSet) -> list[Card]:
    low = rules.lowest_rank
    return [c for c in ALL_CARDS if c.rank >= low]


@functools.lru_cache(maxsize=4096)  # replays (the store's, the report's) read the same few hundred over and over
def parse_seat_action(text: str) -> tuple[int, Action]:
    """One entry of ``Deal.record()["actions"]``, ``0:play:Th``, as (seat, action). ValueError (an
    ActionSyntaxError for the action part) when it is not one."""
    seat, _, token = text.partition(":")
    if seat not in ("0", "1"):
        raise ValueError(f"no seat {seat!r}")
    return int(seat), Action.parse(token)


def replay_deal(rules: RuleSet, deck: Sequence[Card], dealer: int, actions: Sequence[tuple[int, Action]]) -> Deal:
    deal = Deal(rules, deck, dealer)
    for seat, action in actions:
        deal.apply(action, seat)
    return deal
