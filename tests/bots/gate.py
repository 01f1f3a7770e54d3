#!/usr/bin/env python3
"""Correct play, unless held: with a folder DIR holding a file `hold`, the first process to reach its first
turn plays on (it makes DIR/passed; exactly one can), and every other one, at its first turn, never answers
(it reads on, and exits at `quit` or EOF). A run with a long move time then stores one match of this bot and
cannot finish until it is stopped, however slow or busy the machine; remove DIR/hold and every later
process plays as usual."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

folder = sys.argv[1]


def passes() -> bool:
    if not os.path.exists(os.path.join(folder, "hold")):
        return True
    try:
        os.close(os.open(os.path.join(folder, "passed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


_common.handshake("gate")
first = True
for turn in _common.turns():
    if first and not passes():  # held: no reply, ever; gone at `quit` or when the referee is (EOF)
        while _common.read_line() not in (None, "quit"):
            pass
        sys.exit(0)
    first = False
    _common.send(_common.first_legal(turn))
