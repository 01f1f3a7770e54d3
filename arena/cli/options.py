"""Option parsing shared by the subcommands: bounded integers, durations, rule overrides, names; and the
few lines of output they share (a termination with the end of the bot's stderr).

Light on purpose: building the parser must not load trio or the referee, so `arena rules` stays fast.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.game.variants import PRESETS, RulesError, RuleSet
from arena.units import printable, short_repr, stderr_tail


@contextmanager
def reading_database(path: Path) -> Iterator[None]:
    """Reading a database handed to arena (docs/SECURITY.md: it is data from elsewhere): whatever in it is not
    what arena wrote (a damaged or crafted file, a wrong column, a bad compressed blob) ends in one line."""
    try:
        yield
    except ArenaError:
        raise
    except (sqlite3.DatabaseError, zlib.error, TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
        raise ArenaError(f"{path}: not a usable arena database: damaged, or not written by this arena "
                         f"({type(e).__name__}: {short_repr(str(e), 120)[1:-1]})") from None


def int_option(option: str, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=``: an integer within the option's bounds (``maximum``: a command's own, lower
    one), else an error saying what was expected.

    Checked on the text before int() converts it: a number of thousands of digits is refused, not parsed.
    The bounds are the config's (arena.tournament.config), imported only when a value is parsed: building
    the parser must not load the referee, so that `arena rules` stays light.
    """

    def parse(text: str) -> int:
        from arena.tournament import config as c

        lo, hi, shown_hi = {
            "--matches": (1, c.MAX_MATCHES, ""),
            "--seed": (0, c.SEED_LIMIT - 1, f"{c.SEED_LIMIT - 1} (2**63 - 1)"),
            "--concurrency": (1, c.MAX_CONCURRENCY, ""),
            "--workers": (1, c.MAX_WORKERS, ""),
            "--pairs": (1, c.MAX_MATCHES, ""),
            "--pairs-in-flight": (1, c.MAX_CONCURRENCY, ""),
        }[option]
        hi = hi if maximum is None else min(hi, maximum)
        expected = f"an integer from {lo} to {shown_hi or hi}"
        t = text.strip()
        if not re.fullmatch(r"[-+]?[0-9]+", t):
            raise argparse.ArgumentTypeError(f"{short_repr(text)} is not an integer; expected {expected}")
        digits = t.lstrip("+-").lstrip("0")
        n = int(t) if len(digits) <= 30 else (-1 if t.startswith("-") else 1) * 10**30
        if n < lo:
            raise argparse.ArgumentTypeError(f"{short_repr(text)} is too small; expected {expected}")
        if n > hi:
            raise argparse.ArgumentTypeError(f"{short_repr(text)} is too large; expected {expected}")
        return n

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def duration_option(text: str, what: str, key: str) -> int:
    """A duration option in milliseconds, within the bounds of the config's ``time.<key>``."""
    from arena.tournament.config import TIME_BOUNDS
    from arena.units import DurationError, bounded_duration

    try:
        return bounded_duration(text, *TIME_BOUNDS[key])
    except DurationError as e:  # worded as the config words it, with the option in place of the key path
        raise ConfigError(f"{what}: {short_repr(text)} {e.what}; expected {e.expected}") from None


