#!/usr/bin/env python3
"""Writes `info` lines without end instead of answering: `chatter.py turn` does the handshake and then, at
its first turn, floods `info` lines and never replies; `chatter.py handshake` floods them before its `bot`
line, which never comes; `chatter.py junk` writes `Loading model...` to stdout before its `bot` line (a
common mistake: debugging output on stdout). With a second argument, a file it creates when it starts
flooding (so a test knows the flood is under way)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def flood(marker: str | None) -> None:
    if marker:
        with open(marker, "w") as f:  # a FIFO the test reads, or a file
            f.write("flooding\n")
    chunk = b"info zzzz\n" * 6554  # 64 KiB a write
    try:
        while True:
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
    except BrokenPipeError:
        _common._gone()


where = sys.argv[1] if len(sys.argv) > 1 else "turn"
marker = sys.argv[2] if len(sys.argv) > 2 else None
if where == "handshake":
    flood(marker)
if where == "junk":
    _common.send("Loading model...")
_common.handshake("chatter")
for _turn in _common.turns():
    flood(marker)
