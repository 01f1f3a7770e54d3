#!/usr/bin/env python3
"""Correct play, but reads the file PATH before its handshake, as a bot loads its model or opening book:

    needs_file.py PATH

Where PATH cannot be read (it is not in the bot's sandbox) Python's FileNotFoundError (a traceback that
names PATH) goes to stderr and the bot exits with status 1 before answering the handshake."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

with open(sys.argv[1], "rb") as f:
    f.read()
_common.handshake("needs_file")
for turn in _common.turns():
    _common.send(_common.first_legal(turn))
