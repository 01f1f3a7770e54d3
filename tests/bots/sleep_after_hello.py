#!/usr/bin/env python3
"""Handshake ok, then sleeps forever: it never reads another line or answers anything."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

_common.handshake("sleep_after_hello")
_common.sleep_forever()
