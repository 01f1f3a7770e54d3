"""Subcommands that need trio and the referee (kept out of cli.py so `arena rules` stays light)."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.game.variants import PRESETS, RulesError, RuleSet
from arena.referee.sandbox import SANDBOX_KINDS


def add_match_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "match",
        help="play a series of matches between two bots",
        description="Play N matches between two bots (seats alternate; duplicate deals by default) and "
        "print a summary. A bot is a command line, e.g. \"python bots/random.py\" or ./bots/c/random.",
    )
    p.add_argument("bot_a", metavar="BOT_A", help="command line of the first bot")
    p.add_argument("bot_b", metavar="BOT_B", help="command line of the second bot")
    p.add_argument("--variant", default="santase", help=f"preset: {', '.join(PRESETS)} (default santase)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="override one rule (repeatable)")
    p.add_argument("--matches", type=_int_option("--matches"), default=2,
                   help="number of matches (default 2; at most 1000000)")
    p.add_argument("--seed", type=_int_option("--seed"), default=None,
                   help="seed of the deals, 0 to 2**63 - 1 (default: a random one, printed)")
    p.add_argument("--move-time", default="1000", help="limit per decision: 500, 500ms, 2s (default 1000 ms)")
    p.add_argument("--bank", default=None, help="time bank per match (default none)")
    p.add_argument("--handshake-time", default="5s", help="limit for the handshake (default 5s)")
    p.add_argument("--policy", default="lose-match", choices=["lose-match", "lose-deal", "random-move"],
                   help="what a violation costs (default lose-match)")
    p.add_argument("--no-duplicate", action="store_true", help="give every match its own deals")
    p.add_argument("--concurrency", type=_int_option("--concurrency"), default=None,
                   help="matches at once, 1 to 256 (default: CPU count)")
    p.add_argument("--names", nargs=2, metavar=("NAME_A", "NAME_B"),
                   help="names shown for the two bots (letters, digits, _ . -; they must differ)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                   help="stop early by SPRT, e.g. --sprt elo0=0 elo1=20 alpha=0.05 beta=0.05")
    p.add_argument("--transcripts", type=Path, metavar="DIR",
                   help="write every match's transcript (both bots' lines and stderr) into DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--sandbox", choices=SANDBOX_KINDS, default=None,
                   help="confine the bots: bwrap (bubblewrap) or none (default: bwrap when available)")
    commands["match"] = cmd_match


def _int_option(option: str) -> Callable[[str], int]:
    """An argparse ``type=``: an integer within the option's bounds, else an error saying what was expected.

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
        }[option]
        expected = f"an integer from {lo} to {shown_hi or hi}"
        t = text.strip()
        if not re.fullmatch(r"[-+]?[0-9]+", t):
            raise argparse.ArgumentTypeError(f"{_short(text)} is not an integer; expected {expected}")
        digits = t.lstrip("+-").lstrip("0")
        n = int(t) if len(digits) <= 30 else (-1 if t.startswith("-") else 1) * 10**30
        if n < lo:
            raise argparse.ArgumentTypeError(f"{_short(text)} is too small; expected {expected}")
        if n > hi:
            raise argparse.ArgumentTypeError(f"{_short(text)} is too large; expected {expected}")
        return n

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def _duration(text: str, what: str, key: str) -> int:
    """A duration option in milliseconds, within the bounds of the config's ``time.<key>``."""
    from arena.tournament.config import TIME_BOUNDS, duration_expected, duration_problem, parse_duration

    minimum, maximum = TIME_BOUNDS[key]
    expected = duration_expected(minimum, maximum)
    try:
        ms = parse_duration(text)
    except ValueError:
        raise ConfigError(f"{what}: {_short(text)} is not a duration; expected {expected}") from None
    wrong = duration_problem(ms, minimum, maximum)
    if wrong is not None:
        raise ConfigError(f"{what}: {_short(text)} {wrong}; expected {expected}")
    return ms


