#!/usr/bin/env python3
"""Handshake ok, then answers its first turn with `hello world ~~~` (not a message). Later turns, should
any come, are answered correctly."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("garbage")
for count, turn in enumerate(_common.turns()):
    _common.send("hello world ~~~" if count == 0 else _common.first_legal(turn))
