"""Shared plumbing for the test bots in this directory (stdlib only; never imports arena).

A bot script does ``sys.path.insert(0, <its own directory>)`` and ``import _common``, then::

    _common.handshake("mybot")          # wait for `arena ...`, answer `bot 1 mybot`
    for turn in _common.turns():        # every `turn` line, parsed; ends on `quit` or EOF
        _common.send(_common.first_legal(turn))

Everything written to stdout is flushed at once. If the referee has gone away (EPIPE) the bot exits 0
quietly, as it would at EOF.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator

RANKS = "9JQKTA"
SUITS = "cdhs"
# The 24 cards, suit by suit: 9c Jc Qc Kc Tc Ac 9d ... As.
ALL_CARDS = [rank + suit for suit in SUITS for rank in RANKS]


def log(text: str) -> None:
    """One line of debugging to stderr."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _gone() -> None:
    """The referee closed our stdout pipe: leave quietly, like at EOF."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    os._exit(0)


def send(line: str) -> None:
    """Write one line to the referee and flush."""
    try:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _gone()


def read_line() -> str | None:
    """The next line from the referee without its line ending, or None at EOF."""
    line = sys.stdin.readline()
    if not line:
        return None
    return line.rstrip("\r\n")


def handshake(name: str, version: str = "1") -> None:
    """Wait for the `arena ...` line and answer `bot <version> <name>`. Exits 0 on EOF or `quit`."""
    while True:
        line = read_line()
        if line is None or line == "quit":
            sys.exit(0)
        if line.split(" ", 1)[0] == "arena":
            send(f"bot {version} {name}")
            return
        log(f"{name}: ignoring {line[:80]!r} before the handshake")


def parse_turn(line: str) -> dict[str, str]:
    """The key=value fields of a `turn` line."""
    fields: dict[str, str] = {}
    for token in line.split()[1:]:
        key, sep, value = token.partition("=")
        if sep:
            fields[key] = value
    return fields


def turns() -> Iterator[dict[str, str]]:
    """Yield every `turn` line (parsed) after the handshake; ignore other lines; stop on `quit` or EOF."""
    while True:
        line = read_line()
        if line is None or line == "quit":
            return
        if line.split(" ", 1)[0] == "turn":
            yield parse_turn(line)


def cards(turn: dict[str, str], key: str) -> list[str]:
    """A comma-separated card list field (`-` is empty)."""
    value = turn.get(key, "-")
    return [] if value in ("", "-") else value.split(",")


def legal(turn: dict[str, str]) -> list[str]:
    """The legal actions in their wire form (`play:Th`, `close`, ...)."""
    return [a for a in turn.get("legal", "").split(",") if a]


def first_legal(turn: dict[str, str]) -> str:
    """The reply a correct minimal bot gives: the first legal entry, ':' written as a space."""
    return legal(turn)[0].replace(":", " ")


def sleep_forever() -> None:
    while True:
        time.sleep(3600)
