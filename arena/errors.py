"""The few exception classes arena raises on purpose.

Anything that is an ArenaError is the user's or a bot's fault and is shown as one clear line; anything else
is a bug in arena and is allowed to show its traceback.
"""


class ArenaError(Exception):
    """Base class: the CLI prints the message and exits with ``exit_code``."""

    exit_code = 2


class ConfigError(ArenaError):
    """A user's input (rules, YAML config, command line) is wrong; the message says what and where."""


class StoreError(ArenaError):
    """The database cannot be used as asked (e.g. it belongs to a different tournament config)."""
