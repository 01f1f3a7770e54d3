"""`arena serve [CONFIG]`: play in the browser against the registry's bots or a friend; `arena serve --watch
DB`: a tournament's report with live standings. The web edge is arena.serve; docs/SERVE.md is the guide."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from pathlib import Path
from typing import Any, cast

from arena.cli.options import add_sandbox_option, add_set_option, duration_option, parse_overrides
from arena.errors import ConfigError
from arena.levels import registry_yaml
from arena.seeds import guessable_seed_warning

DEFAULT_DB = "arena-serve.db"
# Without CONFIG: the house levels (arena/levels.py: Level 1 · Beginner to Level 6 · Master, built from
# arena's reference bots), then a random player below them all (arena's own checkout: commands from bots/)
DEFAULT_REGISTRY = registry_yaml() + """\
  - name: random
    command: python random.py --seed 1
"""

EPILOG = """\
Quick Play seats you against a bot of the registry (CONFIG's bots:, the same list a tournament plays; without
CONFIG the house levels, Level 1 · Beginner to Level 6 · Master, and random); "Create a room" gives a code to share
with a friend. Every game is recorded in --db (the first variant's games; another variant's go to the same name
with the variant before .db), which `arena report` renders.

examples: arena serve tournaments/demo.yaml
          arena serve --port 8080 --human-time 5m --set match_target=3
          arena serve --watch reports/demo/arena.db   (while `arena run` writes it)
see docs/SERVE.md"""


def _bounded(lo: int, hi: int) -> Any:
    """An argparse ``type=``: an integer from ``lo`` to ``hi``."""

    def integer(text: str) -> int:
        t = text.strip()
        if not t.isascii() or not t.isdigit() or len(t) > 9 or not lo <= int(t) <= hi:
            raise argparse.ArgumentTypeError(f"{text[:20]!r} is not an integer from {lo} to {hi}")
        return int(t)

    return integer


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "serve",
        help="play in the browser against a bot or a friend (or watch a running tournament)",
        description="Start a web server where people play the registry's bots, or each other, through the "
                    "referee\nthat judges tournaments. It prints its URL.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", metavar="CONFIG", nargs="?", help="tournament YAML whose bots: are the opponents")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="HOST[:PORT]",
                   help="a Host name the server also answers to (behind a proxy; repeatable); without it only "
                        "the address it listens on: 127.0.0.1, localhost, [::1] or --host, with the port")
    p.add_argument("--port", type=_bounded(0, 65535), default=8066, help="port (default 8066; 0: any free one)")
    p.add_argument("--db", type=Path, default=None, help=f"database of the games (default {DEFAULT_DB} in the "
                   "current directory)")
    p.add_argument("--watch", type=Path, metavar="DB", default=None,
                   help="serve the report of this tournament database instead, with live standings")
    p.add_argument("--ladder", type=Path, metavar="DB", default=None,
                   help="serve this ladder (arena ladder): its leaderboard, each bot's history and an upload form")
    p.add_argument("--admissions", type=_bounded(1, 64), default=1, metavar="N",
                   help="with --ladder: uploads admitted (built and checked) at a time; the rest wait in a queue "
                        "(default 1)")
    p.add_argument("--author-quota", default="200M", metavar="SIZE",
                   help="with --ladder: the most an author's uploaded bots may take on disk, their builds' files "
                        "included (default 200M)")
    p.add_argument("--variant", default=None, help="the variant offered first (default: CONFIG's, else santase)")
    add_set_option(p)
    p.add_argument("--seed", type=_bounded(0, 2**31 - 1), default=None,
                   help="derive each game's deals from this seed and the game's number (default: a fresh random "
                        "seed per game; each game's seed is recorded either way)")
    p.add_argument("--human-time", default="2m", help="a person's time per move (default 2m)")
    p.add_argument("--leave-timeout", default="60s",
                   help="a player with no connection this long forfeits, as a disconnect (default 60s)")
    p.add_argument("--idle-timeout", default="30m", help="a room nobody joins, or a finished one nobody "
                   "watches, is dropped after this (default 30m)")
    p.add_argument("--max-rooms", type=_bounded(1, 100_000), default=200, help="rooms at a time (default 200)")
    p.add_argument("--max-games", type=_bounded(1, 10_000), default=4,
                   help="open games per client address (default 4)")
    p.add_argument("--max-connections", type=_bounded(1, 10_000), default=16,
                   help="WebSockets per client address (default 16)")
    add_sandbox_option(p)
    commands["serve"] = cmd_serve


def _registry(args: argparse.Namespace) -> Any:
    from arena.referee.sandbox import check_bot_files, resolve_sandbox
    from arena.tournament.build import run_builds
    from arena.tournament.config import load_config, parse_config
    from arena.tournament.runner import shown_files

    if args.config is not None:
        config = load_config(args.config)
    else:
        bots = Path(__file__).resolve().parent.parent.parent / "bots"
        if not (bots / "greedy.py").is_file():
            raise ConfigError("arena serve needs a CONFIG whose bots: are the opponents (no reference bots here)")
        config = parse_config(DEFAULT_REGISTRY, bots / "serve-registry.yaml")
    run_builds(config)  # the levels' bots are C: built (once; make does nothing when it is up to date)
    if args.sandbox is not None:
        config = dataclasses.replace(config, sandbox=args.sandbox)
    if resolve_sandbox(config.sandbox) == "bwrap":  # as `arena run`: no pipe, nothing unreadable among its files
        for bot in config.bots:
            check_bot_files(bot.name, shown_files(config, bot.name))
    return config


def _variants(args: argparse.Namespace, config: Any) -> dict[str, Any]:
    from arena.game.variants import PRESETS, RulesError

    overrides = parse_overrides(args.set)
    first = args.variant or (config.rules.name if args.config is not None else "santase")
    if first not in PRESETS:
        raise ConfigError(f"--variant: unknown variant {first!r}; expected one of {', '.join(PRESETS)}")
    variants = {}
    try:
        for name in [first, *(n for n in PRESETS if n != first)]:
            base = config.rules if args.config is not None and config.rules.name == name else PRESETS[name]
            variants[name] = base.with_overrides(overrides)
    except RulesError as e:
        raise ConfigError(f"--set: {e}") from None
    return variants


def _check_listen(host: str, port: int) -> None:
    """Refuse at once, in one line, an address the server could not listen on (a port in use, a host that
    is no address of this machine), rather than as the server's own error from inside its nursery."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise ConfigError(f"--host: {host!r} is not an address or host name here ({e})") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind(address)
        except OSError as e:
            raise ConfigError(f"--host/--port: cannot listen on {host}:{port}: {e.strerror}") from None


