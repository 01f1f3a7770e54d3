#!/usr/bin/env python3
"""A correct bot for one match only: it plays the first legal action and exits 0 at `match-end`, instead of
waiting for another `match` (or `quit`) as the protocol asks."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("one_match")
while True:
    line = _common.read_line()
    if line is None or line == "quit" or line.startswith("match-end"):
        sys.exit(0)
    if line.startswith("turn "):
        _common.send(_common.first_legal(_common.parse_turn(line)))
