"""Actions a seat can take, with a text form shared by the engine, the protocol and the database.

``play Th``, ``marriage Qh`` (declare the pair and lead that card), ``exchange``, ``close``, ``declare``
(declare 66); as one token (``Action.token()``), the space is a colon: ``play:Th``. Actions are interned
values: ``Action.parse("play Th") is Action.parse("play:Th") is PLAY[Card.parse("Th")]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.cards import ALL_CARDS, Card, CardError


class ActionSyntaxError(ValueError):
    """Text that is not an action at all (as opposed to an action that is illegal now)."""


@dataclass(frozen=True, slots=True)
class Action:
    kind: str  # "play" | "marriage" | "exchange" | "close" | "declare"
    card: Card | None = None

    def __str__(self) -> str:
        return self.kind if self.card is None else f"{self.kind} {self.card}"

    def token(self) -> str:
        """The action as one token, with ':' for the space: ``play:Th``, ``close``. The protocol's ``legal=``
        list and the database's action log use it; ``Action.parse`` reads it back."""
        return self.kind if self.card is None else f"{self.kind}:{self.card}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action written as text (``play Th``) or as a token (``play:Th``); surrounding blanks are
        ignored. ActionSyntaxError when the text is not an action at all (legality is the deal's question)."""
        parts = text.replace(":", " ", 1).split()
        if len(parts) == 1 and parts[0] in _SIMPLE:
            return _SIMPLE[parts[0]]
        if len(parts) == 2 and parts[0] in ("play", "marriage"):
            try:
                card = Card.parse(parts[1])
            except CardError as e:
                raise ActionSyntaxError(str(e)) from None
            return (PLAY if parts[0] == "play" else MARRIAGE)[card]
        raise ActionSyntaxError(
            f"{text!r} is not an action: expected 'play <card>', 'marriage <card>', 'exchange', 'close' "
            "or 'declare'"
        )


PLAY: tuple[Action, ...] = tuple(Action("play", c) for c in ALL_CARDS)
MARRIAGE: tuple[Action, ...] = tuple(Action("marriage", c) for c in ALL_CARDS)
EXCHANGE = Action("exchange")
CLOSE = Action("close")
DECLARE = Action("declare")
_SIMPLE = {"exchange": EXCHANGE, "close": CLOSE, "declare": DECLARE}
# The token of every interned action by its id (the engine's legal actions are always these objects; the
# tuples above keep them alive, so no other object has their ids): an int key hashes in C, where an
# Action's generated __hash__ is Python. Look up with ``.get(id(a))`` and fall back to ``a.token()``.
TOKEN_OF_INTERNED: dict[int, str] = {id(a): a.token() for a in (*PLAY, *MARRIAGE, EXCHANGE, CLOSE, DECLARE)}
