#!/usr/bin/env python3
"""Handshake ok, then at its first turn raises an uncaught exception: a real Python traceback on stderr,
exit status 1, no reply. A crash in the middle of a match (crash_start.py crashes before the handshake,
and `arena run`/`arena match` stop before any match for that)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def think(turn: dict[str, str]) -> str:
    raise RuntimeError("crash_turn: deliberate crash at the first turn")


_common.handshake("crash_turn")
for turn in _common.turns():
    _common.send(think(turn))
