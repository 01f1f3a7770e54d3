#!/usr/bin/env python3
"""Reads everything the referee writes and never answers anything, not even the handshake.
Exits 0 only when its stdin reaches EOF."""

import sys

for _line in sys.stdin:
    pass
