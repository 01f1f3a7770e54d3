#!/usr/bin/env python3
"""Handshake ok; at its first turn tries to allocate 4 GiB. Under an address-space limit that fails
(MemoryError, exit status 1) and the referee records `crash`; unlimited it would answer late or be
killed by the OOM killer."""

import sys

from _common import handshake, read_line

handshake("memory_hog")
while True:
    line = read_line()
    if line is None:
        sys.exit(0)
    if line.startswith("turn "):
        hog = bytearray(4 * 1024**3)
        print("play 9c", flush=True)
