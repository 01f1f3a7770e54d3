"""Tournaments: a YAML config, its schedule, builds and provenance (the runner lives here too; the database is
arena.store). ``schedule`` pairs round robins and gauntlets up front; ``swiss`` pairs a Swiss a round at a
time from the stored results, with the FIDE Dutch system of caissify-pairings; and ladder, `arena ladder`'s
standing competition (admission, matchmaking in pair order, the runs that play it through the same runner).

The public names are re-exported here; the modules themselves are implementation detail.
"""

from arena.tournament.build import BuildResult, bot_provenance, run_builds
from arena.tournament.config import (
    BotConfig,
    ConfigFileError,
    Limits,
    Problem,
    TimeControl,
    TournamentConfig,
    load_config,
    parse_config,
)
from arena.tournament.schedule import MatchSpec, build_schedule

__all__ = [
    "BotConfig",
    "BuildResult",
    "ConfigFileError",
    "Limits",
    "MatchSpec",
    "Problem",
    "TimeControl",
    "TournamentConfig",
    "bot_provenance",
    "build_schedule",
    "load_config",
    "parse_config",
    "run_builds",
]
