"""A tournament's YAML file -> a validated, frozen TournamentConfig.

This module is the schema; the text is read by arena.tournament.yamlread, which keeps each value's line and
key path, and durations and sizes are parsed by arena.units (the CLI's options share both). Every problem in a
file is reported at once, each as ``<file>:<line>: <key path>: <what is wrong>; expected <what>``, so a user
fixes a config in one round trip. The schema is documented in docs/CONFIG.md.

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
from pathlib import Path
from typing import Any, Literal

from arena.botspec import BotSpecError, check_command, confine_command, split_command
from arena.errors import ConfigError
from arena.game.variants import PRESETS, RulesError, RuleSet
from arena.referee.clock import TimeControl  # the referee owns time control and limits; the config parses them
from arena.referee.policy import ViolationPolicy
from arena.referee.process import Limits
from arena.referee.sandbox import SANDBOX_KINDS, SandboxKind
from arena.tournament.yamlread import Item, YamlDocument, YamlError, read_file, read_yaml
from arena.units import (
    DurationError,
    MiB,
    TiB,
    bounded_duration,
    clip,
    duration_expected,
    parse_cpu_seconds,
    parse_size,
    short_repr,
)

__all__ = [
    "BotConfig",
    "ConfigFileError",
    "ExecutorConfig",
    "Limits",
    "Problem",
    "TimeControl",
    "TournamentConfig",
    "check_bot_command",
    "load_config",
    "parse_config",
    "parse_executor",
]

Format = Literal["round-robin", "gauntlet", "swiss"]
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet", "swiss")
SWISS_EXTRA_ROUNDS = 2  # a Swiss's rounds when none are given: ceil(log2(bots)) + this, at most bots - 1
VIOLATION_POLICIES: tuple[str, ...] = tuple(p.value for p in ViolationPolicy)  # as written in a config

_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # not "-x" (a match id would read as an option), not ".."
MAX_NAME = 64  # characters of a tournament or bot name (it names files and directories, and table columns)
_TOKEN_EXPECTED = "a name made of letters, digits and _ . -, that begins with a letter, digit or _ (e.g. greedy-2)"

# Bounds on what a user may ask for. Each keeps a typo (an extra zero or three) from turning into a run
# that never ends, a schedule that fills the memory, or an OS limit nobody can mean; each is far beyond any
# real tournament. docs/CONFIG.md lists them; `arena match` uses the same ones for its options.
MAX_ROUNDS = 100_000
MAX_MATCHES = 1_000_000  # rounds x pairings x 2, and `arena match --matches`
MAX_BOTS = 1000
MAX_CONCURRENCY = 256
MAX_WORKERS = 64
SEED_LIMIT = 2**63  # seeds are 0 <= seed < 2**63, what every derived seed is too (arena.seeds)
# duration keys: (least, most) milliseconds
TIME_BOUNDS: Mapping[str, tuple[int, int]] = {
    "move": (1, 3_600_000),  # 1 hour
    "bank": (0, 86_400_000),  # 24 hours
    "handshake": (1, 600_000),  # 10 minutes
    "grace": (0, 60_000),  # 1 minute
}
MEMORY_BOUNDS = (1 * MiB, 1 * TiB)  # less than 1 MiB of address space cannot even start an interpreter
FILE_SIZE_BOUNDS = (1, 1 * TiB)
CPU_BOUNDS = (1, 86_400)  # 1 day of CPU seconds
PROCESS_BOUNDS = (1, 4096)
CPUS_BOUNDS = (0.01, 1024)
# The config file's own bounds (size, nesting, values) are the YAML reader's: see arena.tournament.yamlread.


def name_problem(name: str) -> tuple[str, str] | None:
    """``(what is wrong, what was expected)`` for a tournament or bot name, or None when it is a valid name."""
    if len(name) > MAX_NAME:
        return f"{short_repr(name)} is too long", f"a name of at most {MAX_NAME} characters"
    if not _TOKEN.fullmatch(name):
        return f"{short_repr(name)} is not a valid name", _TOKEN_EXPECTED
    return None


def splits_match_ids(name: str) -> bool:
    """Whether a bot name would make two match ids the same. An id reads ``<a>-vs-<b>-p<pair>-g<game>``:
    with names that neither hold ``-vs-`` nor begin with ``vs-`` nor end with ``-vs``, only one split of an
    id gives two names (``a-vs`` against ``b`` and ``a`` against ``vs-b`` would both be ``a-vs-vs-b``)."""
    return "-vs-" in f"-{name}-"


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
    # `ship:` (the Dask executor only): True sends the bot's folder to every worker, a tuple sends those
    # files and folders (absolute); False: the workers find the bot at its own paths (a shared filesystem)
    ship: bool | tuple[Path, ...] = False
    build_network: bool = False  # the build may reach the network (in its sandbox it has none otherwise)
    # `sandbox_paths:` more files and folders (absolute) shown read-only in the bot's sandbox, at their paths
    sandbox_paths: tuple[Path, ...] = ()
    # the command came from a stranger (an upload): resolved inside ``cwd`` and naming nothing outside it
    # (arena.botspec.confine_command), and its build may write ``cwd`` alone
    confined: bool = False


ExecutorKind = Literal["local", "dask"]
DASK_SCHEMES = ("tcp", "tls", "ws", "wss")
_DASK_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(?P<port>[0-9]+))?")
EXECUTOR_EXPECTED = "local, {dask: tcp://HOST:PORT} (a running Dask scheduler) or {dask: local, workers: N}"


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the matches are played (`executor:`). ``local``: on this machine (`workers` referee processes).
    ``dask``: as tasks of the Dask scheduler at ``address``, or, with ``address`` None, of a LocalCluster of
    ``workers`` processes that `arena run` starts on 127.0.0.1. Not in the hash: it never changes a result."""

    kind: ExecutorKind = "local"
    address: str | None = None
    workers: int | None = None

    def __str__(self) -> str:
        if self.kind == "local":
            return "local"
        if self.address is not None:
            return f"dask:{self.address}"
        return "dask:local" if self.workers is None else f"dask:local ({self.workers} workers)"