def rules_option(variant: str, overrides: list[str] | None) -> RuleSet:
    """``--variant`` and ``--set`` as a rule set; ConfigError naming the option that is wrong."""
    if variant not in PRESETS:
        close = difflib.get_close_matches(variant, list(PRESETS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"--variant: unknown variant {short_repr(variant)}{hint}; "
                          f"expected one of {', '.join(PRESETS)}")
    try:
        return PRESETS[variant].with_overrides(parse_overrides(overrides))
    except RulesError as e:
        raise ConfigError(f"--set: {e}") from None


def names_option(names: list[str]) -> tuple[str, str]:
    """``--names``: valid names (they name the transcript files and the summary's columns), not equal."""
    from arena.tournament.config import name_problem

    for name in names:
        wrong = name_problem(name)
        if wrong is not None:
            raise ConfigError(f"--names: {wrong[0]}; expected {wrong[1]}")
    if names[0] == names[1]:
        raise ConfigError(f"--names: both bots are called {short_repr(names[0])}; expected two different names")
    return names[0], names[1]


def transcripts_option(directory: Path) -> None:
    """``--transcripts``: a directory that exists or is created now, and that arena may write into."""
    expected = "a directory (it is created if missing) that arena may write into"
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--transcripts: {directory} exists and is not a directory; expected {expected}")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"--transcripts: cannot create {directory} ({e.strerror or e}); expected {expected}") \
            from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ConfigError(f"--transcripts: {directory} is not writable; expected {expected}")


_MAX_SET_CHARS = 200  # longer than any rule value; keeps YAML's int() and every message short


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``--set NAME=VALUE`` options as rule overrides; values are read as YAML scalars (7, true, 3,3).

    A value is one plain value or a flat list of them (``[3, 3]``); anything else (nesting, mappings, tags,
    aliases that repeat a list) is refused here, so the rule checks never see, nor print, a huge value.
    """
    import yaml

    expected = "NAME=VALUE with a plain value, e.g. --set match_target=7 or --set deal_batches=[3,3]"
    known = sorted(f.name for f in fields(RuleSet))
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ArenaError(f"--set: {short_repr(item)} is not NAME=VALUE; expected {expected}")
        key, value = item.split("=", 1)
        key = key.strip()
        if not key:
            raise ArenaError(f"--set: {short_repr(item)} has no rule name; expected {expected}")
        if key.replace("-", "_") not in known:  # as a YAML typo is met: the closest name, then every name
            close = difflib.get_close_matches(key.replace("-", "_"), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ArenaError(f"--set: unknown rule parameter {short_repr(key)}{hint}; known parameters: "
                             f"{', '.join(known)}")
        if len(value) > _MAX_SET_CHARS:
            raise ArenaError(f"--set: the value of {short_repr(key)} has {len(value)} characters; expected at most "
                             f"{_MAX_SET_CHARS}")
        try:
            parsed = yaml.safe_load(value)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError, OverflowError) as e:
            # YAML syntax, and constructors: int() of too many digits, a date that does not exist, ...
            what = " ".join(str(getattr(e, "problem", None) or e).split())[:200]
            raise ArenaError(f"--set: cannot read the value of {short_repr(key)} ({what}); expected {expected}") \
                from None
        plain = (str, int, float, bool, type(None))
        if not isinstance(parsed, plain) and not (isinstance(parsed, list)
                                                  and all(isinstance(v, plain) for v in parsed)):
            raise ArenaError(f"--set: the value of {short_repr(key)} is not a plain value or a list of them; "
                             f"expected {expected}")
        out[key] = parsed
    return out




def termination_note(bot: str, kind: str, match_id: str, detail: str | None, stderr: str, indent: str = "  ",
                     count: int = 1) -> list[str]:
    """A bot's (first) termination as a user reads it under a summary: what, where, why, and the end of its
    stderr there (a crash at start-up is usually explained by its last lines, e.g. a traceback)."""
    others = f" (the first of {count} terminations)" if count > 1 else ""
    lines = [f"{indent}{bot}: {kind}{others} in match {match_id}" + (":" if detail else "")]
    if detail:
        lines.append(f"{indent}  {printable(' '.join(detail.split()))[:300]}")
    tail = stderr_tail(stderr)
    if tail:
        lines.append(f"{indent}  its stderr ended with:")
        lines.extend(f"{indent}    | {line}" for line in tail)
    return lines


def add_rules_options(p: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--set``, read together by `rules_option`."""
    p.add_argument("--variant", default="santase", help=f"preset: {', '.join(PRESETS)} (default santase)")
    add_set_option(p)


def add_set_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="override one rule (repeatable)")


def add_sandbox_option(p: argparse.ArgumentParser, confined: str = "the bots") -> None:
    from arena.referee.sandbox import SANDBOX_KINDS

    p.add_argument("--sandbox", choices=SANDBOX_KINDS, default=None,
                   help=f"confine {confined}: bwrap (bubblewrap) or none (default: bwrap when available)")
