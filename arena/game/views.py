"""What one seat may know: SeatView, the only game state a bot side ever receives, and the rule for what a
seat sees of a drawn card (`drawn_card_seen`), the one piece of a public event that is not public."""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.cards import SUITS, Card


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    hand: tuple[Card, ...]
    trump_suit: int
    trump_card: Card | None  # the turned card while it lies in the talon (face up, or turned down by a close)
    talon_size: int  # cards left in the talon, the turned card included
    closed: bool
    closed_by: int | None
    led: Card | None  # the card on the table when this seat answers a trick
    leader: int
    dealer: int
    points: tuple[int, int]  # (mine, opponent's): won card points plus counted marriages
    pending_marriage: int  # my marriage points waiting for my first won trick
    tricks: tuple[int, int]  # (mine, opponent's)
    marriages: tuple[tuple[int, int], ...]  # (seat, suit) in order declared
    played: tuple[Card, ...]  # cards in completed tricks
    opponent_known: tuple[Card, ...]  # cards I know are in the opponent's hand
    match_score: tuple[int, int]  # game points (mine, opponent's)
    # Protocol 1.1 (None where a view was read from a 1.0 turn line). All three follow from public events
    # alone (plays, tricks, marriages), which a bot with memory already has: they show no hidden card.
    taken: tuple[tuple[Card, ...], tuple[Card, ...]] | None = None  # (mine, opponent's): cards won in tricks
    opponent_pending: int | None = None  # the opponent's marriage points waiting for its first won trick
    led_marriage: bool | None = None  # the led card was announced as a marriage (False when none is led)

    @property
    def trump_char(self) -> str:
        return SUITS[self.trump_suit]


def drawn_card_seen(card: Card, drawer: int, viewer: int, face_up: Card | None) -> Card | None:
    """What seat ``viewer`` sees of ``card`` when seat ``drawer`` draws it from the talon: the card, or None.

    The drawer sees its card. The opponent sees it only when it is ``face_up``, the card lying face up at the
    bottom of the talon (the turned trump card, or the one exchanged for it), which is drawn last and which
    both seats saw lying there.
    """
    return card if viewer == drawer or card == face_up else None