def dask_address_problem(text: str) -> str | None:
    """Why ``text`` is not a Dask scheduler address (``tcp://HOST:PORT``, ``HOST:PORT``), or None."""
    m = _DASK_ADDRESS.fullmatch(text)
    if m is None:
        return f"{short_repr(text)} is not a scheduler address"
    if m["scheme"] is not None and m["scheme"] not in DASK_SCHEMES:
        return f"{short_repr(text)}: the scheme {m['scheme']}:// is not one Dask's scheduler listens on here"
    if m["port"] is not None and not 0 < int(m["port"][:6]) < 65536:
        return f"{short_repr(text)}: the port {m['port']} is not between 1 and 65535"
    return None


def parse_executor(text: str) -> ExecutorConfig:
    """``arena run --executor``: local, dask:local or dask:tcp://HOST:PORT; ValueError says what is wrong."""
    t = text.strip()
    if t == "local":
        return ExecutorConfig()
    if t == "dask:local":
        return ExecutorConfig("dask", None, None)
    if t.startswith("dask:"):
        address = t[len("dask:"):]
        problem = dask_address_problem(address)
        if problem is None:
            return ExecutorConfig("dask", address if "://" in address else f"tcp://{address}")
        raise ValueError(f"{problem}; expected local, dask:local or dask:tcp://HOST:PORT")
    hint = " (did you mean dask:local?)" if t == "dask" else ""
    raise ValueError(f"{short_repr(text)} is not an executor{hint}; expected local, dask:local or dask:tcp://HOST:PORT")


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament. ``hash`` identifies the settings that determine results (see `settings`)."""

    name: str
    rules: RuleSet
    format: Format
    challenger: str | None
    rounds: int  # pairs per pairing; for a Swiss, its rounds (each one pair per pairing)
    duplicate: bool
    # None: no `seed:` in the file; `arena run` then draws one and keeps it in the database, and the hash
    # holds None, so a resume of that tournament matches its own hash.
    seed: int | None
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
    # `sandbox:` as written: bwrap | none; None (no key) = bubblewrap when it is available. Not in the hash: it
    # changes how bots are confined, not what they play.
    sandbox: SandboxKind | None = None
    executor: ExecutorConfig = ExecutorConfig()  # where matches are played; not in the hash
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

        Not included, so changing them keeps the same tournament: concurrency, workers, executor, output
        paths, limits, sandbox, reuse_bots, cwd, build commands, ship and sandbox_paths.
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


# --------------------------------------------------------------------------------------------- limits

# what each `limits` key takes, with its bounds (the words before the bounds follow arena.units'
# SIZE_EXPECTED and CPU_EXPECTED, what parse_size and parse_cpu_seconds say about a value they do not understand)
LIMIT_EXPECTED = {
    "memory": "bytes, or a number with K, M, G or T (powers of 1024: 512M, 2G, 1.5GiB), "
              f"from {MEMORY_BOUNDS[0] // MiB}M to {MEMORY_BOUNDS[1] // TiB}T, or null (unlimited)",
    "cpu": f"CPU seconds, or a number with s or m (300, 300s, 5m), from {CPU_BOUNDS[0]} to {CPU_BOUNDS[1]} "
           "(1 day), or null (unlimited)",
    "processes": f"an integer >= {PROCESS_BOUNDS[0]}, at most {PROCESS_BOUNDS[1]}, or null (unlimited)",
    "cpus": f"a number of CPUs (1, 0.5, 2) from {CPUS_BOUNDS[0]} to {CPUS_BOUNDS[1]}, or null (no quota)",
    "file_size": "bytes, or a number with K, M, G or T (powers of 1024: 64M, 1G), "
                 f"from {FILE_SIZE_BOUNDS[0]} byte to {FILE_SIZE_BOUNDS[1] // TiB}T, or null (unlimited)",
}


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
        text = read_file(source, _FILE_EXPECTED)
    except YamlError as e:
        raise ConfigFileError([_yaml_problem(source, e)]) from None
    return parse_config(text, source, cwd=cwd)


def parse_config(text: str, source: Path, *, cwd: Path | None = None) -> TournamentConfig:
    """Validate a tournament given as text; ``source`` names it in messages and anchors relative paths."""
    source = Path(source)
    try:
        document = read_yaml(text, _FILE_EXPECTED)
    except YamlError as e:  # the text as a whole cannot be read: nothing to check further
        raise ConfigFileError([_yaml_problem(source, e)]) from None
    return _Parser(document, text, source, Path.cwd() if cwd is None else Path(cwd)).parse()


_FILE_EXPECTED = "a tournament YAML file"


def _yaml_problem(source: Path, e: YamlError) -> Problem:
    return _problem(str(source), e.line, e.key_path, e.what, e.expected)


def _problem(file: str, line: int | None, key_path: str | None, what: str, expected: str) -> Problem:
    if key_path is not None:  # a key may hold a newline or be a page long: the message stays one line
        key_path = clip(key_path, 100)
    return Problem(file, line, key_path, what, expected)


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
    missing = _missing_path(bot.sandbox_paths)
    if missing is not None:
        key = f"bots[{index}].sandbox_paths"
        problems.append(Problem(str(config.source), config.lines.get(key), key, f"{missing} not found",
                                SANDBOX_PATHS_EXPECTED))
    if problems:
        raise ConfigFileError(problems)


_COMMAND_EXPECTED = "a program that exists and is executable, or is found on PATH"
_CWD_EXPECTED = "an existing directory (relative paths start at the config's directory)"
SANDBOX_PATHS_EXPECTED = ("a list of existing files and folders the bot's sandbox shows read-only, e.g. "
                          "sandbox_paths: [/opt/jdk, /etc/mybot.conf] (relative paths start at the config's "
                          "directory)")


def _missing_path(paths: Iterable[Path]) -> Path | None:
    """The first of ``paths`` that does not exist (None: all do)."""
    return next((p for p in paths if not os.path.lexists(p)), None)

TOP_KEYS = (
    "name", "variant", "format", "challenger", "rounds", "duplicate", "seed", "concurrency", "workers",
    "time", "on_violation", "limits", "reuse_bots", "sandbox", "executor", "bots", "output",
)
TIME_KEYS = ("move", "bank", "handshake", "grace")
LIMIT_KEYS = ("memory", "cpu", "processes", "file_size", "cpus")
BOT_KEYS = ("name", "command", "cwd", "build", "build_network", "time", "ship", "sandbox_paths", "confined")
OUTPUT_KEYS = ("database", "report")

_INVALID: Any = object()  # a value that was reported as a problem
_SEED_MAX_TEXT = f"{SEED_LIMIT - 1} (2**63 - 1)"


class _Parser:
    """The schema over a YamlDocument: each reader returns a typed value, or _INVALID after a problem."""

    def __init__(self, document: YamlDocument, text: str, source: Path, cwd: Path) -> None:
        self.doc = document
        self.text = text
        self.source = source
        self.file = str(source)
        self.base_dir = source.absolute().parent
        self.cwd = cwd.absolute()
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}

    # --- reporting

    def problem(self, where: Item | int | None, key_path: str | None, what: str, expected: str) -> None:
        line = where.line if isinstance(where, Item) else where
        self.problems.append(_problem(self.file, line, key_path, what, expected))

    def bad(self, item: Item, what: str, expected: str) -> Any:
        self.problem(item, item.path, what, expected)
        return _INVALID

    def report(self, e: YamlError) -> Any:
        self.problem(e.line, e.key_path, e.what, e.expected)
        return _INVALID

    # --- the YAML tree

    def value(self, item: Item) -> Any:
        try:
            return self.doc.value(item)
        except YamlError as e:
            return self.report(e)

    def mapping(self, item: Item, keys: Sequence[str], expected: str,
                keys_expected: str | None = None) -> dict[str, Item] | None:
        if not item.is_mapping:
            self.bad(item, f"{self.describe(item)} is not a mapping", expected)
            return None
        pairs, problems = self.doc.entries(item)
        for p in problems:
            self.report(p)
        if pairs is None:
            return None
        out: dict[str, Item] = {}
        for key_item, value_item in pairs:
            key = self.value(key_item)
            if key is _INVALID:
                continue
            if not isinstance(key, str):
                self.problem(key_item, item.path, f"key {key!r} is not text",
                             keys_expected or f"one of {', '.join(keys)}")
                continue
            if key not in keys:
                close = difflib.get_close_matches(key, keys, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.problem(key_item, value_item.path, f"unknown key{hint}",
                             keys_expected or f"one of {', '.join(keys)}")
                continue
            out[key] = value_item  # a later (own) key overrides a merged one
            self.lines[value_item.path] = value_item.line
        return out

    def sequence(self, item: Item, expected: str) -> list[Item] | None:
        if not item.is_list:
            self.bad(item, f"{self.describe(item)} is not a list", expected)
            return None
        items = self.doc.elements(item)
        for child in items:
            self.lines[child.path] = child.line
        return items

    @staticmethod
    def join(path: str, key: str) -> str:
        return f"{path}.{key}" if path else key

    def describe(self, item: Item) -> str:
        if item.is_mapping:
            return "a mapping"
        if item.is_list:
            return "a list"
        value = self.value(item)
        if value is None or value == "":
            return "an empty value"
        if not isinstance(value, str | int) or isinstance(value, bool):  # true, 2024-01-01, 1.5: as written
            text = str(getattr(item.node, "value", value))
            return text if len(text) <= 60 else short_repr(text)
        return short_repr(value)

    # --- typed values (each returns _INVALID after reporting a problem)

    def scalar(self, item: Item, expected: str) -> Any:
        if not item.is_scalar:
            return self.bad(item, f"{self.describe(item)} is not a single value", expected)
        return self.value(item)

    def integer(self, item: Item, minimum: int, maximum: int, auto: bool = False, shown_max: str = "") -> Any:
        expected = f"an integer >= {minimum}" + (" or auto" if auto else "") + f", at most {shown_max or maximum}"
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if auto and v == "auto":
            return min(cpu_count(), maximum)
        if isinstance(v, bool) or not isinstance(v, int):
            return self.bad(item, f"{self.describe(item)} is not an integer", expected)
        if v < minimum:
            return self.bad(item, f"{short_repr(v)} is too small", expected)
        if v > maximum:
            return self.bad(item, f"{short_repr(v)} is too large", expected)
        return v

    def boolean(self, item: Item) -> Any:
        v = self.scalar(item, "true or false")
        if v is _INVALID:
            return v
        if not isinstance(v, bool):
            return self.bad(item, f"{self.describe(item)} is not true or false", "true or false")
        return v

    def choice(self, item: Item, choices: Sequence[str]) -> Any:
        expected = " | ".join(choices)
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if v not in choices:
            close = difflib.get_close_matches(str(v), choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return self.bad(item, f"{self.describe(item)} is not allowed{hint}", expected)
        return v

    def token(self, item: Item) -> Any:
        v = self.scalar(item, _TOKEN_EXPECTED)
        if v is _INVALID:
            return v
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)  # `name: 2048` is a name, not a number
        if not isinstance(v, str):
            return self.bad(item, f"{self.describe(item)} is not a valid name", _TOKEN_EXPECTED)
        wrong = name_problem(v)
        if wrong is not None:
            return self.bad(item, *wrong)
        return v

    def text_value(self, item: Item, expected: str) -> Any:
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = str(v)
        if not isinstance(v, str) or not v.strip():
            return self.bad(item, f"{self.describe(item)} is not text", expected)
        wrong = _os_text_problem(v)
        if wrong is not None:
            return self.bad(item, f"{self.describe(item)} {wrong}", expected)
        return v

    def duration(self, item: Item, key: str, nullable: bool = False) -> Any:
        minimum, maximum = TIME_BOUNDS[key]
        expected = duration_expected(minimum, maximum, nullable)
        v = self.scalar(item, expected)
        if v is _INVALID:
            return v
        if v is None and nullable:
            return None
        try:
            return bounded_duration(v, minimum, maximum, nullable=nullable)
        except DurationError as e:
            return self.bad(item, f"{self.describe(item)} {e.what}", e.expected)

    def limit(self, item: Item, parse: Any, expected: str, bounds: tuple[float, float]) -> Any:
        v = self.scalar(item, expected)
        if v is _INVALID or v is None:
            return v
        try:
            n = parse(v)
        except DurationError:
            return self.bad(item, f"{self.describe(item)} is not understood", expected)
        if n < bounds[0]:
            return self.bad(item, f"{self.describe(item)} is too small", expected)
        if n > bounds[1]:
            return self.bad(item, f"{self.describe(item)} is too large", expected)
        return n

    # --- the schema

    def parse(self) -> TournamentConfig:
        root = self.doc.root
        if root is None:
            self.problem(1, None, "the file is empty", "a mapping with name, variant, bots, ...")
            raise ConfigFileError(self.problems)
        top = self.mapping(root, TOP_KEYS, "a mapping with name, variant, bots, ... at the top")
        if top is None:
            raise ConfigFileError(self.problems)

        def get(key: str) -> Item | None:
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
        rounds = optional("rounds", None, lambda i: self.integer(i, 1, MAX_ROUNDS))
        duplicate = optional("duplicate", True, self.boolean)
        seed = optional("seed", None, lambda i: self.integer(i, 0, SEED_LIMIT - 1, shown_max=_SEED_MAX_TEXT))
        concurrency = optional("concurrency", min(cpu_count(), MAX_CONCURRENCY),
                               lambda i: self.integer(i, 1, MAX_CONCURRENCY, auto=True))
        workers = optional("workers", 1, lambda i: self.integer(i, 1, MAX_WORKERS, auto=True))
        time = optional("time", TimeControl(), lambda i: self.time_control(i, TimeControl(), required=True))
        on_violation = optional("on_violation", ViolationPolicy.LOSE_MATCH,
                                lambda i: self.choice(i, VIOLATION_POLICIES))
        limits = optional("limits", Limits(), self.limits)
        reuse_bots = optional("reuse_bots", False, self.boolean)
        # strict: `sandbox: null` is refused rather than read as "the default", which it could be mistaken
        # for `none` (no sandbox)
        sandbox = optional("sandbox", None, lambda i: self.choice(i, SANDBOX_KINDS))
        executor = optional("executor", ExecutorConfig(), self.executor)
        output = optional("output", {}, self.output)

        bots_item = get("bots")
        bots: list[BotConfig] = []
        if bots_item is None:
            self.problem(1, "bots", "missing", "a list of at least 2 bots, each with a name and a command")
        else:
            entries = self.sequence(bots_item, "a list of at least 2 bots, each with a name and a command")
            if entries is not None and len(entries) > MAX_BOTS:
                self.bad(bots_item, f"{len(entries)} bots", f"at most {MAX_BOTS} bots")
            elif entries is not None:
                bots = self.bots(entries, time if time is not _INVALID else TimeControl())
                if len(entries) < 2:
                    self.bad(bots_item, f"{len(entries)} bot{'s' if len(entries) != 1 else ''}",
                             "at least 2 bots")
                if rounds is None:
                    rounds = default_rounds(fmt, len(entries))
                self.check_matches(fmt, rounds, len(entries), get("rounds") or bots_item)

        self.check_format(fmt, challenger, get("format"), get("challenger"), bots, bots_item)

        if self.problems:
            raise ConfigFileError(self.problems)

        database = output.get("database") or Path("reports") / name / "arena.db"
        report_dir = output.get("report") or Path("reports") / name
        bots_t = tuple(bots)
        digest = settings_hash(_result_settings(rules, fmt, challenger, rounds, duplicate, seed, time, on_violation,
                                        bots_t))
        return TournamentConfig(
            name=name, rules=rules, format=fmt, challenger=challenger, rounds=rounds, duplicate=duplicate,
            seed=seed, concurrency=concurrency, workers=workers, time=time,
            on_violation=ViolationPolicy(on_violation),
            limits=limits, reuse_bots=reuse_bots, bots=bots_t,
            database=self.cwd / database, report_dir=self.cwd / report_dir,
            source=self.source, text=self.text, hash=digest, sandbox=sandbox, executor=executor,
            lines=dict(self.lines),
        )

    def check_matches(self, fmt: Any, rounds: Any, n_bots: int, item: Item) -> None:
        """The whole schedule is built (and stored) up front: bound its size, whatever makes it large."""
        if rounds is _INVALID or fmt is _INVALID or n_bots < 2:
            return
        if fmt == "swiss":
            if rounds > n_bots - 1:  # past that, some round would have to be a rematch
                self.bad(item, f"{rounds} Swiss rounds for {n_bots} bots",
                         f"at most {n_bots - 1} rounds (bots - 1: no two bots meet twice), or more bots")
            return
        pairings = n_bots - 1 if fmt == "gauntlet" else n_bots * (n_bots - 1) // 2
        total = rounds * pairings * 2
        if total > MAX_MATCHES:
            self.bad(item, f"{rounds} rounds x {pairings} pairings x 2 = {total} matches",
                     f"at most {MAX_MATCHES} matches in all (fewer rounds or fewer bots)")

    def required(self, mapping: dict[str, Item], key: str, line: int, read: Any, expected: str,
                 path: str = "") -> Any:
        item = mapping.get(key)
        if item is None:
            self.problem(line, self.join(path, key), "missing", expected)
            return _INVALID
        return read(item)

    def variant(self, item: Item) -> Any:
        known = ", ".join(PRESETS)
        if item.is_scalar:
            v = self.value(item)
            if v is _INVALID:
                return v
            if v not in PRESETS:
                close = difflib.get_close_matches(str(v), list(PRESETS), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                what = "no variant" if v is None or v == "" else f"unknown variant {self.describe(item)}"
                return self.bad(item, f"{what}{hint}",
                                f"one of {known}, or a mapping {{preset: ..., <rule>: <value>}}")
            return PRESETS[v]
        if not item.is_mapping:
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
                    self.bad(child, clip(what), expected or "a value the rule allows (see `arena rules`)")
                    ok = False
                    continue
            overrides[key] = value
        if not ok:
            return _INVALID
        try:
            return base.with_overrides(overrides)
        except RulesError as e:
            what, _, expected = str(e).partition("; expected ")
            return self.bad(item, clip(what), expected or "rule parameters that fit together (see docs/RULES.md)")

    def time_control(self, item: Item, base: TimeControl, required: bool = False) -> Any:
        entries = self.mapping(item, TIME_KEYS, "a mapping with move, bank, handshake, grace")
        if entries is None:
            return _INVALID
        changes: dict[str, Any] = {}
        for key, child in entries.items():
            changes[f"{key}_ms"] = self.duration(child, key, nullable=key == "bank")
        if any(v is _INVALID for v in changes.values()):
            return _INVALID
        return dataclasses.replace(base, **changes)

    def limits(self, item: Item) -> Any:
        entries = self.mapping(item, LIMIT_KEYS, "a mapping with memory, cpu, processes, file_size, cpus")
        if entries is None:
            return _INVALID
        readers = {
            "memory": ("memory_bytes", parse_size, MEMORY_BOUNDS),
            "cpu": ("cpu_seconds", parse_cpu_seconds, CPU_BOUNDS),
            "processes": ("processes", _count, PROCESS_BOUNDS),
            "file_size": ("file_size_bytes", parse_size, FILE_SIZE_BOUNDS),
            "cpus": ("cpus", _cpus, CPUS_BOUNDS),
        }
        changes: dict[str, Any] = {}
        for key, child in entries.items():
            attr, parse, bounds = readers[key]
            changes[attr] = self.limit(child, parse, LIMIT_EXPECTED[key], bounds)
        if any(v is _INVALID for v in changes.values()):
            return _INVALID
        return dataclasses.replace(Limits(), **changes)

    def executor(self, item: Item) -> Any:
        if item.is_scalar:
            v = self.value(item)
            if v is _INVALID:
                return v
            if v == "local":
                return ExecutorConfig()
            hint = " (write {dask: local} or {dask: tcp://HOST:PORT})" if str(v).startswith("dask") else ""
            return self.bad(item, f"{self.describe(item)} is not an executor{hint}", EXECUTOR_EXPECTED)
        entries = self.mapping(item, ("dask", "workers"), EXECUTOR_EXPECTED)
        if entries is None:
            return _INVALID
        target_item = entries.get("dask")
        if target_item is None:
            self.problem(item, self.join(item.path, "dask"), "missing", EXECUTOR_EXPECTED)
            return _INVALID
        address_expected = "local, or the address of a running Dask scheduler: tcp://HOST:PORT"
        target = self.text_value(target_item, address_expected)
        if target is _INVALID:
            return _INVALID
        workers_item = entries.get("workers")
        if target == "local":
            if workers_item is None:
                return ExecutorConfig("dask", None, min(cpu_count(), MAX_WORKERS))
            workers = self.integer(workers_item, 1, MAX_WORKERS, auto=True)
            return _INVALID if workers is _INVALID else ExecutorConfig("dask", None, workers)
        problem = dask_address_problem(target)
        if problem is not None:
            return self.bad(target_item, problem, address_expected)
        if workers_item is not None:
            return self.bad(workers_item, "workers is only for dask: local (a scheduler's workers are the ones "
                            "started with dask worker)", "no workers key beside a scheduler address")
        return ExecutorConfig("dask", target if "://" in target else f"tcp://{target}")

    def ship(self, item: Item) -> Any:
        expected = "true (the bot's folder), false, or a list of its files and folders (relative to the config)"
        if item.is_scalar:
            v = self.value(item)
            if v is _INVALID or isinstance(v, bool):
                return v
            if v is None:
                return False
            return self.bad(item, f"{self.describe(item)} is not true, false or a list", expected)
        entries = self.sequence(item, expected)
        if entries is None:
            return _INVALID
        if not entries:
            return self.bad(item, "the list is empty", expected)
        paths: list[Path] = []
        for entry in entries:
            text = self.text_value(entry, expected)
            if text is not _INVALID:
                paths.append(Path(os.path.normpath(self.base_dir / os.path.expanduser(text))))
        return tuple(paths) if len(paths) == len(entries) else _INVALID

    def sandbox_paths(self, item: Item) -> Any:
        if item.is_scalar:
            v = self.value(item)
            if v is _INVALID or v is None:
                return () if v is None else v
            return self.bad(item, f"{self.describe(item)} is not a list", SANDBOX_PATHS_EXPECTED)
        entries = self.sequence(item, SANDBOX_PATHS_EXPECTED)
        if entries is None:
            return _INVALID
        paths: list[Path] = []
        for entry in entries:
            text = self.text_value(entry, SANDBOX_PATHS_EXPECTED)
            if text is _INVALID:
                continue
            path = Path(os.path.normpath(self.base_dir / os.path.expanduser(text)))
            if path == Path("/"):
                self.bad(entry, "/ would show the whole machine to the bot", "the folders it needs, or "
                         "sandbox: none to run bots without a sandbox (docs/SECURITY.md)")
                continue
            paths.append(path)
        return tuple(paths) if len(paths) == len(entries) else _INVALID

    def output(self, item: Item) -> Any:
        if item.is_scalar and self.value(item) is None:
            return {}
        entries = self.mapping(item, OUTPUT_KEYS, "a mapping with database and/or report")
        if entries is None:
            return {}
        out: dict[str, Path] = {}
        for key, child in entries.items():
            if child.is_scalar and self.value(child) is None:
                continue
            v = self.text_value(child, "a path (relative to the current directory)")
            if v is not _INVALID:
                out[key] = Path(os.path.expanduser(v))
        return out

    def bots(self, entries: list[Item], time: TimeControl) -> list[BotConfig]:
        bots: list[BotConfig] = []
        names: dict[str, int] = {}
        for entry in entries:
            before = len(self.problems)
            fields = self.mapping(entry, BOT_KEYS, "a mapping with name and command")
            if fields is None:
                continue
            name = self.required(fields, "name", entry.line, self.token, _TOKEN_EXPECTED, entry.path)
            if name is not _INVALID:
                if splits_match_ids(name):
                    name = self.bad(fields["name"], f"{name!r} contains '-vs-', or begins with 'vs-' or ends "
                                    "with '-vs'", "a name without '-vs-' at either end or inside (it separates "
                                    "the names in match ids)")
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
            ship = self.ship(fields["ship"]) if "ship" in fields else False
            build_network = self.boolean(fields["build_network"]) if "build_network" in fields else False
            shown = self.sandbox_paths(fields["sandbox_paths"]) if "sandbox_paths" in fields else ()
            confined = self.boolean(fields["confined"]) if "confined" in fields else False
            if confined is True and not isinstance(cwd, Path):
                self.bad(fields["confined"], "confined: true without a cwd",
                         "a cwd: the folder that holds the bot's files, and all it may use")
            if len(self.problems) > before:
                continue
            command_text, argv = command
            if confined and isinstance(cwd, Path):
                try:  # (a build may make the program: it is checked after the build)
                    argv = confine_command(command_text, cwd, check=build is None)
                except BotSpecError as e:
                    self.bad(fields["command"], str(e), "a command naming only files in the bot's cwd and the "
                             "system's programs (confined: true)")
                    continue
            bot = BotConfig(name=name, command=tuple(argv), command_text=command_text, cwd=cwd, build=build,
                            time=bot_time, ship=ship, build_network=build_network, sandbox_paths=shown,
                            confined=bool(confined))
            if build is None:  # else the build may produce the program: checked after it ran
                self.check_runnable(bot, fields)
            bots.append(bot)
        return bots

    def command(self, item: Item) -> Any:
        if item.is_list:
            parts = self.value(item)
            if parts is _INVALID:
                return parts
            if not parts or any(isinstance(p, bool) or not isinstance(p, str | int | float) for p in parts):
                return self.bad(item, "the list is empty or holds more than plain words",
                                _COMMAND_TEXT_EXPECTED)
            words = [str(p) for p in parts]
            wrong = next((w for w in map(_os_text_problem, words) if w is not None), None)
            if wrong is not None:
                return self.bad(item, f"a word {wrong}", _COMMAND_TEXT_EXPECTED)
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

    def check_runnable(self, bot: BotConfig, fields: dict[str, Item]) -> None:
        try:
            check_command(bot.command, bot.command_text, self.base_dir)
        except BotSpecError as e:
            self.bad(fields["command"], str(e), _COMMAND_EXPECTED)
        if bot.cwd is not None and not bot.cwd.is_dir():
            self.bad(fields["cwd"], f"directory {bot.cwd} not found", _CWD_EXPECTED)
        missing = _missing_path(bot.sandbox_paths)
        if missing is not None:
            self.bad(fields["sandbox_paths"], f"{missing} not found", SANDBOX_PATHS_EXPECTED)

    def check_format(self, fmt: Any, challenger: Any, fmt_item: Item | None, ch_item: Item | None,
                     bots: list[BotConfig], bots_item: Item | None) -> None:
        names = [b.name for b in bots]
        if fmt == "gauntlet":
            if ch_item is None:
                self.problem(fmt_item, "challenger", "missing (format: gauntlet)",
                             "the name of the bot that plays every other bot")
            elif challenger is not _INVALID and names and challenger not in names:
                self.bad(ch_item, f"unknown bot {challenger!r}", f"one of the bots: {', '.join(names)}")
        elif fmt in ("round-robin", "swiss") and ch_item is not None:
            self.bad(ch_item, "a challenger is only used by format: gauntlet",
                     "no challenger, or format: gauntlet")


def default_rounds(fmt: str, n_bots: int) -> int:
    """``rounds`` when the file has none: 1 pair per pairing; for a Swiss, ceil(log2(bots)) + 2 rounds (enough
    to tell the leaders apart: docs/CONFIG.md), at most bots - 1."""
    if fmt != "swiss":
        return 1
    return max(1, min(n_bots - 1, (n_bots - 1).bit_length() + SWISS_EXTRA_ROUNDS))


def total_matches(config: TournamentConfig) -> int:
    """Every match the tournament will have played at its end (a Swiss schedules them a round at a time)."""
    n = len(config.bots)
    pairings = {"swiss": n // 2, "gauntlet": n - 1}.get(config.format, n * (n - 1) // 2)
    return config.rounds * pairings * 2


_COMMAND_TEXT_EXPECTED = "a command line, e.g. python bots/random.py --seed 3 (or a list of words)"


def _os_text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a path, command or argument for the operating system, or None.

    YAML's double quotes can write both a NUL ("\\0") and a lone surrogate ("\\ud800"); either would
    only fail later, in the middle of a build or a match.
    """
    if "\0" in text:
        return "contains a NUL character"
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return "contains a character that is not valid text (a lone surrogate)"
    return None


def _cpus(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DurationError(value, "is not a number", "a number")
    return float(value)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DurationError(value, "is not an integer", "an integer")
    return value


def _result_settings(
    rules: RuleSet, fmt: str, challenger: str | None, rounds: int, duplicate: bool, seed: int | None,
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


def settings_hash(settings: Mapping[str, Any]) -> str:
    """The identity of a tournament's results (`TournamentConfig.hash`): a digest of its settings as JSON."""
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()
