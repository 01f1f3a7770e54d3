#!/usr/bin/env python3
"""Ignores SIGTERM; handshake ok, then at its first turn sleeps forever without answering. Only SIGKILL
ends it."""

import os
import signal
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

signal.signal(signal.SIGTERM, signal.SIG_IGN)
_common.handshake("ignore_term")
for _turn in _common.turns():
    _common.sleep_forever()
