#!/usr/bin/env python3
"""Handshake ok; every turn it replies with a well-formed action that is NOT in the legal list.

In order of preference: `play <card>` for a card in its hand that is not a legal play (e.g. not following
suit after the talon is closed); `close` if closing is not legal; `exchange` if exchanging is not legal;
`marriage <K or Q in hand>` that is not legal; and as a last resort `play` of a card it does not hold.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def illegal_action(turn: dict[str, str]) -> str:
    legal = set(_common.legal(turn))
    hand = _common.cards(turn, "hand")
    for card in hand:
        if f"play:{card}" not in legal:
            return f"play {card}"
    for simple in ("close", "exchange"):
        if simple not in legal:
            return simple
    for card in hand:
        if card[0] in "KQ" and f"marriage:{card}" not in legal:
            return f"marriage {card}"
    return "play " + next(c for c in _common.ALL_CARDS if c not in hand)


_common.handshake("illegal_card")
for turn in _common.turns():
    _common.send(illegal_action(turn))
