"""arena.units: durations and sizes as people write them, read by the config and the CLI alike.

What arena writes (duration_text, size_text) it reads back; every malformed value is a DurationError that
is both a ConfigError (arena exits 2) and a ValueError (argparse-style callers catch it); and the module is
light enough for the CLI to check options without loading YAML or the referee.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from arena.errors import ConfigError
from arena.units import (
    DurationError,
    GiB,
    KiB,
    MiB,
    TiB,
    bounded_duration,
    clip,
    duration_expected,
    duration_text,
    parse_cpu_seconds,
    parse_duration,
    parse_size,
    short_repr,
    size_text,
)

# --------------------------------------------------------------------------------------------- durations


@pytest.mark.parametrize(
    "text, ms", [(250, 250), ("250", 250), ("250ms", 250), ("1s", 1000), ("1.5s", 1500), (" 2m ", 120_000),
                 ("0", 0), (".5s", 500), (2.0, 2), ("1.", 1), ("0.1s", 100), ("1.25 s", 1250), ("007ms", 7)],
)
def test_parse_duration(text: str | int, ms: int) -> None:
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["", "1h", "1 sec", "-1s", "1.0001s", "s", True, None, float("inf"), -3,
                                  float("nan"), 0.1, "1S", "1,5s", "1e3", "2 m s"])
def test_parse_duration_rejects(text: object) -> None:
    # a ValueError too, so the CLI's argparse-style callers catch it; a ConfigError, so arena exits 2
    with pytest.raises(DurationError) as info:
        parse_duration(text)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and isinstance(info.value, ConfigError)
    assert "expected milliseconds" in str(info.value)


@pytest.mark.parametrize("value, what", [
    ("1x", "is not understood"), (-3, "is not a positive number"), (None, "is not a number"),
    ("1.0001s", "is not a whole number of the smallest unit"),
])
def test_duration_error_says_what_and_expected(value: object, what: str) -> None:
    with pytest.raises(DurationError) as info:
        parse_duration(value)  # type: ignore[arg-type]
    e = info.value
    assert (e.value, e.what) == (value, what)
    assert str(e) == f"{value!r} {what}; expected milliseconds, or a number with ms, s or m (250, 250ms, 1.5s, 2m)"


@pytest.mark.parametrize("ms, text", [(0, "0ms"), (1, "1ms"), (1500, "1500ms"), (1000, "1s"), (59_000, "59s"),
                                      (60_000, "1m"), (90_000, "90s"), (600_000, "10m"),
                                      (3_600_000, "60m (1 hour)"), (86_400_000, "1440m (24 hours)")])
def test_duration_text(ms: int, text: str) -> None:
    assert duration_text(ms) == text


@pytest.mark.parametrize("ms", [0, 1, 999, 1000, 1001, 59_999, 60_000, 61_000, 3_600_000, 5_400_000, 86_400_000,
                                2**40])
def test_duration_text_reads_back(ms: int) -> None:
    written = duration_text(ms)
    assert parse_duration(written.split(" (")[0]) == ms  # whole hours add a gloss after the minutes


def test_duration_expected() -> None:
    assert duration_expected(1, 3_600_000) == ("milliseconds, or a number with ms, s or m (250, 250ms, 1.5s, 2m), "
                                               "at least 1 ms, at most 60m (1 hour)")
    assert duration_expected(0, 86_400_000, nullable=True) == (
        "milliseconds, or a number with ms, s or m (250, 250ms, 1.5s, 2m), at most 1440m (24 hours), "
        "or null (none)")


def test_bounded_duration() -> None:
    assert bounded_duration("1s", 1, 1000) == 1000
    assert bounded_duration(1, 1, 1000) == 1
    expected = duration_expected(1, 1000)
    for value, what in [("0", "is too short"), ("1001ms", "is too long"), ("soon", "is not a duration"),
                        ("-1", "is not a duration"), ("0.5ms", "is not a whole number of milliseconds")]:
        with pytest.raises(DurationError) as info:
            bounded_duration(value, 1, 1000)
        assert (info.value.what, info.value.expected) == (what, expected), value
    with pytest.raises(DurationError) as info:
        bounded_duration("2s", 0, 1000, nullable=True)
    assert info.value.expected.endswith(", or null (none)")


# --------------------------------------------------------------------------------------------- sizes, CPU time


@pytest.mark.parametrize("text, n", [(4096, 4096), ("1K", 1024), ("512M", 512 * 1024**2), ("2G", 2 * 1024**3),
                                     ("1.5GiB", 3 * 1024**3 // 2), ("64mb", 64 * 1024**2), ("1t", TiB),
                                     (" 3 KiB ", 3 * KiB), ("10b", 10), ("0.5k", 512), ("2.0", 2)])
def test_parse_size(text: str | int, n: int) -> None:
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["", "1P", "1.5", "0.1K", "-1M", "M", "1 MB B", True, None, float("inf")])
def test_parse_size_rejects(text: object) -> None:
    with pytest.raises(DurationError) as info:
        parse_size(text)  # type: ignore[arg-type]
    assert "expected bytes, or a number with K, M, G" in str(info.value)


@pytest.mark.parametrize("n, text", [(0, "0 B"), (1, "1 B"), (1000, "1000 B"), (KiB, "1 KiB"), (MiB, "1 MiB"),
                                     (3 * MiB // 2, "1536 KiB"), (GiB, "1 GiB"), (4 * TiB, "4 TiB")])
def test_size_text(n: int, text: str) -> None:
    assert size_text(n) == text
    assert parse_size(text) == n  # what arena writes, it reads back


@pytest.mark.parametrize("text, s", [(300, 300), ("300s", 300), ("5m", 300), ("1.5m", 90), (" 2 s", 2)])
def test_parse_cpu_seconds(text: str | int, s: int) -> None:
    assert parse_cpu_seconds(text) == s


@pytest.mark.parametrize("text", ["1ms", "0.5", "1h", "-1", None])
def test_parse_cpu_seconds_rejects(text: object) -> None:
    with pytest.raises(DurationError, match="expected CPU seconds"):
        parse_cpu_seconds(text)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- quoting


def test_short_repr_keeps_one_short_line() -> None:
    assert short_repr("abc") == "'abc'"
    assert short_repr("x" * 1000) == f"{'x' * 40!r}... (1000 characters)"
    assert short_repr(list(range(100))).endswith("... (390 characters)")
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(5000)  # the default (4300) may have been lifted: set one
    try:
        assert short_repr(10**6000) == "a number too large to print"
    finally:
        sys.set_int_max_str_digits(limit)


def test_clip() -> None:
    assert clip("a\n  b\tc") == "a b c"
    assert clip("y" * 300) == "y" * 200 + "..."
    assert clip("z" * 50, 10) == "z" * 10 + "..."


def test_importing_units_loads_nothing_heavy() -> None:
    """The CLI parses options with it before deciding what to load; YAML and the referee must not come along."""
    code = "import sys, json, arena.units; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "arena.units" in loaded
    heavy = {m for m in loaded if m.split(".")[0] in {"yaml", "trio", "sqlite3", "jinja2"}
             or m.startswith(("arena.referee", "arena.tournament", "arena.game"))}
    assert not heavy
