#!/usr/bin/env python3
"""Correct play, but a flood of `info` commentary: 256 lines of 4,000 bytes (1 MB) before every reply.
Over a match that is a hundred megabytes or more, which a referee that kept every `info` line would hold in
memory and write to the database."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("info_flood")
for count, turn in enumerate(_common.turns()):
    line = f"info flood turn {count} ".encode()
    line += b"." * (4000 - len(line)) + b"\n"
    try:
        sys.stdout.buffer.write(line * 256)
    except BrokenPipeError:
        _common._gone()
    _common.send(_common.first_legal(turn))
