#!/usr/bin/env python3
"""Answers the handshake with `bot 99 badver`, a version the referee does not speak. Should turns come
anyway, it answers them correctly; exits 0 on `quit` or EOF."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("badver", version="99")
for turn in _common.turns():
    _common.send(_common.first_legal(turn))
