"""`arena run CONFIG`: run or resume a tournament (arena.run_tournament), then print its standings."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli.options import int_option, termination_note
from arena.referee.sandbox import SANDBOX_KINDS

if TYPE_CHECKING:
    from arena.referee.record import MatchRecord
    from arena.tournament.runner import Progress


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
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
    p.add_argument("--concurrency", type=int_option("--concurrency"), default=None,
                   help="override the config's concurrency (1 to 256)")
    p.add_argument("--no-report", action="store_true", help="do not write the HTML report")
    p.add_argument("--sandbox", choices=SANDBOX_KINDS, default=None,
                   help="override the config's sandbox: bwrap (bubblewrap) or none")
    p.add_argument("--executor", type=executor_option, default=None, metavar="local|dask:local|dask:tcp://HOST:PORT",
                   help="override the config's executor: this machine, a Dask LocalCluster, or a running Dask "
                   "scheduler (docs/DISTRIBUTED.md)")
    p.add_argument("--workers", type=int_option("--workers"), default=None,
                   help="referee processes (1 to 64) of the local executor, or of a dask:local cluster")
    commands["run"] = cmd_run


def executor_option(text: str) -> str:
    """An argparse ``type=``: the --executor text, checked here (one line naming the option) and parsed again
    by the library."""
    from arena.tournament.config import parse_executor

    try:
        parse_executor(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text.strip()


def cmd_run(args: argparse.Namespace) -> int:
    from arena.api import log_to_stderr, run_tournament
    from arena.store import Store

    with ProgressDisplay() as display:
        outcome = run_tournament(args.config, fresh=args.fresh, force=args.force, concurrency=args.concurrency,
                                 sandbox=args.sandbox, report=not args.no_report, on_progress=display.update,
                                 log=log_to_stderr, executor=args.executor, workers=args.workers)
    with Store.open_existing(outcome.database) as store:
        print(standings_text(store, outcome.name))
    if outcome.report is not None:
        print(f"report: {outcome.report}")
    if outcome.interrupted:
        print(f"arena: interrupted; {outcome.left} matches left. Run the same command again to resume.",
              file=sys.stderr)
        return 130
    return 0


def _elo(value: float) -> str:
    return f"{round(value) or 0:+d}"  # +0, never -0


def standings_text(store: Any, name: str) -> str:
    """The standings as a terminal table: the same figures as the report's index (one source for both)."""
    from arena.report.context import BOOTSTRAP_FINAL, load, standing_rows

    data = load(store, bootstrap=BOOTSTRAP_FINAL, think_times=False)  # the report's resamples: its intervals
    rows = [r for r in standing_rows(data) if r.totals.matches]
    if not rows:
        return "no results yet"
    width = max(len(r.bot) for r in rows)
    out = [f"{'rank':>4}  {'bot':<{width}}  {'elo':>6}  {'95% interval':>15}  {'won':>4} {'lost':>4}  "
           f"{'score':>6}  {'luck-adjusted':>19}  {'deals won':>9}  terminations"]
    for r in rows:
        t = r.totals
        interval = "" if r.lo is None or r.hi is None else f"[{_elo(r.lo)}, {_elo(r.hi)}]"
        elo = "" if r.elo is None else _elo(r.elo)
        deal_win = "-" if t.deal_win_rate is None else f"{100 * t.deal_win_rate:.1f}%"
        term = ", ".join(f"{k} {v}" for k, v in t.terminations_by_count) or "-"
        luck = "-" if r.luck is None else (f"{100 * r.luck.score:5.1f}% [{100 * r.luck.lo:3.0f}, "
                                           f"{100 * r.luck.hi:3.0f}]")
        out.append(f"{r.rank or '':>4}  {r.bot:<{width}}  {elo:>6}  {interval:>15}  {t.wins:>4} "
                   f"{t.losses:>4}  "
                   f"{100 * (t.score or 0.0):5.1f}%  {luck:>19}  {deal_win:>9}  {term}")
    if data.fit is not None:
        out.extend(f"note: {n}" for n in data.fit.notes)
    out.extend(first_terminations(store, name))
    return "\n".join(out)


def first_terminations(store: Any, name: str) -> list[str]:
    """Each bot's first termination (in schedule order) with the end of its stderr in that match: what a bot
    author needs to see first when the standings say "crash 12"."""
    terminations = store.terminations(name)
    if not terminations:
        return []
    counts: dict[str, int] = {}
    first: dict[str, Any] = {}
    for t in terminations:
        counts[t.bot] = counts.get(t.bot, 0) + 1
        first.setdefault(t.bot, t)
    out = ["terminations (each bot's first; the match pages in the report have them all):"]
    for bot, t in first.items():
        seats = store.seats(t.match_id)
        stderr = next((s.stderr for s in seats if s.seat == t.seat or (t.seat is None and s.bot == bot)), "")
        out.extend(termination_note(bot, t.kind, t.match_id, t.detail, stderr, count=counts[bot]))
    return out


class ProgressDisplay:
    """A live line on a terminal (rich); plain log lines, at most one a second, otherwise (CI, pipes).

    ``update(progress, record)`` is the `on_progress` of `arena.run_tournament`: first called before any
    match (record None), then after each one.
    """

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last_log = 0.0
        self._live: Any = None
        self._noted: set[str] = set()  # bots whose first termination this run has been shown

    def __enter__(self) -> ProgressDisplay:
        return self

    def _start(self, p: Progress, name: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        self._live = Bar(
            TextColumn(f"[bold]{name}"), TextColumn("{task.fields[round]}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), TextColumn("leader {task.fields[leader]}"),
            console=Console(file=self.stream), transient=False,
        )
        self._live.start()
        self._task = self._live.add_task("matches", total=p.total, completed=p.done, rate="", leader=p.leader(),
                                        round=p.round)

    def update(self, p: Progress, record: MatchRecord | None) -> None:
        if record is None:
            if self.tty:
                self._start(p, p.name)
            return
        self._note_terminations(record)
        if self._live is not None:
            self._live.update(self._task, completed=p.done, rate=f"{p.rate:.1f}/s", leader=p.leader(), round=p.round)
            return
        now = time.monotonic()
        if now - self._last_log < 1.0 and p.done < p.total:
            return
        self._last_log = now
        eta = "-" if p.eta_s is None else f"{p.eta_s:.0f}s"
        at = f"[{p.done}/{p.total}]" + (f" {p.round}" if p.round else "")
        print(f"{at} {p.rate:.1f} matches/s, eta {eta}, leader {p.leader()}; last: {p.last}",
              file=self.stream, flush=True)

    def _note_terminations(self, record: MatchRecord) -> None:
        """A bot's first termination in this run, at once, with the end of its stderr: a bot that crashes at
        start-up says why while the run goes on, not only "(crash)". Later ones are counted, not shown."""
        for t in record.terminations:
            if t.bot in self._noted:
                continue
            self._noted.add(t.bot)
            lines = termination_note(t.bot, str(t.kind), record.match_id, t.detail, record.stderr[t.seat], indent="")
            text = "\n".join([f"arena: {lines[0]}", *lines[1:],
                               "  (later terminations of this bot are counted in the standings)"])
            if self._live is not None:
                self._live.console.print(text, markup=False, highlight=False, soft_wrap=True)
            else:
                print(text, file=self.stream, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
