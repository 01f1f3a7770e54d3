"""arena: a tournament platform for Santase / Sixty-Six / Schnapsen bots run as external processes.

The library API (docs/API.md): `run_tournament` runs a tournament from its YAML file, as `arena run` does;
`play_match` plays a series of matches between two bots, as `arena match` does. Both write the same
database schema; everything else is reached through the subpackages (arena.game for the rules).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "ArenaError",
    "ConfigError",
    "SeriesOutcome",
    "TimeControl",
    "TournamentOutcome",
    "play_match",
    "run_tournament",
]

# Loaded on first use: `import arena` (which every `arena.game` import runs first) stays as light as the
# rules need, and the CLI's `arena rules` does not pay for trio or the referee.
_HOMES = {
    "ArenaError": "arena.errors",
    "ConfigError": "arena.errors",
    "SeriesOutcome": "arena.api",
    "TimeControl": "arena.referee.clock",
    "TournamentOutcome": "arena.api",
    "play_match": "arena.api",
    "run_tournament": "arena.api",
}

if TYPE_CHECKING:
    from arena.api import SeriesOutcome, TournamentOutcome, play_match, run_tournament
    from arena.errors import ArenaError, ConfigError
    from arena.referee.clock import TimeControl


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        value = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'arena' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
