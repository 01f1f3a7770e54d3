#!/usr/bin/env python3
"""Handshake ok, then closes its stdout (file descriptor 1) and keeps running: it sleeps forever and
reads nothing more. stdin and stderr stay open."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("closed_stdout")
sys.stdout.flush()
os.close(1)
_common.sleep_forever()
