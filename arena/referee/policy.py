"""What a violation costs: the tournament's ``on_violation`` and ``arena match --policy``.

A module of its own, with nothing but the standard library, so that the config schema and the CLI's
argument parser can list the policies without loading the referee (trio, processes).
"""

from __future__ import annotations

from enum import StrEnum


class ViolationPolicy(StrEnum):
    """What happens to a bot after a termination (docs/CONFIG.md). The value is the text in configs, on the
    command line and in the database."""

    LOSE_MATCH = "lose-match"  # the offender loses the match (the default)
    LOSE_DEAL = "lose-deal"  # the offender loses the deal; a new process plays on from the next deal
    RANDOM_MOVE = "random-move"  # the referee plays a random legal action for it; a new process plays on


MAX_VIOLATIONS = 5  # per bot per match, after which even the lenient policies forfeit the match
FORFEIT_GAME_POINTS = 3  # what the opponent wins for a deal lost under lose-deal
