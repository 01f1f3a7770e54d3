#!/usr/bin/env python3
"""Handshake ok, then at its first turn writes 10 MiB of 'x' with no newline, flushes, and sleeps forever.
The write blocks while the referee is not reading; if the pipe breaks it still just sleeps."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("huge_line")
for _turn in _common.turns():
    try:
        sys.stdout.buffer.write(b"x" * (10 * 1024 * 1024))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        pass
    _common.sleep_forever()
