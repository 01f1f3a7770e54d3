#!/usr/bin/env python3
"""Handshake ok; at its first turn it forks a child that inherits stdin/stdout/stderr, keeps them open and
sleeps 3600 s, while the parent exits with status 0 without answering. The child stays in the parent's
process group (killing the group ends it) and logs its pid to stderr."""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("fork_child")
for _turn in _common.turns():
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    _common.log(f"fork_child: parent {os.getpid()} exits, child {pid} keeps stdout/stderr open")
    sys.exit(0)
