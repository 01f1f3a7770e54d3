#!/usr/bin/env python3
"""A correct bot that never flushes: it writes through a block-buffered stdout (what C's stdio, and most
languages, give a pipe), so its answers sit in the buffer until it exits, which flushes them. The referee
sees no handshake in time; when its input ends, the buffered `bot 1 no_flush` line comes out at last."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

# A stdout of its own, 8 KiB block-buffered: PYTHONUNBUFFERED (which the referee sets) covers sys.stdout only.
out = open(sys.stdout.fileno(), "w", buffering=8192, closefd=False, encoding="utf-8")
_common.send = lambda line: out.write(line + "\n")  # no flush
try:
    _common.handshake("no_flush")
    for turn in _common.turns():
        _common.send(_common.first_legal(turn))
finally:
    out.close()  # what exit() does in C: the buffer is written now
