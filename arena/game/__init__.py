"""The rules of Santase, Sixty-Six and Schnapsen: pure code, no I/O, no clock, no trio.

Modules: variants (RuleSet: every rule the variants disagree on, as data, and the presets santase,
sixty-six and schnapsen), cards (Card and its text form), actions (Action, with the text form the engine,
the protocol and the database share), hand (one deal: state, legal actions, applying them, scoring),
match (deals until a seat reaches the target, and which deck each deal is dealt from), views (SeatView:
exactly what one seat may know) and luck (how much better one seat's cards are than the other's, as dealt
and drawn: the luck-adjusted score's control variate).
"""

from arena.game.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE, PLAY, Action, ActionSyntaxError
from arena.game.cards import ALL_CARDS, RANKS, SUITS, Card, CardError
from arena.game.hand import (
    Deal,
    DealEndReason,
    DealResult,
    Event,
    IllegalActionError,
    full_deck,
    parse_seat_action,
    replay_deal,
)
from arena.game.match import Match, dealt_deck, replay_match, shuffled_deck, twin_deck
from arena.game.variants import PRESETS, RulesError, RuleSet, preset
from arena.game.views import SeatView

__all__ = [
    "ALL_CARDS", "CLOSE", "DECLARE", "EXCHANGE", "MARRIAGE", "PLAY", "PRESETS", "RANKS", "SUITS",
    "Action", "ActionSyntaxError", "Card", "CardError", "Deal", "DealEndReason", "DealResult", "Event",
    "IllegalActionError", "Match", "RuleSet", "RulesError", "SeatView", "full_deck", "parse_seat_action", "preset",
    "dealt_deck", "replay_deal", "replay_match", "shuffled_deck", "twin_deck",
]