def cmd_serve(args: argparse.Namespace) -> int:
    import trio

    from arena.referee.sandbox import resolve_sandbox
    from arena.serve.rooms import Limits

    def seconds(text: str, option: str) -> float:
        return duration_option(text, option, "move") / 1000

    from arena.serve.hosts import parse_allowed

    args.allowed = parse_allowed(args.allowed_host)
    if args.ladder is not None:
        if args.config is not None or args.db is not None or args.watch is not None:
            raise ConfigError("--ladder DB serves a ladder: give it without CONFIG, --db and --watch")
        if not args.ladder.is_file():
            raise ConfigError(f"--ladder: {args.ladder}: no such ladder (make one with `arena ladder DB init`)")
        args.ladder = args.ladder.resolve()  # once: uploads' folders and their sandboxes see one real path
        args.quota = _size_option(args.author_quota, "--author-quota")
        _check_listen(args.host, args.port)
        return _unwrapped(trio.run, _ladder, args)
    if args.watch is not None:
        if args.config is not None or args.db is not None:
            raise ConfigError("--watch DB serves a tournament's report: give it without CONFIG and --db")
        if not args.watch.is_file():
            raise ConfigError(f"--watch: {args.watch}: no such database")
        _check_listen(args.host, args.port)
        return _unwrapped(trio.run, _watch, args)
    limits = Limits(
        human_ms=duration_option(args.human_time, "--human-time", "move"),
        leave_s=seconds(args.leave_timeout, "--leave-timeout"),
        idle_s=seconds(args.idle_timeout, "--idle-timeout"),
        max_rooms=args.max_rooms, games_per_client=args.max_games, connections_per_client=args.max_connections,
    )
    config = _registry(args)
    variants = _variants(args, config)
    resolve_sandbox(config.sandbox)  # warns once, here, when bots would run unconfined
    db = (args.db or Path(DEFAULT_DB)).absolute()
    _check_listen(args.host, args.port)
    return _unwrapped(trio.run, _serve, args, config, variants, db, limits)


def _size_option(text: str, option: str) -> int:
    from arena.units import DurationError, parse_size

    try:
        size = parse_size(text)
    except DurationError:
        size = -1
    if size <= 0:
        raise ConfigError(f"{option}: {text[:20]!r} is not a size; expected bytes, or a number with K, M, G "
                          "(powers of 1024: 512M, 2G)")
    return size


def _unwrapped(run: Any, *args: Any) -> int:
    """An ArenaError raised inside the server's nursery reaches the CLI as itself (one line, exit 2)."""
    from arena.errors import ArenaError

    try:
        result: int = run(*args)
        return result
    except BaseExceptionGroup as group:
        found: BaseException | None = group.subgroup(ArenaError)
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        if found is not None:
            raise found from None
        raise


