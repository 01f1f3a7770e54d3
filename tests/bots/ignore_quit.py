#!/usr/bin/env python3
"""A correct bot that does not exit at `quit`: it reads on and exits 0 only at the end of its input (which
the referee closes only when it stops the process)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("ignore_quit")
while True:
    line = _common.read_line()
    if line is None:
        sys.exit(0)
    if line.startswith("turn "):
        _common.send(_common.first_legal(_common.parse_turn(line)))
