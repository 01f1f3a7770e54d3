"""A tournament's YAML file -> a validated, frozen TournamentConfig.

Every problem in a file is reported at once, each as ``<file>:<line>: <key path>: <what is wrong>; expected
<what>``, so a user fixes a config in one round trip. Line numbers come from the YAML nodes themselves
(``yaml.compose``), not from a second guess over the text. The schema is documented in docs/CONFIG.md.

Order of checks: the schema first (keys, types, values, rules); a bot's command is checked only once the rest
of its entry is valid, and not at all here when the bot has a ``build`` (the build may produce the program:
`arena.tournament.build.run_builds` checks it after building). load_config never runs anything.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import yaml

from arena.botspec import BotSpecError, check_command, split_command
from arena.errors import ConfigError
from arena.game.variants import PRESETS, RulesError, RuleSet
from arena.referee.clock import TimeControl  # the referee owns time control and limits; the config parses them
from arena.referee.process import Limits

__all__ = [
    "BotConfig",
    "ConfigFileError",
    "DurationError",
    "Limits",
    "Problem",
    "TimeControl",
    "TournamentConfig",
    "check_bot_command",
    "load_config",
    "parse_config",
    "parse_duration",
    "parse_size",
]

Format = Literal["round-robin", "gauntlet"]
ViolationPolicy = Literal["lose-match", "lose-deal", "random-move"]
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet")
VIOLATION_POLICIES: tuple[ViolationPolicy, ...] = ("lose-match", "lose-deal", "random-move")

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")
_TOKEN_EXPECTED = "a name made of letters, digits and _ . - (e.g. greedy-2)"


# --------------------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class BotConfig:
    """One bot: ``command`` is the resolved argv (absolute paths), ``command_text`` what the user wrote."""

    name: str
    command: tuple[str, ...]
    command_text: str
    cwd: Path | None = None
    build: str | None = None
    time: TimeControl = TimeControl()


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament. ``hash`` identifies the settings that determine results (see `settings`)."""

    name: str
    rules: RuleSet
    format: Format
    challenger: str | None
    rounds: int
    duplicate: bool
    seed: int
    concurrency: int
    workers: int
    time: TimeControl
    on_violation: ViolationPolicy
    limits: Limits
    reuse_bots: bool
    bots: tuple[BotConfig, ...]
    database: Path
    report_dir: Path
    source: Path
    text: str
    hash: str
    # key path ("bots[1].build") -> line in `source`, for messages about the file after loading.
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def directory(self) -> Path:
        """The config file's directory (absolute): relative commands and builds start from here."""
        return self.source.absolute().parent

    def bot(self, name: str) -> BotConfig:
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    def where(self, key_path: str) -> str:
        """``file:line`` of a key path, for messages (``file`` alone when the key has no line)."""
        line = self.lines.get(key_path)
        return f"{self.source}:{line}" if line else str(self.source)

    def settings(self) -> dict[str, Any]:
        """The settings that determine results, as plain JSON data; ``hash`` is computed from this.

        Not included, so changing them keeps the same tournament: concurrency, workers, output paths,
        limits, reuse_bots, cwd and build commands.
        """
        return _result_settings(
            self.rules, self.format, self.challenger, self.rounds, self.duplicate, self.seed, self.time,
            self.on_violation, self.bots,
        )


# --------------------------------------------------------------------------------------------- errors


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a config file. ``line`` is 1-based; ``key_path`` like ``bots[1].time.move``."""

    file: str
    line: int | None
    key_path: str | None
    what: str
    expected: str
    detail: str = ""  # more lines shown under the problem (e.g. the tail of a build's output)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        key = f" {self.key_path}:" if self.key_path else ""
        text = f"{where}:{key} {self.what}; expected {self.expected}"
        return f"{text}\n{self.detail}" if self.detail else text


class ConfigFileError(ConfigError):
    """A tournament config file has problems; ``problems`` holds all of them, in line order."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(sorted(problems, key=lambda p: p.line or 0))
        if len(self.problems) == 1:
            message = str(self.problems[0])
        else:
            files = sorted({p.file for p in self.problems})
            message = f"{len(self.problems)} problems in {', '.join(files)}:\n" + "\n".join(
                str(p) for p in self.problems
            )
        super().__init__(message)


