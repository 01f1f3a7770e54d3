#!/usr/bin/env python3
"""Correct play, but very chatty on stderr: 5 MiB at startup (before the handshake) and 1 MiB before
every turn reply. The writes are ordinary blocking writes, so the bot plays correctly exactly when the
referee keeps draining its stderr; a referee that does not will see it stall (a timeout)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

MIB = 1024 * 1024
LINE = b"stderr_flood: " + b"." * 49 + b"\n"  # 64 bytes


def flood(what: str, size: int) -> None:
    sys.stderr.buffer.write(f"stderr_flood: {what}: {size} bytes follow\n".encode())
    sys.stderr.buffer.write(LINE * (size // len(LINE)))
    sys.stderr.buffer.flush()


flood("startup", 5 * MIB)
_common.handshake("stderr_flood")
for count, turn in enumerate(_common.turns()):
    flood(f"turn {count}", MIB)
    _common.send(_common.first_legal(turn))
