"""Subcommands that need trio and the referee (kept out of cli.py so `arena rules` stays light)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.game.variants import PRESETS, RuleSet


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
    p.add_argument("--matches", type=int, default=2, help="number of matches (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    p.add_argument("--move-time", default="1000", help="limit per decision: 500, 500ms, 2s (default 1000 ms)")
    p.add_argument("--bank", default=None, help="time bank per match (default none)")
    p.add_argument("--handshake-time", default="5s", help="limit for the handshake (default 5s)")
    p.add_argument("--policy", default="lose-match", choices=["lose-match", "lose-deal", "random-move"],
                   help="what a violation costs (default lose-match)")
    p.add_argument("--no-duplicate", action="store_true", help="give every match its own deals")
    p.add_argument("--concurrency", type=int, default=None, help="matches at once (default: CPU count)")
    p.add_argument("--names", nargs=2, metavar=("NAME_A", "NAME_B"), help="names shown for the two bots")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                   help="stop early by SPRT, e.g. --sprt elo0=0 elo1=20 alpha=0.05 beta=0.05")
    p.add_argument("--transcripts", type=Path, metavar="DIR",
                   help="write every match's transcript (both bots' lines and stderr) into DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    commands["match"] = cmd_match


def _duration(text: str, what: str) -> int:
    from arena.tournament.config import parse_duration

    try:
        return parse_duration(text)
    except ValueError as e:
        raise ConfigError(f"{what}: {e}") from None


def cmd_match(args: argparse.Namespace) -> int:
    import trio

    from arena.botspec import resolve_command
    from arena.referee.clock import TimeControl
    from arena.referee.match import Player
    from arena.referee.process import BotSpec
    from arena.referee.series import play_series

    if args.matches < 1:
        raise ConfigError("--matches must be at least 1")
    rules = RuleSet.from_dict(args.variant).with_overrides(parse_overrides(args.set))
    tc = TimeControl(
        move_ms=_duration(args.move_time, "--move-time"),
        bank_ms=None if args.bank is None else _duration(args.bank, "--bank"),
        handshake_ms=_duration(args.handshake_time, "--handshake-time"),
    )
    names = args.names or _default_names(args.bot_a, args.bot_b)
    cwd = Path.cwd()
    a = Player(BotSpec(names[0], tuple(resolve_command(args.bot_a, cwd))), tc)
    b = Player(BotSpec(names[1], tuple(resolve_command(args.bot_b, cwd))), tc)
    sprt = None
    if args.sprt:
        from arena.stats import parse_sprt_args

        try:
            sprt = parse_sprt_args(args.sprt)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"--sprt: {e}") from None
    concurrency = args.concurrency or os.cpu_count() or 1
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

    pairs = trio.run(play_series, a, b, rules, args.matches, args.seed, not args.no_duplicate, concurrency,
                     args.policy, on_record)
    if sprt is not None:
        pairs = pairs[: next_index[0]]
    if args.transcripts:
        for _, rec in pairs:
            write_transcripts(rec, args.transcripts)
    summary = summarize(names, [rec for _, rec in pairs], rules, args.seed)
    if sprt is not None:
        summary["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                           "verdict": sprt.verdict, "llr": round(sprt.llr, 4),
                           "bounds": [round(x, 4) for x in sprt.bounds], "games": next_index[0]}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    return 0


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


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``--set NAME=VALUE`` options as rule overrides; values are read as YAML scalars (7, true, 3,3)."""
    import yaml

    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ArenaError(f"--set {item!r}: expected NAME=VALUE, e.g. --set match_target=7")
        key, value = item.split("=", 1)
        out[key] = yaml.safe_load(value)
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
    p.add_argument("--concurrency", type=int, default=None, help="override the config's concurrency")
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    commands["run"] = cmd_run


def cmd_run(args: argparse.Namespace) -> int:
    import dataclasses

    import trio

    from arena.tournament.build import bot_provenance, run_builds
    from arena.tournament.config import load_config
    from arena.tournament.runner import Progress, ProgressDisplay, run_matches, schedule_rows
    from arena.tournament.schedule import build_schedule
    from arena.tournament.store import Store

    config = load_config(args.config)
    if args.concurrency is not None:
        if args.concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        config = dataclasses.replace(config, concurrency=args.concurrency)
    builds = run_builds(config)
    provenance = bot_provenance(config, builds)
    schedule = build_schedule(config)
    if args.fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(str(config.database) + suffix).unlink(missing_ok=True)
    store = Store(config.database)
    try:
        store.begin(
            config.name, str(config.source), config.text, config.hash, config.rules.to_dict(), config.seed,
            config.format, schedule_rows(schedule),
            [{"name": b["name"], "command": b["command"], "argv": json.dumps(b.get("argv", [])),
              "hash": b["hash"], "build_output": b.get("build_output") or ""} for b in provenance],
            force=args.force,
        )
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
    finally:
        store.close()


async def _until_interrupted(fn: Any, *args: Any) -> bool:
    """Run ``fn``; Ctrl-C (SIGINT) or SIGTERM cancels it cleanly. True if it was interrupted.

    Cancelling abandons the running matches (their bots are stopped; nothing of them is stored), while
    every finished match is already in the database.
    """
    import signal

    import trio

    interrupted = False
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                nonlocal interrupted
                async for _ in signals:
                    interrupted = True
                    nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            await fn(*args)
            nursery.cancel_scope.cancel()
    return interrupted


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

        self.last = time.monotonic()
        render_report(self.store, Path(self.config.report_dir), index_only=not final)


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