def cmd_match(args: argparse.Namespace) -> int:
    import trio

    from arena.botspec import fingerprint, resolve_command
    from arena.referee.clock import TimeControl
    from arena.referee.match import Player
    from arena.referee.process import BotSpec
    from arena.referee.sandbox import bot_files, check_readable, resolve_sandbox
    from arena.referee.series import play_series
    from arena.tournament.config import MAX_CONCURRENCY

    # Every option is checked before any bot starts (argparse already bounded the integers): a mistake
    # costs one line and exit 2, never a match played in vain or a result that cannot be written.
    rules = _match_rules(args.variant, args.set)
    tc = TimeControl(
        move_ms=_duration(args.move_time, "--move-time", "move"),
        bank_ms=None if args.bank is None else _duration(args.bank, "--bank", "bank"),
        handshake_ms=_duration(args.handshake_time, "--handshake-time", "handshake"),
    )
    names = _match_names(args.names) if args.names else _default_names(args.bot_a, args.bot_b)
    cwd = Path.cwd()
    argv = [tuple(resolve_command(command, cwd)) for command in (args.bot_a, args.bot_b)]  # quotes a bad one
    sandbox = resolve_sandbox(args.sandbox)
    secrets = [args.transcripts] if args.transcripts else []
    files = [bot_files(argv[i], None, [argv[1 - i]], secrets) for i in (0, 1)]
    if sandbox == "bwrap":
        for i in (0, 1):
            check_readable(names[i], files[i])
    a, b = (Player(BotSpec(names[i], argv[i], sandbox=sandbox, fingerprint=fingerprint(argv[i]), files=files[i]), tc)
            for i in (0, 1))
    sprt = None
    if args.sprt:
        from arena.stats import parse_sprt_args

        try:
            sprt = parse_sprt_args(args.sprt)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"--sprt: {e}") from None
    if args.transcripts:  # last: it creates the directory, which only a run that goes ahead should do
        _check_transcripts(args.transcripts)
    concurrency = args.concurrency or min(os.cpu_count() or 1, MAX_CONCURRENCY)
    fed: dict[int, float] = {}
    next_index = [0]

    def on_record(sm: Any, rec: Any) -> bool:
        if not args.json:
            print(f"  match {sm.index + 1}/{args.matches}: {rec.bots[0]} {rec.score[0]}-{rec.score[1]} "
                  f"{rec.bots[1]}" + (f" ({rec.reason})" if rec.reason != "target" else ""), file=sys.stderr)
        if sprt is None:
            return False
        fed[sm.index] = 1.0 if rec.winner_name == names[0] else 0.0
        # feed the SPRT in match order so the verdict does not depend on which match finished first
        while next_index[0] in fed:
            sprt.update(fed.pop(next_index[0]))
            next_index[0] += 1
            if sprt.verdict is not None:
                return True
        return False

    # A random seed by default, so nobody (a bot author included) can know the deals in advance; printed so
    # that the same matches can be played again.
    seed = args.seed
    if seed is None:
        from arena.seeds import random_seed

        seed = random_seed()
        print(f"arena: seed {seed} (random; pass --seed {seed} to replay)", file=sys.stderr)
    pairs = trio.run(play_series, a, b, rules, args.matches, seed, not args.no_duplicate, concurrency,
                     args.policy, on_record)
    if sprt is not None:
        pairs = pairs[: next_index[0]]
    if args.transcripts:
        for _, rec in pairs:
            write_transcripts(rec, args.transcripts)
    summary = summarize(names, [rec for _, rec in pairs], rules, seed)
    if sprt is not None:
        summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                           "verdict": sprt.verdict, "llr": round(sprt.llr, 4),
                           "bounds": [round(x, 4) for x in sprt.bounds], "games": next_index[0]}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    return 0