class DurationError(ConfigError, ValueError):
    """A duration or size is not written as one. A ValueError too, so argparse ``type=`` reports it nicely."""


# --------------------------------------------------------------------------------------------- scalars

_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m)?\s*")
_DURATION_FACTOR = {None: 1, "ms": 1, "s": 1000, "m": 60_000}
DURATION_EXPECTED = "milliseconds, or a number with ms, s or m (250, 250ms, 1.5s, 2m)"


def parse_duration(value: str | int | float) -> int:
    """A duration in whole milliseconds: ``250`` (ms), ``"250ms"``, ``"1.5s"``, ``"2m"``. DurationError else."""
    return _scaled(value, _DURATION, _DURATION_FACTOR, DURATION_EXPECTED)


_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_SIZE_FACTOR = {None: 1, "": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1024 * GiB}
SIZE_EXPECTED = "bytes, or a number with K, M, G (powers of 1024: 512M, 2G, 1.5GiB), or null (unlimited)"


def parse_size(value: str | int | float) -> int:
    """A size in bytes: ``1048576``, ``"1024K"``, ``"512M"``, ``"2G"``, ``"2GiB"``. DurationError else."""
    return _scaled(value, _SIZE, _SIZE_FACTOR, SIZE_EXPECTED, lower=True)


_CPU = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|m)?\s*")
_CPU_FACTOR = {None: 1, "s": 1, "m": 60}
CPU_EXPECTED = "CPU seconds, or a number with s or m (300, 300s, 5m), or null (unlimited)"


