#!/usr/bin/env python3
"""Correct play, but everything else it writes carries terminal escape sequences: an `info` line (clear the
screen, set the window title) before its first reply, and stderr at start (colours, an 8-bit CSI, a bell)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.log("escapes: \x1b[31mred\x1b[0m \x9b2J \x07")
_common.handshake("escapes")
first = True
for turn in _common.turns():
    if first:
        _common.send("info \x1b[2J\x1b]0;owned\x07")
        first = False
    _common.send(_common.first_legal(turn))
