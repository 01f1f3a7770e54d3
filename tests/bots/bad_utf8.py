#!/usr/bin/env python3
"""Handshake ok, then answers its first turn with a line that is not valid UTF-8 (`play ` followed by the
bytes 0xff 0xfe). Later turns, should any come, are answered correctly."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("bad_utf8")
for count, turn in enumerate(_common.turns()):
    if count == 0:
        sys.stdout.flush()
        sys.stdout.buffer.write(b"play \xff\xfe\n")
        sys.stdout.buffer.flush()
    else:
        _common.send(_common.first_legal(turn))
