#!/usr/bin/env python3
"""A correct minimal bot: always plays the first legal action. Plays any number of matches in a row and
exits 0 on `quit` or at EOF."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("good")
for turn in _common.turns():
    _common.send(_common.first_legal(turn))
