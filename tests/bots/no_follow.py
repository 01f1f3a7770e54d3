#!/usr/bin/env python3
"""Plays as if play were free to the end: it leads its first legal card, and answers with the first card of
its hand, whatever the follow rules say. Legal while the talon is open (where play is free); once the follow
rules bind (the talon closed or run out, or from the start under follow_while_open=strict) it breaks them
when its first card may not be played. Never declares, closes, exchanges or marries.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("no_follow")
for turn in _common.turns():
    if turn["led"] != "-":
        _common.send("play " + _common.cards(turn, "hand")[0])
    else:
        _common.send(next(a for a in _common.legal(turn) if a.startswith("play:")).replace(":", " "))
