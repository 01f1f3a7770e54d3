#!/usr/bin/env python3
"""Correct play, but sleeps before every turn reply: argv[1] milliseconds (default 2000).
The handshake is answered at once."""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

delay_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 2000

_common.handshake("slow")
for turn in _common.turns():
    time.sleep(delay_ms / 1000)
    _common.send(_common.first_legal(turn))
