"""Cards and their text form.

A card is a small int (suit * 6 + rank) so that sets of cards are bit masks: the engine does set
arithmetic with integer operations and never allocates per move. ``str(card)`` is the two-letter form
used everywhere (protocol, database, reports): rank ``9 J Q K T A``, suit ``c d h s``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

RANKS = "9JQKTA"  # ascending trick strength
SUITS = "cdhs"
RANK_POINTS = (0, 2, 3, 4, 10, 11)
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)


class CardError(ValueError):
    """A string is not a card (or not a card of the deck in use)."""


class Card(int):
    """One of the 24 cards. Instances are interned: ``Card.parse("Qh") is Card.parse("Qh")``."""

    __slots__ = ()

    @property
    def suit(self) -> int:
        return self // 6

    @property
    def rank(self) -> int:
        return self % 6

    @property
    def points(self) -> int:
        return RANK_POINTS[self % 6]

    @property
    def bit(self) -> int:
        return 1 << self

    @property
    def suit_char(self) -> str:
        return SUITS[self // 6]

    def __str__(self) -> str:
        return _TEXT[self]  # the protocol writes cards all the time: their text is made once (below)

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def display(self, symbols: bool = True) -> str:
        """The card as people read it: ``10♥`` (``10h`` without ``symbols``), not the wire's ``Th``."""
        rank = RANKS[self % 6]
        return ("10" if rank == "T" else rank) + (SUIT_SYMBOLS[self.suit_char] if symbols else self.suit_char)

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``"Th"``-style text; raises CardError naming the string."""
        if len(text) == 2:
            r = RANKS.find(text[0].upper())
            s = SUITS.find(text[1].lower())
            if r >= 0 and s >= 0:
                return ALL_CARDS[s * 6 + r]
        raise CardError(
            f"{text!r} is not a card: expected a rank from {' '.join(RANKS)} and a suit from "
            f"{' '.join(SUITS)}, e.g. 'Th' or '9c'"
        )

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        return ALL_CARDS[suit * 6 + rank]


_TEXT: tuple[str, ...] = tuple(RANKS[i % 6] + SUITS[i // 6] for i in range(24))  # Card.__str__
ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(24))
SUIT_MASKS: tuple[int, ...] = tuple(0b111111 << (6 * s) for s in range(4))
# Card points of every possible mask would be too big a table; per-suit 6-bit tables keep it tiny.
_SUIT_POINTS = tuple(sum(RANK_POINTS[r] for r in range(6) if m >> r & 1) for m in range(64))


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_in(mask: int) -> Iterator[Card]:
    """The cards of a mask, lowest index first (clubs 9 .. spades A)."""
    while mask:
        low = mask & -mask
        yield ALL_CARDS[low.bit_length() - 1]
        mask ^= low


def card_list(mask: int) -> list[Card]:
    return list(cards_in(mask))


def mask_points(mask: int) -> int:
    return (
        _SUIT_POINTS[mask & 63]
        + _SUIT_POINTS[(mask >> 6) & 63]
        + _SUIT_POINTS[(mask >> 12) & 63]
        + _SUIT_POINTS[(mask >> 18) & 63]
    )


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(str(ALL_CARDS[c]) for c in cards)


def parse_cards(text: str) -> list[Card]:
    """Cards written as text, separated by blanks (``"Th 9c"``); CardError naming the first that is not one."""
    return [_BY_TEXT.get(t) or Card.parse(t) for t in text.split()]


_BY_TEXT = {str(c): c for c in ALL_CARDS}  # the canonical spellings, looked up (replays parse whole decks)
CARD_TEXT: tuple[str, ...] = tuple(str(c) for c in ALL_CARDS)  # str(card) by the card's index: a look-up
