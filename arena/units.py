"""Values as people write them: durations and sizes parsed from text, and values quoted back in messages.

Pure (no I/O, nothing from the rest of arena but its error classes), so that both the tournament config and
the command line (`arena match --move-time 1.5s`) read a duration the same way and word a mistake the same way,
and so that the CLI can check its options without loading the config, the referee or YAML.

- Durations: ``parse_duration`` (whole milliseconds from ``250``, ``"250ms"``, ``"1.5s"``, ``"2m"``),
  ``bounded_duration`` (the same within bounds), ``duration_text`` (the way back), ``duration_expected``.
- Sizes: ``parse_size`` (bytes from ``"512M"``, ``"2G"``, ``"1.5GiB"``, powers of 1024), ``size_text``.
- CPU time: ``parse_cpu_seconds`` (whole seconds from ``300``, ``"300s"``, ``"5m"``).
- Quoting: ``short_repr`` and ``clip`` keep a value or a library's message on one short line;
  ``printable`` makes what a bot wrote safe to print on a terminal, ``stderr_tail`` the end of its stderr.

Every parser raises DurationError, which is both a ConfigError (arena exits 2 with its message) and a
ValueError (so argparse ``type=`` callers report it as a bad option value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from arena.errors import ConfigError

__all__ = [
    "CPU_EXPECTED",
    "DURATION_EXPECTED",
    "GiB",
    "KiB",
    "MiB",
    "SIZE_EXPECTED",
    "TiB",
    "DurationError",
    "bounded_duration",
    "clip",
    "duration_expected",
    "duration_text",
    "parse_cpu_seconds",
    "parse_duration",
    "parse_size",
    "printable",
    "short_repr",
    "stderr_tail",
    "size_text",
]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
TiB = 1024 * GiB


class DurationError(ConfigError, ValueError):
    """A duration or size is not written as one, or is out of bounds.

    The message is ``<value> <what>; expected <expected>``; ``what`` and ``expected`` are kept apart too, for
    callers that name the value their own way (a config's key path, an option's name).
    """

    def __init__(self, value: object, what: str, expected: str) -> None:
        super().__init__(f"{value!r} {what}; expected {expected}")
        self.value, self.what, self.expected = value, what, expected


# --------------------------------------------------------------------------------------------- durations

_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m)?\s*")
_DURATION_FACTOR = {None: 1, "ms": 1, "s": 1000, "m": 60_000}
DURATION_EXPECTED = "milliseconds, or a number with ms, s or m (250, 250ms, 1.5s, 2m)"


def parse_duration(value: str | int | float) -> int:
    """A duration in whole milliseconds: ``250`` (ms), ``"250ms"``, ``"1.5s"``, ``"2m"``. DurationError else."""
    return _scaled(value, _DURATION, _DURATION_FACTOR, DURATION_EXPECTED)


def bounded_duration(value: str | int | float, minimum: int, maximum: int, *, nullable: bool = False) -> int:
    """``parse_duration(value)`` if it is ``minimum..maximum`` ms, else DurationError.

    The error's ``what`` is ``is not a duration``, ``is too short`` or ``is too long``, and its ``expected``
    says what is allowed (``nullable``: the caller also takes null, for no limit, and the text says so).
    """
    expected = duration_expected(minimum, maximum, nullable)
    try:
        ms = parse_duration(value)
    except DurationError as e:
        what = "is not a whole number of milliseconds" if "whole number" in e.what else "is not a duration"
        raise DurationError(value, what, expected) from None
    if ms < minimum:
        raise DurationError(value, "is too short", expected)
    if ms > maximum:
        raise DurationError(value, "is too long", expected)
    return ms


def duration_text(ms: int) -> str:
    """A duration as a user would write it: ``10m``, ``1s``, ``250ms`` (the largest unit that is exact).

    Whole hours add a gloss, ``60m (1 hour)``; ``parse_duration`` reads back the part before it.
    """
    if ms and ms % 60_000 == 0:
        minutes = ms // 60_000
        hours = f" ({minutes // 60} hour{'s' if minutes > 60 else ''})" if minutes % 60 == 0 else ""
        return f"{minutes}m{hours}"
    if ms and ms % 1000 == 0:
        return f"{ms // 1000}s"
    return f"{ms}ms"


def duration_expected(minimum: int, maximum: int, nullable: bool = False) -> str:
    """The ``expected`` part of a message about a duration bounded to ``minimum..maximum`` ms."""
    return DURATION_EXPECTED + (f", at least {minimum} ms" if minimum else "") + \
        f", at most {duration_text(maximum)}" + (", or null (none)" if nullable else "")


# --------------------------------------------------------------------------------------------- sizes, CPU time

_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_SIZE_FACTOR = {None: 1, "": 1, "k": KiB, "m": MiB, "g": GiB, "t": TiB}
# the config's limits are the only sizes a user writes, and there null means unlimited: the text says so
SIZE_EXPECTED = "bytes, or a number with K, M, G (powers of 1024: 512M, 2G, 1.5GiB), or null (unlimited)"


def parse_size(value: str | int | float) -> int:
    """A size in bytes: ``1048576``, ``"1024K"``, ``"512M"``, ``"2G"``, ``"2GiB"``. DurationError else."""
    return _scaled(value, _SIZE, _SIZE_FACTOR, SIZE_EXPECTED, lower=True)


def size_text(n: int) -> str:
    """A size as a message shows it: ``1 MiB``, ``64 KiB``, ``1000 B`` (the largest unit that is exact).

    ``parse_size`` reads it back.
    """
    for unit, factor in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


_CPU = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|m)?\s*")
_CPU_FACTOR = {None: 1, "s": 1, "m": 60}
CPU_EXPECTED = "CPU seconds, or a number with s or m (300, 300s, 5m), or null (unlimited)"


def parse_cpu_seconds(value: str | int | float) -> int:
    """CPU time in whole seconds: ``300``, ``"300s"``, ``"5m"``. DurationError else."""
    return _scaled(value, _CPU, _CPU_FACTOR, CPU_EXPECTED)


def _scaled(
    value: object, pattern: re.Pattern[str], factors: Mapping[str | None, int], expected: str,
    lower: bool = False,
) -> int:
    """``value`` (a number, or text that ``pattern`` splits into a number and a unit) times its unit's factor.

    Decimal, not float: ``1.1s`` is exactly 1100 ms, and a fraction of the smallest unit is refused rather
    than rounded away.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DurationError(value, "is not a number", expected)
    if isinstance(value, int | float):
        if value < 0 or value != value or value in (float("inf"), float("-inf")):
            raise DurationError(value, "is not a positive number", expected)
        number, unit = Decimal(str(value)), None
    else:
        m = pattern.fullmatch(value)
        if not m:
            raise DurationError(value, "is not understood", expected)
        try:
            number = Decimal(m.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern only lets numbers through
            raise DurationError(value, "is not understood", expected) from None
        unit = m.group(2).lower() if lower and m.group(2) is not None else m.group(2)
    scaled = number * factors[unit]
    if scaled != scaled.to_integral_value():
        raise DurationError(value, "is not a whole number of the smallest unit", expected)
    return int(scaled)


# --------------------------------------------------------------------------------------------- quoting


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, so a message about a huge value stays one line."""
    if isinstance(value, str) and len(value) > limit:  # cut the text, not its repr: the count is the text's
        return f"{value[:limit - 20]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python converts to text (sys.get_int_max_str_digits)
        return "a number too large to print"
    if len(text) <= limit:
        return text
    return f"{text[:limit - 20]}... ({len(text)} characters)"


def clip(text: str, limit: int = 200) -> str:
    """``text`` on one line and at most about ``limit`` characters (for library messages quoted in ours)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit]}..."


# C0 controls but tab and newline, DEL, C1 controls (U+0080-U+009F: 8-bit CSI and OSC among them), and the
# bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069), which reorder what follows them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline shown as ``?``: what a bot wrote (its lines,
    stderr, a termination's detail) printed on a terminal cannot move the cursor, clear the screen, set the
    window's title or send anything back (ESC, CSI and OSC sequences lose their introducer), nor show its
    text in another order than it is (bidi overrides, on a terminal or a page)."""
    return _CONTROL.sub("?", text)


STDERR_TAIL_LINES = 5


def stderr_tail(text: str, lines: int = STDERR_TAIL_LINES, width: int = 160) -> list[str]:
    """The last non-blank lines of a bot's stderr, as safe to print: control characters (a terminal's
    escape sequences) shown as ``?`` (`printable`), each line cut to ``width`` characters."""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    out = []
    for line in kept:
        line = printable(line.expandtabs(4))
        out.append(line if len(line) <= width else line[:width - 3] + "...")
    return out
