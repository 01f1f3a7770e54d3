#!/usr/bin/env python3
"""Crashes at once, before the handshake: an uncaught exception, so Python prints a real traceback to
stderr and exits with status 1. Never reads stdin.

    crash_start.py [MARKER]

With MARKER (a file path), its first start, when MARKER does not exist yet, creates it and behaves: the
handshake, then exit 0 at `quit` or EOF (it passes `arena run`'s start-up check); every later start crashes
as above. A bot that starts once and then no more."""

import os
import sys


def start() -> None:
    raise RuntimeError("crash_start: deliberate crash before the handshake")


if len(sys.argv) > 1 and not os.path.exists(sys.argv[1]):
    open(sys.argv[1], "x").close()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True
    import _common

    _common.handshake("crash_start")
    for _turn in _common.turns():  # (it is never asked to play: only started and sent quit)
        pass
    sys.exit(0)
start()