def _scaled(
    value: object, pattern: re.Pattern[str], factors: Mapping[str | None, int], expected: str,
    lower: bool = False,
) -> int:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DurationError(f"{value!r} is not a number; expected {expected}")
    if isinstance(value, int | float):
        if value < 0 or value != value or value in (float("inf"), float("-inf")):
            raise DurationError(f"{value!r} is not a positive number; expected {expected}")
        number, unit = Decimal(str(value)), None
    else:
        m = pattern.fullmatch(value)
        if not m:
            raise DurationError(f"{value!r} is not understood; expected {expected}")
        try:
            number = Decimal(m.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern only lets numbers through
            raise DurationError(f"{value!r} is not understood; expected {expected}") from None
        unit = m.group(2).lower() if lower and m.group(2) is not None else m.group(2)
    scaled = number * factors[unit]
    if scaled != scaled.to_integral_value():
        raise DurationError(f"{value!r} is not a whole number of the smallest unit; expected {expected}")
    return int(scaled)


def _cpu_seconds(value: object) -> int:
    return _scaled(value, _CPU, _CPU_FACTOR, CPU_EXPECTED)


def cpu_count() -> int:
    """CPUs this process may use (what ``auto`` means for concurrency and workers)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------------------------- loading


def load_config(path: str | os.PathLike[str], *, cwd: Path | None = None) -> TournamentConfig:
    """Read and validate a tournament file; ConfigFileError (a ConfigError) lists every problem.

    Output paths (``output`` and its defaults) are relative to ``cwd`` (default: the current directory).
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileError([Problem(str(source), None, None, "file not found", "a tournament YAML file")]) \
            from None
    except IsADirectoryError:
        raise ConfigFileError(
            [Problem(str(source), None, None, "is a directory", "a tournament YAML file")]
        ) from None
    except UnicodeDecodeError as e:
        raise ConfigFileError(
            [Problem(str(source), None, None, f"is not UTF-8 text ({e.reason})", "a tournament YAML file")]
        ) from None
    except OSError as e:
        raise ConfigFileError(
            [Problem(str(source), None, None, f"cannot be read ({e.strerror})", "a readable YAML file")]
        ) from None
    return parse_config(text, source, cwd=cwd)


def parse_config(text: str, source: Path, *, cwd: Path | None = None) -> TournamentConfig:
    """Validate a tournament given as text; ``source`` names it in messages and anchors relative paths."""
    return _Parser(text, Path(source), Path.cwd() if cwd is None else Path(cwd)).parse()


def check_bot_command(config: TournamentConfig, bot: BotConfig) -> None:
    """Raise ConfigFileError (naming the file and line) unless the bot's command can be started now."""
    index = config.bots.index(bot)
    problems = []
    try:
        check_command(bot.command, bot.command_text, config.directory)
    except BotSpecError as e:
        key = f"bots[{index}].command"
        problems.append(Problem(str(config.source), config.lines.get(key), key, str(e), _COMMAND_EXPECTED))
    if bot.cwd is not None and not bot.cwd.is_dir():
        key = f"bots[{index}].cwd"
        problems.append(Problem(str(config.source), config.lines.get(key), key, f"directory {bot.cwd} not found",
                                _CWD_EXPECTED))
    if problems:
        raise ConfigFileError(problems)


_COMMAND_EXPECTED = "a program that exists and is executable, or is found on PATH"
_CWD_EXPECTED = "an existing directory (relative paths start at the config's directory)"

TOP_KEYS = (
    "name", "variant", "format", "challenger", "rounds", "duplicate", "seed", "concurrency", "workers",
    "time", "on_violation", "limits", "reuse_bots", "bots", "output",
)
TIME_KEYS = ("move", "bank", "handshake", "grace")
LIMIT_KEYS = ("memory", "cpu", "processes", "file_size")
BOT_KEYS = ("name", "command", "cwd", "build", "time")
OUTPUT_KEYS = ("database", "report")

_INVALID: Any = object()  # a value that was reported as a problem


@dataclass
class _Item:
    """One value in the YAML tree with where it came from."""

    node: yaml.Node
    path: str
    key_node: yaml.Node | None = None

    @property
    def line(self) -> int:
        """The key's line (where a user looks for ``time:``), or the value's for a list item."""
        return int((self.key_node or self.node).start_mark.line) + 1


class _Parser:
    def __init__(self, text: str, source: Path, cwd: Path) -> None:
        self.text = text
        self.source = source
        self.file = str(source)
        self.base_dir = source.absolute().parent
        self.cwd = cwd.absolute()
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}
        self.loader = yaml.SafeLoader(text)

    # --- reporting

    def problem(self, where: _Item | int | None, key_path: str | None, what: str, expected: str) -> None:
        line = where.line if isinstance(where, _Item) else where
        self.problems.append(Problem(self.file, line, key_path, what, expected))

    def bad(self, item: _Item, what: str, expected: str) -> Any:
        self.problem(item, item.path, what, expected)
        return _INVALID

    # --- YAML tree

    def compose(self) -> yaml.Node | None:
        try:
            return self.loader.get_single_node()
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            what = " ".join(s for s in (e.context, e.problem) if s)
            self.problem(mark.line + 1 if mark else None, None, f"YAML syntax error: {what}",
                         "valid YAML (check indentation, quotes and the space after each colon)")
        except yaml.YAMLError as e:  # e.g. a ReaderError: a character YAML does not allow
            self.problem(None, None, f"YAML error: {e}", "valid YAML text")
        return None

    def value(self, item: _Item) -> Any:
        try:
            return self.loader.construct_object(item.node, deep=True)
        except yaml.YAMLError as e:
            problem = getattr(e, "problem", None) or str(e)
            return self.bad(item, f"cannot read this value ({problem})", "plain YAML values")

    def mapping(self, item: _Item, keys: Sequence[str], expected: str,
                keys_expected: str | None = None) -> dict[str, _Item] | None:
        node = item.node
        if not isinstance(node, yaml.MappingNode):
            self.bad(item, f"{self.describe(item)} is not a mapping", expected)
            return None
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                self.problem(line, self.join(item.path, str(key)),
                             f"duplicate key (first at line {seen[key]})", "each key once")
            seen.setdefault(key, line)
        try:
            self.loader.flatten_mapping(node)  # `<<: *anchor` merges
        except yaml.YAMLError as e:
            self.bad(item, f"bad merge ({getattr(e, 'problem', e)})", "`<<:` followed by a mapping")
            return None
        out: dict[str, _Item] = {}
        for key_node, value_node in node.value:
            key = self.value(_Item(key_node, item.path))
            if key is _INVALID:
                continue
            if not isinstance(key, str):
                self.problem(key_node.start_mark.line + 1, item.path, f"key {key!r} is not text",
                             keys_expected or f"one of {', '.join(keys)}")
                continue
            path = self.join(item.path, key)
            if key not in keys:
                close = difflib.get_close_matches(key, keys, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.problem(key_node.start_mark.line + 1, path, f"unknown key{hint}",
                             keys_expected or f"one of {', '.join(keys)}")
                continue
            out[key] = _Item(value_node, path, key_node)  # a later (own) key overrides a merged one
            self.lines[path] = out[key].line
        return out

    def sequence(self, item: _Item, expected: str) -> list[_Item] | None:
        if not isinstance(item.node, yaml.SequenceNode):
            self.bad(item, f"{self.describe(item)} is not a list", expected)
            return None
        items = []
        for i, node in enumerate(item.node.value):
            child = _Item(node, f"{item.path}[{i}]")
            self.lines[child.path] = child.line
            items.append(child)
        return items

    @staticmethod
    def join(path: str, key: str) -> str:
        return f"{path}.{key}" if path else key

    def describe(self, item: _Item) -> str:
        node = item.node
        if isinstance(node, yaml.MappingNode):
            return "a mapping"
        if isinstance(node, yaml.SequenceNode):
            return "a list"
        value = self.value(item)
        if value is None or value == "":
            return "an empty value"
        return repr(value)

    # --- typed values (each returns _INVALID after reporting a problem)

    def scalar(self, item: _Item, expected: str) -> Any:
        if not isinstance(item.node, yaml.ScalarNode):
            return self.bad(item, f"{self.describe(item)} is not a single value", expected)
        return self.value(item)

    def integer(self, item: _Item, minimum: int | None = None, auto: bool = False) -> Any:
        expected = "an integer" + (f" >= {minimum}" if minimum is not None else "") + (" or auto" if auto else "")
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if auto and v == "auto":
            return cpu_count()
        if isinstance(v, bool) or not isinstance(v, int):
            return self.bad(item, f"{self.describe(item)} is not an integer", expected)
        if minimum is not None and v < minimum:
            return self.bad(item, f"{v} is too small", expected)
        return v

    def boolean(self, item: _Item) -> Any:
        v = self.scalar(item, "true or false")
        if v is _INVALID:
            return v
        if not isinstance(v, bool):
            return self.bad(item, f"{self.describe(item)} is not true or false", "true or false")
        return v

    def choice(self, item: _Item, choices: Sequence[str]) -> Any:
        expected = " | ".join(choices)
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if v not in choices:
            close = difflib.get_close_matches(str(v), choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return self.bad(item, f"{self.describe(item)} is not allowed{hint}", expected)
        return v

    def token(self, item: _Item) -> Any:
        v = self.scalar(item, _TOKEN_EXPECTED)
        if v is _INVALID:
            return v
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)  # `name: 2048` is a name, not a number
        if not isinstance(v, str) or not _TOKEN.fullmatch(v) or set(v) == {"."}:
            return self.bad(item, f"{self.describe(item)} is not a valid name", _TOKEN_EXPECTED)
        return v

    def text_value(self, item: _Item, expected: str) -> Any:
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = str(v)
        if not isinstance(v, str) or not v.strip():
            return self.bad(item, f"{self.describe(item)} is not text", expected)
        return v

    def duration(self, item: _Item, minimum: int, nullable: bool = False) -> Any:
        expected = DURATION_EXPECTED + (f", at least {minimum} ms" if minimum else "") + \
            (", or null (none)" if nullable else "")
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if v is None and nullable:
            return None
        try:
            ms = parse_duration(v)
        except DurationError:
            return self.bad(item, f"{self.describe(item)} is not a duration", expected)
        if ms < minimum:
            return self.bad(item, f"{self.describe(item)} is too short", expected)
        return ms

    def limit(self, item: _Item, parse: Any, expected: str) -> Any:
        v = self.scalar(item, expected)
        if v is _INVALID or v is None:
            return v
        try:
            n = parse(v)
        except DurationError:
            return self.bad(item, f"{self.describe(item)} is not understood", expected)
        if n < 1:
            return self.bad(item, f"{self.describe(item)} is too small", expected)
        return n

    # --- the schema

    def parse(self) -> TournamentConfig:
        root = self.compose()
        if root is None:
            if not self.problems:
                self.problem(1, None, "the file is empty", "a mapping with name, variant, bots, ...")
            raise ConfigFileError(self.problems)
        top = self.mapping(_Item(root, ""), TOP_KEYS, "a mapping with name, variant, bots, ... at the top")
        if top is None:
            raise ConfigFileError(self.problems)

        def get(key: str) -> _Item | None:
            return top.get(key)

        def optional(key: str, default: Any, read: Any) -> Any:
            item = get(key)
            if item is None:
                return default
            return read(item)

        name = self.required(top, "name", 1, self.token, _TOKEN_EXPECTED)
        rules = optional("variant", PRESETS["santase"], self.variant)
        fmt = optional("format", "round-robin", lambda i: self.choice(i, FORMATS))
        challenger = optional("challenger", None, self.token)
        rounds = optional("rounds", 1, lambda i: self.integer(i, 1))
        duplicate = optional("duplicate", True, self.boolean)
        seed = optional("seed", 0, self.integer)
        concurrency = optional("concurrency", cpu_count(), lambda i: self.integer(i, 1, auto=True))
        workers = optional("workers", 1, lambda i: self.integer(i, 1, auto=True))
        time = optional("time", TimeControl(), lambda i: self.time_control(i, TimeControl(), required=True))
        on_violation = optional("on_violation", "lose-match", lambda i: self.choice(i, VIOLATION_POLICIES))
        limits = optional("limits", Limits(), self.limits)
        reuse_bots = optional("reuse_bots", False, self.boolean)
        output = optional("output", {}, self.output)

        bots_item = get("bots")
        bots: list[BotConfig] = []
        if bots_item is None:
            self.problem(1, "bots", "missing", "a list of at least 2 bots, each with a name and a command")
        else:
            entries = self.sequence(bots_item, "a list of at least 2 bots, each with a name and a command")
            if entries is not None:
                bots = self.bots(entries, time if time is not _INVALID else TimeControl())
                if len(entries) < 2:
                    self.bad(bots_item, f"{len(entries)} bot{'s' if len(entries) != 1 else ''}",
                             "at least 2 bots")

        self.check_format(fmt, challenger, get("format"), get("challenger"), bots, bots_item)

        if self.problems:
            raise ConfigFileError(self.problems)

        database = output.get("database") or Path("reports") / name / "arena.db"
        report_dir = output.get("report") or Path("reports") / name
        bots_t = tuple(bots)
        digest = _hash(_result_settings(rules, fmt, challenger, rounds, duplicate, seed, time, on_violation,
                                        bots_t))
        return TournamentConfig(
            name=name, rules=rules, format=fmt, challenger=challenger, rounds=rounds, duplicate=duplicate,
            seed=seed, concurrency=concurrency, workers=workers, time=time, on_violation=on_violation,
            limits=limits, reuse_bots=reuse_bots, bots=bots_t,
            database=self.cwd / database, report_dir=self.cwd / report_dir,
            source=self.source, text=self.text, hash=digest, lines=dict(self.lines),
        )

    def required(self, mapping: dict[str, _Item], key: str, line: int, read: Any, expected: str,
                 path: str = "") -> Any:
        item = mapping.get(key)
        if item is None:
            self.problem(line, self.join(path, key), "missing", expected)
            return _INVALID
        return read(item)

    def variant(self, item: _Item) -> Any:
        known = ", ".join(PRESETS)
        if isinstance(item.node, yaml.ScalarNode):
            v = self.value(item)
            if v is _INVALID:
                return v
            if v not in PRESETS:
                close = difflib.get_close_matches(str(v), list(PRESETS), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                return self.bad(item, f"unknown variant {self.describe(item)}{hint}",
                                f"one of {known}, or a mapping {{preset: ..., <rule>: <value>}}")
            return PRESETS[v]
        if not isinstance(item.node, yaml.MappingNode):
            return self.bad(item, f"{self.describe(item)} is not a variant",
                            f"one of {known}, or a mapping {{preset: ..., <rule>: <value>}}")
        rule_names = [f.name for f in dataclasses.fields(RuleSet)]
        entries = self.mapping(
            item, ["preset", *rule_names, *(n.replace("_", "-") for n in rule_names)], "a mapping",
            keys_expected=f"preset, or a rule parameter: {', '.join(rule_names)}",
        )
        if entries is None:
            return _INVALID
        base = PRESETS["santase"]
        preset_item = entries.pop("preset", None)
        if preset_item is not None:
            p = self.choice(preset_item, list(PRESETS))
            if p is _INVALID:
                return _INVALID
            base = PRESETS[p]
        overrides: dict[str, Any] = {}
        ok = True
        for key, child in entries.items():
            value = self.value(child)
            if value is _INVALID:
                ok = False
                continue
            try:
                base.with_overrides({key: value})
            except RulesError as e:
                message = str(e)
                # Errors about this one value are reported here; errors about how values fit together
                # (e.g. deal_batches vs hand_size) only count once all overrides are applied, below.
                prefix = f"rule {key.replace('-', '_')}: "
                if message.startswith(prefix):
                    what, _, expected = message[len(prefix):].partition("; expected ")
                    self.bad(child, what, expected or "a value the rule allows (see `arena rules`)")
                    ok = False
                    continue
            overrides[key] = value
        if not ok:
            return _INVALID
        try:
            return base.with_overrides(overrides)
        except RulesError as e:
            what, _, expected = str(e).partition("; expected ")
            return self.bad(item, what, expected or "rule parameters that fit together (see docs/RULES.md)")

    def time_control(self, item: _Item, base: TimeControl, required: bool = False) -> Any:
        entries = self.mapping(item, TIME_KEYS, "a mapping with move, bank, handshake, grace")
        if entries is None:
            return _INVALID
        changes: dict[str, Any] = {}
        readers = {
            "move": lambda i: self.duration(i, 1),
            "bank": lambda i: self.duration(i, 0, nullable=True),
            "handshake": lambda i: self.duration(i, 1),
            "grace": lambda i: self.duration(i, 0),
        }
        for key, child in entries.items():
            changes[f"{key}_ms"] = readers[key](child)
        if any(v is _INVALID for v in changes.values()):
            return _INVALID
        return dataclasses.replace(base, **changes)

    def limits(self, item: _Item) -> Any:
        entries = self.mapping(item, LIMIT_KEYS, "a mapping with memory, cpu, processes, file_size")
        if entries is None:
            return _INVALID
        readers = {
            "memory": ("memory_bytes", parse_size, SIZE_EXPECTED),
            "cpu": ("cpu_seconds", _cpu_seconds, CPU_EXPECTED),
            "processes": ("processes", _count, "an integer >= 1, or null (unlimited)"),
            "file_size": ("file_size_bytes", parse_size, SIZE_EXPECTED),
        }
        changes: dict[str, Any] = {}
        for key, child in entries.items():
            attr, parse, expected = readers[key]
            changes[attr] = self.limit(child, parse, expected)
        if any(v is _INVALID for v in changes.values()):
            return _INVALID
        return dataclasses.replace(Limits(), **changes)

    def output(self, item: _Item) -> Any:
        if isinstance(item.node, yaml.ScalarNode) and self.value(item) is None:
            return {}
        entries = self.mapping(item, OUTPUT_KEYS, "a mapping with database and/or report")
        if entries is None:
            return {}
        out: dict[str, Path] = {}
        for key, child in entries.items():
            if isinstance(child.node, yaml.ScalarNode) and self.value(child) is None:
                continue
            v = self.text_value(child, "a path (relative to the current directory)")
            if v is not _INVALID:
                out[key] = Path(os.path.expanduser(v))
        return out

    def bots(self, entries: list[_Item], time: TimeControl) -> list[BotConfig]:
        bots: list[BotConfig] = []
        names: dict[str, int] = {}
        for entry in entries:
            before = len(self.problems)
            fields = self.mapping(entry, BOT_KEYS, "a mapping with name and command")
            if fields is None:
                continue
            name = self.required(fields, "name", entry.line, self.token, _TOKEN_EXPECTED, entry.path)
            if name is not _INVALID:
                if "-vs-" in name:
                    name = self.bad(fields["name"], f"{name!r} contains '-vs-'",
                                    "a name without '-vs-' (it separates the names in match ids)")
                elif name in names:
                    name = self.bad(fields["name"], f"duplicate bot name {name!r} (first at line {names[name]})",
                                    "a unique name for each bot")
                else:
                    names[name] = fields["name"].line
            command = self.required(fields, "command", entry.line, self.command, _COMMAND_TEXT_EXPECTED,
                                    entry.path)
            cwd = None
            if "cwd" in fields and self.value(fields["cwd"]) is not None:
                text = self.text_value(fields["cwd"], "a directory")
                cwd = _INVALID if text is _INVALID else \
                    Path(os.path.normpath(self.base_dir / os.path.expanduser(text)))
            build = None
            if "build" in fields and self.value(fields["build"]) is not None:
                build = self.text_value(fields["build"], "a shell command, e.g. make -C bots/c")
            bot_time = time
            if "time" in fields:
                bot_time = self.time_control(fields["time"], time)
            if len(self.problems) > before:
                continue
            command_text, argv = command
            bot = BotConfig(name=name, command=tuple(argv), command_text=command_text, cwd=cwd, build=build,
                            time=bot_time)
            if build is None:  # else the build may produce the program: checked after it ran
                self.check_runnable(bot, fields)
            bots.append(bot)
        return bots

    def command(self, item: _Item) -> Any:
        if isinstance(item.node, yaml.SequenceNode):
            parts = self.value(item)
            if parts is _INVALID:
                return parts
            if not parts or any(isinstance(p, bool) or not isinstance(p, str | int | float) for p in parts):
                return self.bad(item, "the list is empty or holds more than plain words",
                                _COMMAND_TEXT_EXPECTED)
            words = [str(p) for p in parts]
            text = shlex.join(words)
            source: str | list[str] = words
        else:
            text = self.text_value(item, _COMMAND_TEXT_EXPECTED)
            if text is _INVALID:
                return text
            source = text
        try:
            return text, split_command(source, self.base_dir)
        except BotSpecError as e:
            return self.bad(item, str(e), _COMMAND_TEXT_EXPECTED)

    def check_runnable(self, bot: BotConfig, fields: dict[str, _Item]) -> None:
        try:
            check_command(bot.command, bot.command_text, self.base_dir)
        except BotSpecError as e:
            self.bad(fields["command"], str(e), _COMMAND_EXPECTED)
        if bot.cwd is not None and not bot.cwd.is_dir():
            self.bad(fields["cwd"], f"directory {bot.cwd} not found", _CWD_EXPECTED)

    def check_format(self, fmt: Any, challenger: Any, fmt_item: _Item | None, ch_item: _Item | None,
                     bots: list[BotConfig], bots_item: _Item | None) -> None:
        names = [b.name for b in bots]
        if fmt == "gauntlet":
            if ch_item is None:
                self.problem(fmt_item, "challenger", "missing (format: gauntlet)",
                             "the name of the bot that plays every other bot")
            elif challenger is not _INVALID and names and challenger not in names:
                self.bad(ch_item, f"unknown bot {challenger!r}", f"one of the bots: {', '.join(names)}")
        elif fmt == "round-robin" and ch_item is not None:
            self.bad(ch_item, "a challenger is only used by format: gauntlet",
                     "no challenger, or format: gauntlet")


_COMMAND_TEXT_EXPECTED = "a command line, e.g. python bots/random.py --seed 3 (or a list of words)"


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DurationError(f"{value!r} is not an integer")
    return value


def _result_settings(
    rules: RuleSet, fmt: str, challenger: str | None, rounds: int, duplicate: bool, seed: int,
    time: TimeControl, on_violation: str, bots: Sequence[BotConfig],
) -> dict[str, Any]:
    return {
        "rules": rules.to_dict(),
        "format": fmt,
        "challenger": challenger,
        "rounds": rounds,
        "duplicate": duplicate,
        "seed": seed,
        "time": time.to_dict(),
        "on_violation": on_violation,
        # Bot order matters: it fixes each pairing's (a, b) order and so the match ids.
        "bots": [{"name": b.name, "command": b.command_text, "time": b.time.to_dict()} for b in bots],
    }


def _hash(settings: Mapping[str, Any]) -> str:
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()
