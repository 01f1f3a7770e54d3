"""Seed derivation: every random choice in arena takes a seed derived here from named parts.

sha256 of the parts joined by '/', never Python's hash() (which is salted per process).
"""

from __future__ import annotations

import hashlib
import secrets


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts, stable across processes, machines and Python versions."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def random_seed() -> int:
    """A fresh 63-bit seed from the OS's randomness (``secrets``): what no one, a bot author included, can
    predict. Used when the user gives no seed; it is printed (and stored) so the run can be replayed."""
    return secrets.randbits(63)
