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


#: A chosen seed below this is guessable: people choose small numbers, dates and phone numbers, and a bot can
#: try millions of seeds a second against its own first hand (with the bot names and the tournament's name).
#: A random seed (`random_seed`) lies below it once in 2**23 draws.
GUESSABLE_BELOW = 2**40


def guessable_seed_warning(seed: int | None, where: str) -> str | None:
    """The one-line warning for a chosen ``seed`` a bot could guess (``where``: how the user gave it, e.g.
    "--seed 106" or "seed: 106 in t.yaml"), or None for no seed or a large one."""
    if seed is None or seed >= GUESSABLE_BELOW:
        return None
    return (f"WARNING: {where} is guessable: a bot that tries the small seeds can recompute every deal (from the "
            "seed and the bot names) and steer its draws; for a competition "
            "leave the seed out (a random one is drawn and kept in the database, to replay from) or choose a "
            "random one: python3 -c 'import secrets; print(secrets.randbits(63))'")
