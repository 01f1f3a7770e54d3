#!/usr/bin/env python3
"""Handshake ok, then at once (before any turn) writes the action line `play 9c` unprompted, as its own
flushed write; afterwards it plays correctly."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("unexpected")
_common.send("play 9c")
for turn in _common.turns():
    _common.send(_common.first_legal(turn))
