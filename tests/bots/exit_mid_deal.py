#!/usr/bin/env python3
"""Answers the first N turns correctly (argv[1], default 3); when turn N+1 arrives it exits with status 3
without answering."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3

_common.handshake("exit_mid_deal")
for count, turn in enumerate(_common.turns()):
    if count >= n:
        _common.log(f"exit_mid_deal: exiting with status 3 after {n} turns")
        sys.exit(3)
    _common.send(_common.first_legal(turn))
