"""`arena new`: not written yet (issue 13)."""

from __future__ import annotations

from typing import Any


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    """Register the subcommand; until it is written, it is not offered."""
