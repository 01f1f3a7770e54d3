"""`arena ladder DB ACTION`: a standing competition in one database (arena.tournament.ladder, docs/LADDER.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli.options import add_rules_options, add_sandbox_option, duration_option, int_option, rules_option
from arena.errors import ConfigError
from arena.referee.policy import ViolationPolicy
from arena.seeds import guessable_seed_warning


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    from arena.cli.run import executor_option
    from arena.cli.serve import _bounded

    p = sub.add_parser(
        "ladder",
        help="a standing competition: bots added at any time, placed quickly, rated continuously",
        description="A ladder is one database (the schema of arena run). init fixes its rules and clocks; add "
        "registers a bot version (admitted after arena check and a validation pair against itself); run plays "
        "rated duplicate pairs until stopped (resumable after any kill); standings prints the ratings; "
        "challenge plays unranked pairs; token makes an upload token for arena serve --ladder; void voids a "
        "host's results, to be played again. docs/LADDER.md walks through it.",
    )
    p.add_argument("db", metavar="DB", type=Path, help="the ladder's database file")
    actions = p.add_subparsers(dest="action", metavar="ACTION", title="actions", parser_class=type(p))
    actions.required = True

    init = actions.add_parser("init", help="make a new ladder: its variant, clocks and seed")
    add_rules_options(init)
    init.add_argument("--move-time", default="1000", help="limit per decision: 500, 500ms, 2s (default 1000 ms)")
    init.add_argument("--bank", default=None, help="time bank per match (default none)")
    init.add_argument("--handshake-time", default="5s", help="limit for the handshake (default 5s)")
    init.add_argument("--policy", default=ViolationPolicy.LOSE_MATCH.value,
                      choices=[v.value for v in ViolationPolicy],
                      help=f"what a violation costs (default {ViolationPolicy.LOSE_MATCH})")
    init.add_argument("--pairs-in-flight", type=int_option("--pairs-in-flight", 64), default=2,
                      help="duplicate pairs played at once, 1 to 64 (default 2); fixed for the ladder's life, "
                      "since which pairs are chosen depends on it")
    init.add_argument("--seed", type=int_option("--seed"), default=None, help="the ladder's seed (default random)")
    init.add_argument("--anchor", default="mean", metavar="NAME|mean|levels",
                      help="what rating 0 is on the pages: a bot's name (its current version; e.g. a reference "
                      "bot added first), mean, the mean of the bots in play (default), or levels: the house "
                      "levels (add-levels) at their measured Elo, Level 1 at 0")

    add = actions.add_parser("add", help="register a bot version; it is admitted or refused with the reason")
    add.add_argument("name", metavar="NAME", help="the bot's name (a new program under a known name is its "
                     "new version; the old one retires)")
    add.add_argument("bot_command", metavar="COMMAND", help='its command line, e.g. "python mybot/bot.py"')
    add.add_argument("--build", metavar="CMD", help="a build command to run first (in the sandbox)")
    add.add_argument("--author", default="", help="who wrote it (shown on the leaderboard)")
    add.add_argument("--cwd", metavar="DIR", type=Path, default=None,
                     help="the folder the bot runs in, read-only (default: a fresh empty folder of its own)")
    add.add_argument("--confined", action="store_true",
                     help="the command is a stranger's, as an upload's: resolved in --cwd DIR, it may name no path "
                     "outside it, and its build writes DIR alone")
    add_sandbox_option(add)

    levels = actions.add_parser("add-levels", help="add the house levels (arena's graded opponents, Level 1 to "
                                "5) as the organiser's bots: fixed points of the scale (init --anchor levels)")
    add_sandbox_option(levels)

    run = actions.add_parser("run", help="play rated pairs until stopped (Ctrl-C; a resumed run goes on)")
    stop = run.add_mutually_exclusive_group()
    stop.add_argument("--pairs", type=int_option("--pairs"), default=None,
                      help="stop once the ladder holds N rated pairs in all")
    stop.add_argument("--for", dest="duration", default=None, metavar="DURATION",
                      help="stop choosing new pairs after this long: 90s, 10m, 2h")
    run.add_argument("--executor", type=executor_option, default=None, metavar="local|dask:local|dask:tcp://HOST:PORT",
                     help="where matches are played (as arena run; docs/DISTRIBUTED.md)")
    run.add_argument("--workers", type=int_option("--workers"), default=None,
                     help="referee processes (1 to 64) of the local executor, or of a dask:local cluster")
    add_sandbox_option(run)

    srv = actions.add_parser(
        "serve", help="run the competition: the pages, the upload queue and the rated pairs, in one process tree",
        description="Serve the ladder's pages and upload form (as arena serve --ladder DB), admit uploads "
        "through a queue, and play rated pairs (as arena ladder DB run, in a child process started again if it "
        "ends). Ctrl-C or SIGTERM stops all of it; after a SIGKILL or a reboot the same command resumes, having "
        "lost at most the pairs in flight. docs/LADDER.md shows a systemd unit for a semester.")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument("--port", type=_bounded(0, 65535), default=8066,
                     help="port (default 8066; 0: any free one)")
    srv.add_argument("--allowed-host", action="append", default=[], metavar="HOST[:PORT]",
                     help="a Host name the server also answers to (behind a proxy; repeatable)")
    srv.add_argument("--admissions", type=_bounded(1, 64), default=1, metavar="N",
                     help="uploads built and checked at a time; the rest wait in a queue (default 1)")
    srv.add_argument("--author-quota", default="200M", metavar="SIZE",
                     help="the most an author's uploaded bots may take on disk (default 200M)")
    srv.add_argument("--executor", type=executor_option, default=None,
                     metavar="local|dask:local|dask:tcp://HOST:PORT",
                     help="where matches are played (as arena ladder run; docs/DISTRIBUTED.md)")
    srv.add_argument("--workers", type=int_option("--workers"), default=None,
                     help="referee processes (1 to 64) of the local executor, or of a dask:local cluster")
    add_sandbox_option(srv)

    st = actions.add_parser("standings", help="print the ratings, rank intervals and flagged hosts")
    st.add_argument("--json", action="store_true", help="print them as JSON")

    ch = actions.add_parser("challenge", help="unranked pairs between two bots: stored, never rated")
    ch.add_argument("first", metavar="A", help="a bot name (its latest version) or a version")
    ch.add_argument("second", metavar="B", help="a bot name (its latest version) or a version")
    ch.add_argument("--pairs", type=int_option("--pairs", 1000), default=1, help="duplicate pairs (default 1)")
    add_sandbox_option(ch)

    tok = actions.add_parser("token", help="print a new upload token for AUTHOR (only its hash is kept)")
    tok.add_argument("author", metavar="AUTHOR")
    tok.add_argument("--revoke", action="store_true", help="delete every token of AUTHOR instead: their uploads "
                     "are refused from now on (their bots stay on the ladder)")

    void = actions.add_parser("void", help="void every pair a host played; the next run plays them again")
    void.add_argument("--worker", required=True, metavar="HOST",
                      help="the host (as standings lists them) whose results are voided")
    commands["ladder"] = cmd_ladder


def cmd_ladder(args: argparse.Namespace) -> int:
    from arena.api import log_to_stderr
    from arena.store.ladder import LadderStore
    from arena.tournament import ladder as lad

    db: Path = args.db
    if args.action == "init":
        from arena.api import check_database_path
        from arena.referee.clock import TimeControl

        rules = rules_option(args.variant, args.set)
        tc = TimeControl(
            move_ms=duration_option(args.move_time, "--move-time", "move"),
            bank_ms=None if args.bank is None else duration_option(args.bank, "--bank", "bank"),
            handshake_ms=duration_option(args.handshake_time, "--handshake-time", "handshake"))
        check_database_path(db, "DB")
        if args.anchor not in ("mean", lad.LEVELS_ANCHOR):
            from arena.tournament.config import name_problem

            wrong = name_problem(args.anchor)
            if wrong is not None:
                raise ConfigError(f"--anchor: {wrong[0]}; expected mean, levels, or {wrong[1]}")
        seed = lad.init_ladder(db, rules, lad.LadderSettings(tc, args.policy, args.pairs_in_flight, args.anchor),
                               args.seed)
        print(f"ladder {db}: {rules.name}, {tc.move_ms} ms a move, {args.pairs_in_flight} pairs in flight, seed {seed}")
        warning = guessable_seed_warning(args.seed, f"--seed {args.seed}")
        if warning:
            print(f"arena: {warning}", file=sys.stderr)
        return 0
    if not db.is_file():
        raise ConfigError(f"DB: {db}: no such ladder; make one with `arena ladder {db} init --variant V`")
    if args.action == "serve":
        return _serve(args)
    with LadderStore(db) as store:
        lad.open_ladder(store)  # not a ladder: one line now
        if args.action == "add":
            cwd = None if args.cwd is None else args.cwd.absolute()
            if cwd is not None and not cwd.is_dir():
                raise ConfigError(f"--cwd: {args.cwd}: no such folder")
            if args.confined and cwd is None:
                raise ConfigError("--confined: give the bot's folder with --cwd DIR")
            got = lad.register_version(store, args.name, args.bot_command, args.author, args.build,
                                       sandbox=args.sandbox, cwd=cwd, confined=args.confined)
            if isinstance(got, lad.Added):
                print(f"{args.name}: nothing added: {got.reason}")
                return 0
            print(f"{got.key}: checking (arena check, then a validation pair against itself) ...", flush=True)
            added = lad.admit(store, got, args.sandbox)
            if added.status == "refused":
                from arena.units import printable

                print(f"{added.key}: refused: {added.reason}")
                for line in printable(added.detail).splitlines()[:40]:  # (its author sees it behind a token)
                    print(f"  {line}")
                return 1
            print(f"{added.key}: admitted; the next `arena ladder {db} run` places it")
            return 0
        if args.action == "add-levels":
            levels = lad.add_levels(store, args.sandbox, log=print)
            if lad.open_ladder(store).settings.anchor != lad.LEVELS_ANCHOR:
                print(f"(ratings are shown with {lad.open_ladder(store).settings.anchor} at 0; a ladder made "
                      "with `init --anchor levels` shows the levels at their measured Elo)")
            return 1 if any(level.status == "refused" for level in levels) else 0
        if args.action == "standings":
            return _standings(store, args.json)
        if args.action == "token":
            if args.revoke:
                gone = store.revoke_tokens(args.author)
                print(f"{gone} token{'s' if gone != 1 else ''} of {args.author} revoked")
                return 0 if gone else 1
            print(lad.new_token(store, args.author))
            return 0
        if args.action == "void":
            from arena.store import RunLock

            with RunLock(db):  # a run would wait for the voided pairs, which only the next run replays
                ids = store.void_host(args.worker)
            lad.apply_ready(store)
            print(f"{len(ids)} pairs played on {args.worker} voided; the next run plays them again")
            return 0
    options = _run_options(args)
    if args.action == "challenge":
        scores = lad.challenge(db, args.first, args.second, args.pairs, options, log_to_stderr)
        print(f"{args.first} scored {sum(scores):g} of {2 * len(scores)} against {args.second} (unranked)")
        return 0
    played = lad.run_ladder(db, options, log_to_stderr)
    print(f"{played} pairs played")
    return 0


def _serve(args: argparse.Namespace) -> int:
    """`arena ladder DB serve`: arena serve --ladder DB, with `arena ladder DB run` as its child."""
    from arena.cli.serve import cmd_serve

    db = args.db.resolve()
    play = [sys.executable, "-m", "arena", "ladder", str(db), "run"]
    if args.executor is not None:
        play += ["--executor", args.executor]
    if args.workers is not None:
        play += ["--workers", str(args.workers)]
    if args.sandbox is not None:
        play += ["--sandbox", args.sandbox]
    served = argparse.Namespace(
        config=None, db=None, watch=None, ladder=db, host=args.host, port=args.port, allowed_host=args.allowed_host,
        admissions=args.admissions, author_quota=args.author_quota, sandbox=args.sandbox, play=play)
    return cmd_serve(served)


def _run_options(args: argparse.Namespace) -> Any:
    from arena.api import executor_options
    from arena.tournament.config import ExecutorConfig
    from arena.tournament.ladder import RunOptions

    seconds = None
    if getattr(args, "duration", None) is not None:
        seconds = _run_duration(args.duration) / 1000
    # (challenge has no --executor: it plays one pair, here)
    executor, workers = executor_options(ExecutorConfig(), 1, getattr(args, "executor", None),
                                         getattr(args, "workers", None))
    return RunOptions(pairs=getattr(args, "pairs", None) if args.action == "run" else None, seconds=seconds,
                      sandbox=args.sandbox or "auto", executor=executor, workers=workers)


MAX_RUN_MS = 366 * 86_400_000  # a year: a course's ladder runs a semester


def _run_duration(text: str) -> int:
    """``run --for``: a duration of 1 ms to a year, else one line naming the option."""
    from arena.units import DurationError, bounded_duration

    try:
        return bounded_duration(text, 1, MAX_RUN_MS)
    except DurationError as e:
        raise ConfigError(f"--for: {e}") from None


def _standings(store: Any, as_json: bool) -> int:
    from arena.tournament.ladder import LEVELS_ANCHOR, board

    shown = board(store)
    rows = [{k: round(v, 1) if k in ("rating", "low", "high") else v for k, v in row.items() if k != "version"}
            for row in shown.rows]
    waiting, flagged = shown.waiting, shown.flagged
    if as_json:
        print(json.dumps({"standings": rows, "not_rated": waiting, "flagged_hosts": flagged, "anchor": shown.anchor,
                          "hosts": [vars(h) for h in store.host_rates()]}, indent=2))
        return 0
    print(f"{'rank':>4}  {'ranks':>7}  {'version':<30} {'rating':>7}  {'95% interval':>15}  {'pairs':>5}  author")
    for r in rows:
        mark = "?" if r["provisional"] else " "
        retired = "" if r["active"] else "  (retired)"
        ranks = f"{r['rank_low']}-{r['rank_high']}"
        print(f"{r['rank']:>4}  {ranks:>7}  {r['key']:<30} {r['rating']:>6.0f}{mark}  "
              f"{r['low']:>6.0f} to {r['high']:>5.0f}  {r['pairs']:>5}  {r['author']}{retired}")
    from arena.serve.i18n import strings

    words = strings("en")  # the pages' words: one vocabulary for a version's states
    for w in waiting:
        state = words[f"ladder_state_{w['state']}"]
        print(f"      {w['key']}: {state}" + (f": {w['reason']}" if w["reason"] and w["state"] == "refused" else ""))
    anchor = shown.anchor
    print(words["ladder_anchor_mean"] if anchor == "mean" else words["ladder_anchor_levels"]
          if anchor == LEVELS_ANCHOR else words["ladder_anchor_name"].format(name=anchor))
    for host in flagged:
        print(f"flagged: {host} ends matches in terminations far more often than the rest "
              f"(arena ladder DB void --worker {host})")
    if any(r["provisional"] for r in rows):
        print("? provisional: its 95% interval is still wide")
    return 0
