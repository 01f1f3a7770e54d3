"""`arena check "COMMAND"`: a compliance run of one bot (arena.compliance), printed as a checklist.

Exit status 0 when every check passes, 1 when one fails or is not reached, 2 for bad input.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli.options import add_sandbox_option, duration_option, int_option, transcripts_option
from arena.game.variants import PRESETS
from arena.units import printable

if TYPE_CHECKING:
    from arena.compliance import CheckReport

MAX_MATCHES = 20  # per variant: a check is a few seconds, not a tournament


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "check",
        help="check that a bot speaks the protocol correctly (a compliance run)",
        description="Run a bot through the referee and check what bots get wrong: the handshake, flushed output, "
        "time limits, seeded matches in every variant against the random bot, several matches in one process, "
        "forced follow/head/trump after a close, marriages, exchanges, closes, declaring 66, and quit. Prints a "
        "checklist; each failure shows the transcript lines and the section of docs/PROTOCOL.md it breaks. "
        "Exit status: 0 when every check passes, 1 when one fails or is not reached, 2 for bad input. "
        "docs/CHECK.md describes every check.",
    )
    p.add_argument("bot_command", metavar="COMMAND", help='the bot\'s command line, e.g. "python mybot/bot.py"')
    p.add_argument("--variant", choices=list(PRESETS), action="append",
                   help="check only this variant (repeatable; default: all of " + ", ".join(PRESETS) + ")")
    p.add_argument("--seed", type=int_option("--seed"), default=0,
                   help="seed of the deals and of the random opponent (default 0: every run plays the same)")
    p.add_argument("--matches", type=int_option("--matches", MAX_MATCHES), default=2,
                   help=f"matches against the random bot per variant, 1 to {MAX_MATCHES} (default 2)")
    p.add_argument("--move-time", default="1000", help="limit per decision: 500, 500ms, 2s (default 1000 ms)")
    p.add_argument("--handshake-time", default="5s", help="limit for the handshake (default 5s)")
    p.add_argument("--transcripts", type=Path, metavar="DIR", help="write every match's transcript into DIR")
    add_sandbox_option(p, "the bot")
    commands["check"] = cmd_check


def cmd_check(args: argparse.Namespace) -> int:
    from arena.botspec import resolve_command
    from arena.compliance import check_bot
    from arena.referee.clock import TimeControl

    tc = TimeControl(move_ms=duration_option(args.move_time, "--move-time", "move"),
                     handshake_ms=duration_option(args.handshake_time, "--handshake-time", "handshake"))
    if args.transcripts:
        transcripts_option(args.transcripts)
    variants = list(dict.fromkeys(args.variant)) if args.variant else list(PRESETS)
    resolve_command(args.bot_command, Path.cwd())  # a command that cannot start is one line, before any output
    print(f"arena check {shlex.quote(args.bot_command)}: {', '.join(variants)}; seed {args.seed}; "
          f"{tc.move_ms} ms a move", flush=True)
    report = check_bot(args.bot_command, variants=variants, seed=args.seed, time_control=tc, sandbox=args.sandbox,
                       matches=args.matches)
    if args.transcripts:
        from arena.cli.match import write_transcripts

        for rec in report.records:
            write_transcripts(rec, args.transcripts)
    # the report quotes the bot (its lines, stderr): nothing of it may drive the terminal
    print(printable(format_report(report, transcripts=args.transcripts)))
    return 0 if report.passed else 1


def format_report(report: CheckReport, transcripts: Path | None = None) -> str:
    from arena.compliance import Status, section_ref

    width = max(len(str(st)) for st in Status)
    lines = []
    for c in report.checks:
        lines.append(f"  {c.status!s:<{width}}  {c.title}" + (f": {c.detail}" if c.detail else ""))
        pad = " " * (width + 6)
        for note in c.notes:
            if note:
                lines.append(f"{pad}{'hint' if c.status is Status.FAIL else 'note'}: {note}")
        for line in c.evidence:
            lines.append(f"{pad}| {line}")
        if c.status is Status.FAIL and c.section:
            lines.append(f"{pad}expected: see {section_ref(c.section)}")
    counts = {st: sum(1 for c in report.checks if c.status is st) for st in Status}
    summary = ", ".join(f"{n} {str(st).lower()}" for st, n in counts.items() if n)
    verdict = "the bot passes every check" if report.passed else "the bot does not pass"
    lines.append(f"{summary}: {verdict}")
    if not report.passed:
        lines.append(f"every match's transcript is in {transcripts}" if transcripts else
                     "(add --transcripts DIR to keep every match's transcript)")
    return "\n".join(lines)