def _match_rules(variant: str, overrides: list[str] | None) -> RuleSet:
    """``--variant`` and ``--set`` as a rule set; ConfigError naming the option that is wrong."""
    if variant not in PRESETS:
        close = difflib.get_close_matches(variant, list(PRESETS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"--variant: unknown variant {_short(variant)}{hint}; expected one of {', '.join(PRESETS)}")
    try:
        return PRESETS[variant].with_overrides(parse_overrides(overrides))
    except RulesError as e:
        raise ConfigError(f"--set: {e}") from None


def _match_names(names: list[str]) -> tuple[str, str]:
    """``--names``: valid names (they name the transcript files and the summary's columns), not equal."""
    from arena.tournament.config import name_problem

    for name in names:
        wrong = name_problem(name)
        if wrong is not None:
            raise ConfigError(f"--names: {wrong[0]}; expected {wrong[1]}")
    if names[0] == names[1]:
        raise ConfigError(f"--names: both bots are called {_short(names[0])}; expected two different names")
    return names[0], names[1]


def _check_transcripts(directory: Path) -> None:
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


def _short(value: object) -> str:
    from arena.tournament.config import short_repr

    return short_repr(value)


def write_transcripts(rec: Any, directory: Path) -> None:
    """One text file per seat: ``<ms> <direction> <line>``, then the bot's stderr."""
    directory.mkdir(parents=True, exist_ok=True)
    for seat in (0, 1):
        lines = [f"{ms:10.3f} {d} {text}" for ms, d, text in rec.transcripts[seat]]
        if rec.stderr[seat]:
            lines += ["", "--- stderr ---", rec.stderr[seat]]
        (directory / f"{rec.match_id}-seat{seat}-{rec.bots[seat]}.log").write_text("\n".join(lines) + "\n")


def _default_names(a: str, b: str) -> tuple[str, str]:
    def name(cmd: str) -> str:
        # the script an interpreter runs (python bots/greedy.py -> greedy), else the program (bots/c/random 1)
        tokens = cmd.split() or ["bot"]
        script = next((t for t in tokens[1:] if "/" in t or Path(t).suffix in (".py", ".sh", ".js")), tokens[0])
        return Path(script).stem or "bot"

    na, nb = name(a), name(b)
    if na == nb:
        na, nb = na + "-1", nb + "-2"
    return na, nb


_MAX_SET_CHARS = 200  # longer than any rule value; keeps YAML's int() and every message short


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``--set NAME=VALUE`` options as rule overrides; values are read as YAML scalars (7, true, 3,3).

    A value is one plain value or a flat list of them (``[3, 3]``); anything else (nesting, mappings, tags,
    aliases that repeat a list) is refused here, so the rule checks never see, nor print, a huge value.
    """
    import yaml

    expected = "NAME=VALUE with a plain value, e.g. --set match_target=7 or --set deal_batches=[3,3]"
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ArenaError(f"--set: {_short(item)} is not NAME=VALUE; expected {expected}")
        key, value = item.split("=", 1)
        if not key.strip():
            raise ArenaError(f"--set: {_short(item)} has no rule name; expected {expected}")
        if len(value) > _MAX_SET_CHARS:
            raise ArenaError(f"--set: the value of {_short(key)} has {len(value)} characters; expected at most "
                             f"{_MAX_SET_CHARS}")
        try:
            parsed = yaml.safe_load(value)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError, OverflowError) as e:
            # YAML syntax, and constructors: int() of too many digits, a date that does not exist, ...
            what = " ".join(str(getattr(e, "problem", None) or e).split())[:200]
            raise ArenaError(f"--set: cannot read the value of {_short(key)} ({what}); expected {expected}") \
                from None
        plain = (str, int, float, bool, type(None))
        if not isinstance(parsed, plain) and not (isinstance(parsed, list)
                                                  and all(isinstance(v, plain) for v in parsed)):
            raise ArenaError(f"--set: the value of {_short(key)} is not a plain value or a list of them; "
                             f"expected {expected}")
        out[key] = parsed
    return out


def summarize(names: tuple[str, str], records: list[Any], rules: RuleSet, seed: int) -> dict[str, Any]:
    wins: Counter[str] = Counter()
    game_points: Counter[str] = Counter()
    deals_won: Counter[str] = Counter()
    terminations: dict[str, Counter[str]] = {n: Counter() for n in names}
    deals = 0
    for rec in records:
        if rec.winner_name is not None:
            wins[rec.winner_name] += 1
        for seat in (0, 1):
            game_points[rec.bots[seat]] += rec.score[seat]
        for d in rec.deals:
            deals += 1
            if d.get("winner") is not None:
                deals_won[rec.bots[d["winner"]]] += 1
        for t in rec.terminations:
            terminations[t.bot][t.kind] += 1
    elo = None
    decided = [r for r in records if r.winner is not None]
    if decided:
        from arena.stats import Result, ratings

        results = [Result(r.bots[0], r.bots[1], 1.0 if r.winner == 0 else 0.0, r.match_id) for r in decided]
        rt = ratings(results, anchor=names[1], bootstrap=300, seed=seed)
        a = rt[names[0]]
        elo = {"bot": names[0], "against": names[1], "elo": round(a.elo, 1),
               "interval": None if a.lo is None or a.hi is None else [round(a.lo, 1), round(a.hi, 1)]}
    return {
        "variant": rules.name,
        "elo_difference": elo,
        "seed": seed,
        "matches": len(records),
        "bots": list(names),
        "wins": {n: wins[n] for n in names},
        "game_points": {n: game_points[n] for n in names},
        "deals": {"played": deals, "won": {n: deals_won[n] for n in names}},
        "terminations": {n: dict(terminations[n]) for n in names},
    }


def format_summary(s: dict[str, Any]) -> str:
    a, b = s["bots"]
    n = s["matches"]
    lines = [f"{a} vs {b}: {n} matches of {s['variant']}, seed {s['seed']}, {s['deals']['played']} deals"]
    width = max(len(a), len(b))
    for name in (a, b):
        w = s["wins"][name]
        term = ", ".join(f"{k} {v}" for k, v in sorted(s["terminations"][name].items())) or "none"
        lines.append(
            f"  {name:<{width}}  {w:>4} wins ({100 * w / max(n, 1):5.1f}%)  {s['game_points'][name]:>5} game points"
            f"  {s['deals']['won'][name]:>5} deals won  terminations: {term}"
        )
    if s.get("elo_difference"):
        e = s["elo_difference"]
        if e["interval"] is None or e["interval"][0] == e["interval"][1]:
            interval = " (one bot won every match: the prior alone bounds it, no interval)"
        else:
            interval = f" (95% interval {e['interval'][0]:+.0f} to {e['interval'][1]:+.0f})"
        lines.append(f"  Elo of {a} relative to {b}: {e['elo']:+.0f}{interval}")
    if "sprt" in s:
        sp = s["sprt"]
        verdict = {"H1": f"H1 accepted: {a} is about {sp['elo1']:+g} Elo against {b}",
                   "H0": f"H0 accepted: {a} is about {sp['elo0']:+g} Elo (or less) against {b}",
                   None: "no verdict yet"}[sp["verdict"]]
        lines.append(f"  SPRT: {verdict}; LLR {sp['llr']:+.3f} in [{sp['bounds'][0]:+.3f}, {sp['bounds'][1]:+.3f}]"
                     f" after {sp['games']} games")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------- arena run
def add_run_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "run",
        help="run (or resume) a tournament from a YAML file",
        description="Run every scheduled match of a tournament, store each result in the database as it "
        "is final, and write the HTML report. Run it again to resume an interrupted tournament.",
    )
    p.add_argument("config", type=Path, help="the tournament YAML file (see docs/CONFIG.md)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--fresh", action="store_true", help="delete the tournament's database and start over")
    group.add_argument("--force", action="store_true",
                       help="continue a tournament whose configuration changed, on purpose")
    p.add_argument("--concurrency", type=_int_option("--concurrency"), default=None,
                   help="override the config's concurrency (1 to 256)")
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    p.add_argument("--sandbox", choices=SANDBOX_KINDS, default=None,
                   help="override the config's sandbox: bwrap (bubblewrap) or none")
    commands["run"] = cmd_run


def cmd_run(args: argparse.Namespace) -> int:
    import dataclasses

    from arena.referee.sandbox import bot_files, check_readable, resolve_sandbox
    from arena.tournament.build import bot_provenance, run_builds
    from arena.tournament.config import load_config
    from arena.tournament.runner import schedule_rows
    from arena.tournament.schedule import build_schedule
    from arena.tournament.store import RunLock, Store, fresh_files

    config = load_config(args.config)
    if args.concurrency is not None:  # bounded by argparse
        config = dataclasses.replace(config, concurrency=args.concurrency)
    # Decided once, before anything runs: bubblewrap when it works, an error if asked for and missing.
    config = dataclasses.replace(config, sandbox=resolve_sandbox(args.sandbox or config.sandbox))
    if config.sandbox == "bwrap":
        for bot in config.bots:
            check_readable(bot.name, bot_files(bot.command, bot.cwd))
    # Everything cheap that can refuse the run comes before the builds: bad output paths, another run on
    # the database, a --fresh that would delete a file that is not this tournament's database.
    _check_outputs(config, report=not args.no_report)
    if not args.no_report:  # now, so that a bot's sandbox can hide it when it lies in the bot's folder
        Path(config.report_dir).mkdir(parents=True, exist_ok=True)
    with RunLock(config.database):
        doomed = fresh_files(config.database, config.name) if args.fresh else []
        builds = run_builds(config)
        provenance = bot_provenance(config, builds)
        for path in doomed:  # only now: a failed build must not have cost the old results
            path.unlink(missing_ok=True)
            print(f"arena: --fresh: removed {path}", file=sys.stderr)
        store = Store(config.database)
        try:
            seed, seed_note = _tournament_seed(config, store)
            config = dataclasses.replace(config, seed=seed)  # config.hash stays that of the seed as written
            schedule = build_schedule(config)
            store.begin(
                config.name, str(config.source), config.text, config.hash, config.rules.to_dict(), seed,
                config.format, schedule_rows(schedule),
                [{"name": b["name"], "command": b["command"], "argv": json.dumps(b.get("argv", [])),
                  "hash": b["hash"], "build_output": b.get("build_output") or ""} for b in provenance],
                force=args.force,
            )
            if seed_note:
                print(f"arena: seed {seed} ({seed_note})", file=sys.stderr)
            return _play(config, store, args)
        finally:
            store.close()


def _play(config: Any, store: Any, args: argparse.Namespace) -> int:
    """Play the pending matches of a begun tournament, then write the report and print the standings."""
    import trio

    from arena.tournament.runner import Progress, ProgressDisplay, run_matches

    pending = store.pending(config.name)
    total = store.count(config.name)
    progress = Progress(total=total, done=total - len(pending), done_before=total - len(pending))
    for row in store.results(config.name):
        progress.add(row["winner"], (row["seat0"], row["seat1"]))
    progress.done = progress.done_before
    report = _ReportWriter(store, config, enabled=not args.no_report)
    print(f"arena: {config.name}: {total} matches, {len(pending)} to play, concurrency {config.concurrency}, "
          f"database {config.database}", file=sys.stderr)
    with ProgressDisplay(progress, config.name) as display:

        def on_done(rec: Any) -> None:
            display.update()
            report.maybe()

        interrupted = trio.run(_until_interrupted, run_matches, config, store, pending, progress, on_done)
    store.finish(config.name)
    report.write()
    print(standings_text(store, config.name))
    if report.enabled:
        print(f"report: {report.index}")
    if interrupted:
        left = store.count(config.name) - store.count(config.name, "done")
        print(f"arena: interrupted; {left} matches left. Run the same command again to resume.", file=sys.stderr)
        return 130
    return 0


def _tournament_seed(config: Any, store: Any) -> tuple[int, str]:
    """The seed the schedule is built from, and a note to print when the config does not give it.

    Without ``seed:`` a first run draws one (63 bits from `secrets`: nobody, a bot author included, can
    predict the deals), and a resume takes the one stored by the first run, so it plays what an
    uninterrupted run would have. --fresh deleted the database before this, so it draws anew.
    """
    from arena.seeds import random_seed

    if config.seed is not None:
        return config.seed, ""
    stored = store.stored_seed(config.name)
    if stored is not None:
        return stored, f"random, kept in the database since the first run; put seed: {stored} in the config to replay"
    seed = random_seed()
    return seed, f"random; put seed: {seed} in the config to replay"


# Pseudo file systems where a database or a report would be meaningless or harmful (/dev/null, /proc/...);
# /dev/shm is an ordinary tmpfs and stays allowed.
_PSEUDO_FS = ("proc", "sys", "dev")


def _check_outputs(config: Any, report: bool) -> None:
    """Refuse output paths that cannot work before anything runs, each as one line naming the key.

    Creates the database's directory (the lock file goes there); the report directory is only checked,
    since ``--no-report`` runs never need it.
    """
    db = Path(config.database).absolute()
    _check_output_path(config, "output.database", db, directory=False)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{config.where('output.database')}: output.database: cannot create {db.parent} "
                          f"({e.strerror or e}); expected a path in a writable directory") from None
    if report:
        _check_output_path(config, "output.report", Path(config.report_dir).absolute(), directory=True)


def _check_output_path(config: Any, key: str, path: Path, directory: bool) -> None:
    expected = ("a directory for the HTML report (or a path where one can be created)" if directory else
                "the path of a database file in a writable directory, e.g. reports/NAME/arena.db")

    def bad(what: str) -> ConfigError:
        return ConfigError(f"{config.where(key)}: {key}: {path} {what}; expected {expected}")

    for p in (path, Path(os.path.realpath(path))):
        top = p.parts[1:2]
        if top and top[0] in _PSEUDO_FS and p.parts[1:3] != ("dev", "shm"):
            raise bad(f"is under /{top[0]}, a system directory")
    if directory:
        if path.exists() and not path.is_dir():
            raise bad("is not a directory")
    elif path.is_dir():
        raise bad("is a directory")
    elif path.exists():
        if not path.is_file():
            raise bad("is not a regular file")
        if not os.access(path, os.R_OK | os.W_OK):
            raise bad("is not writable")
    existing = path if directory else path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise bad(f"cannot be created: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise bad(f"cannot be written: {existing} is not writable")


async def _until_interrupted(fn: Any, *args: Any) -> bool:
    """Run ``fn``; Ctrl-C (SIGINT), SIGTERM or SIGHUP cancels it cleanly. True if it was interrupted.

    Cancelling abandons the running matches (their bots are stopped; nothing of them is stored), while
    every finished match is already in the database. SIGHUP counts too: a closed terminal or ssh session
    then keeps every finished match, like Ctrl-C, instead of killing the run outright.
    A full disk (`DiskFull`, from saving a match or writing the report) stops every match and is raised
    as itself, not inside trio's exception group, so the user sees its one line.
    """
    import signal

    import trio

    from arena.tournament.store import DiskFull

    interrupted = False
    try:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    nonlocal interrupted
                    async for _ in signals:
                        interrupted = True
                        nursery.cancel_scope.cancel()

                nursery.start_soon(watch)
                await fn(*args)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        full = _find(group, DiskFull)
        if full is None:
            raise
        raise full from None
    return interrupted


def _find(error: BaseException, kind: type[ArenaError]) -> ArenaError | None:
    """The first ``kind`` in an exception or in its (nested) exception groups."""
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    return None


class _ReportWriter:
    """Renders the report at most every few seconds while a tournament runs, and once at the end."""

    INTERVAL_S = 5.0

    def __init__(self, store: Any, config: Any, enabled: bool) -> None:
        self.store = store
        self.config = config
        self.enabled = enabled
        self.last = 0.0
        self.index = Path(config.report_dir) / "index.html"

    def maybe(self) -> None:
        import time

        if self.enabled and time.monotonic() - self.last >= self.INTERVAL_S:
            self.write(final=False)

    def write(self, final: bool = True) -> None:
        import time

        if not self.enabled:
            return
        from arena.report import render_report
        from arena.tournament.store import DiskFull, is_disk_full

        self.last = time.monotonic()
        out = Path(self.config.report_dir)
        try:
            render_report(self.store, out, index_only=not final)
        except OSError as e:  # the results are safe in the database; say what failed in one line
            if is_disk_full(e):
                raise DiskFull(out, e) from None
            raise ArenaError(f"cannot write the report to {out}: {e.strerror or e}; the results are in "
                             f"{self.config.database} (arena report renders it again)") from None


def standings_text(store: Any, name: str) -> str:
    """The standings as a terminal table: the same figures as the report's index (one source for both)."""
    from arena.report.context import load, standings

    data = load(store, bootstrap=200)
    rows = [r for r in standings(data) if r["played"]]
    if not rows:
        return "no results yet"
    width = max(len(r["bot"]) for r in rows)
    out = [f"{'rank':>4}  {'bot':<{width}}  {'elo':>6}  {'95% interval':>15}  {'won':>4} {'lost':>4}  "
           f"{'score':>6}  {'deals won':>9}  terminations"]
    for r in rows:
        interval = "" if r["lo"] is None else f"[{r['lo']:+.0f}, {r['hi']:+.0f}]"
        elo = "" if r["elo"] is None else f"{r['elo']:+.0f}"
        deal_win = "" if r["deal_win"] is None else f"{100 * r['deal_win']:.1f}%"
        term = ", ".join(f"{k} {v}" for k, v in r["terminations"]) or "-"
        out.append(f"{r['rank'] or '':>4}  {r['bot']:<{width}}  {elo:>6}  {interval:>15}  {r['won']:>4} "
                   f"{r['lost']:>4}  "
                   f"{100 * r['score']:5.1f}%  {deal_win:>9}  {term}")
    if data.fit is not None:
        out.extend(f"note: {n}" for n in data.fit.notes)
    return "\n".join(out)
