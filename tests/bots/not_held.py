#!/usr/bin/env python3
"""Handshake ok; every turn it plays a real card that it does not hold: the first of the 24 cards
(9c Jc Qc Kc Tc Ac 9d ... As) that is neither in `hand=` nor in `played=`."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("not_held")
for turn in _common.turns():
    seen = set(_common.cards(turn, "hand")) | set(_common.cards(turn, "played"))
    _common.send("play " + next(c for c in _common.ALL_CARDS if c not in seen))