def _hypercorn_config(args: argparse.Namespace) -> Any:
    from hypercorn.config import Config

    hc = Config()
    hc.bind = [f"{args.host}:{args.port}"]
    hc.accesslog = None
    hc.errorlog = None
    hc.websocket_max_message_size = 64 * 1024  # the seat refuses anything over 1 kB; this closes far bigger
    hc.graceful_timeout = 1.0
    return hc


async def _run_until_signal(nursery: Any) -> None:
    import trio

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            nursery.cancel_scope.cancel()
            return


def _url(binds: list[str]) -> str:
    bind = binds[0]
    return bind if bind.endswith("/") else bind + "/"


def _gated(app: Any, args: argparse.Namespace, report_prefix: str = "/replay/") -> tuple[Any, Any]:
    """The application behind the Host check (arena.serve.hosts), every response with the security headers
    (arena.serve.app.secured; the report's own policy under ``report_prefix``), a refusal that left a body
    unread closing its connection (unread_released), and the gate, told the port once bound."""
    from arena.serve.app import secured, unread_released
    from arena.serve.hosts import HostGate, check_host

    gate = HostGate(args.host, args.allowed)
    return secured(unread_released(check_host(app, gate)), report_prefix), gate


def _port(binds: list[str]) -> int:
    return int(binds[0].rstrip("/").rsplit(":", 1)[1])


async def _serve(args: argparse.Namespace, config: Any, variants: dict[str, Any], db: Path, limits: Any) -> int:
    import trio

    from arena.serve.app import build_app
    from arena.serve.rooms import RoomHall

    async with trio.open_nursery() as nursery:
        hall = RoomHall(config, variants, db, limits, nursery, seed=args.seed)
        try:
            hall.store(next(iter(variants)))  # a database that cannot be used stops the server now
        except BaseException:
            hall.close()
            raise
        app = build_app(hall)
        gated, gate = _gated(app, args)
        try:
            nursery.start_soon(_run_until_signal, nursery)
            nursery.start_soon(hall.expire)
            binds = await _listen(nursery, gated, gate, args)
            warning = guessable_seed_warning(args.seed, f"--seed {args.seed}")  # (a bot may guess the deals)
            if warning:
                print(f"arena: {warning}", file=sys.stderr, flush=True)
            print(f"arena serve: {_url(binds)} (opponents: {', '.join(b.name for b in config.bots)}; "
                  f"games recorded in {db}); Ctrl-C stops", flush=True)
        except BaseException:
            nursery.cancel_scope.cancel()
            raise
    hall.close()
    app.state.replays.close()
    return 0


async def _watch(args: argparse.Namespace) -> int:
    from arena.serve.watch import Watcher, build_watch_app

    watcher = Watcher(args.watch.absolute())
    try:
        await watcher.first()
        await _serve_app(args, build_watch_app(watcher), [watcher.follow], f"the report of {args.watch}, live",
                         report_prefix="/")  # every page is the report's
    finally:
        watcher.close()
    print("arena serve: stopped", file=sys.stderr)
    return 0


async def _ladder(args: argparse.Namespace) -> int:
    from arena.serve.ladder import LadderSite, build_ladder_app
    from arena.store.ladder import LadderStore

    with LadderStore(args.ladder) as store:
        store.ladder_settings()  # not a ladder: one line, before the server starts
    site = LadderSite(args.ladder, args.sandbox, admissions=args.admissions, author_quota=args.quota)
    tasks: list[Any] = [site.admissions]
    play = getattr(args, "play", None)  # `arena ladder DB serve`: the rated pairs are played beside the pages
    if play is not None:
        from arena.serve.ladder import keep_playing

        tasks.append(lambda: keep_playing(play))
    await _serve_app(args, build_ladder_app(site), tasks,
                     f"the ladder {args.ladder}" + (", playing its pairs" if play is not None else ""))
    print("arena serve: stopped", file=sys.stderr)
    return 0


async def _serve_app(args: argparse.Namespace, app: Any, tasks: list[Any], what: str,
                     report_prefix: str = "/replay/") -> None:
    """Serve ``app`` behind the Host check, with ``tasks`` beside it, until a signal stops it."""
    import trio

    gated, gate = _gated(app, args, report_prefix)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_run_until_signal, nursery)
        for task in tasks:
            nursery.start_soon(task)
        binds = await _listen(nursery, gated, gate, args)
        print(f"arena serve: {_url(binds)} ({what}); Ctrl-C stops", flush=True)


async def _listen(nursery: Any, gated: Any, gate: Any, args: argparse.Namespace) -> list[str]:
    """Start serving ``gated`` in ``nursery``; the addresses bound (the gate is told the port)."""
    from hypercorn.trio import serve

    try:
        binds: list[str] = await nursery.start(lambda task_status: serve(cast(Any, gated), _hypercorn_config(args),
                                                                          task_status=task_status))
    except OSError as e:
        raise ConfigError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    gate.listening(_port(binds))
    return binds
