"""`arena transcript DATABASE MATCH [--seat 0|1]`: print a stored match's protocol lines, both ways, with
their times, then the bot's stderr: what the report leaves out for a match that went by the book."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.cli.options import reading_database
from arena.errors import ArenaError
from arena.units import printable


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "transcript",
        help="print a stored match's transcript (every protocol line with its time, and stderr)",
        description="Print the transcript of one match from a tournament database: every line the referee sent "
        "(>) and the bot wrote (<), with the milliseconds since the bot process started, the referee's notes "
        "(!), then the bot's stderr. The database keeps only what the match's record does not give back; the "
        "rest is rebuilt here, exactly as it was sent (docs/DATABASE.md).",
    )
    p.add_argument("database", type=Path, metavar="DATABASE", help="the tournament's SQLite database")
    p.add_argument("match", metavar="MATCH", help="the match id, as the report and `arena export` show it")
    p.add_argument("--seat", type=int, choices=(0, 1), default=None, help="only this seat (default: both)")
    commands["transcript"] = cmd_transcript


def cmd_transcript(args: argparse.Namespace) -> int:
    from arena.store import Store

    with Store.open_existing(args.database) as store, reading_database(args.database):
        seats = [s for s in store.seats(args.match) if args.seat is None or s.seat == args.seat]
    if not seats:
        raise ArenaError(f"{args.database}: no transcript of match {args.match!r}"
                         + (f" seat {args.seat}" if args.seat is not None else "")
                         + "; `arena export` lists the finished matches")
    out = []
    for s in seats:
        if len(seats) > 1:
            out.append(f"--- seat {s.seat}: {s.bot} ---")
        lines = s.transcript
        out += [f"{ms:10.3f} {d} {text}" for ms, d, text in lines] if isinstance(lines, list) else [str(lines)]
        if s.stderr:
            out += ["", "--- stderr ---", s.stderr.rstrip("\n")]
    # what the bot wrote (its lines, info, stderr) cannot drive the terminal: ESC and the rest become '?'
    sys.stdout.write(printable("\n".join(out)) + "\n")
    return 0
