"""`arena report DATABASE -o DIR`: render the HTML report again from any tournament database."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.cli.options import reading_database
from arena.errors import ArenaError


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "report",
        help="render the HTML report from a tournament database",
        description="Render the static HTML report (index, rules, the list of matches, one page per bot, and "
        "a viewer of every match's replay and of each duplicate pair) from a tournament database, e.g. `arena "
        "report reports/demo/arena.db -o reports/demo`. The pages open from disk and need no network.",
    )
    p.add_argument("database", type=Path, metavar="DATABASE", help="the tournament's SQLite database")
    p.add_argument("-o", "--output", type=Path, metavar="DIR", default=None,
                   help="directory to write the report into (default: the database's directory)")
    p.add_argument("--index-only", action="store_true", help="re-render only index.html (fast)")
    p.add_argument("--transcripts", choices=("all", "faults", "none"), default="faults",
                   help="which matches keep their full protocol transcripts in the report: every match, only "
                   "those with a termination or a random move played for a bot (default), or none; the others "
                   "keep what the replay shows (info lines, think times) and stderr")
    commands["report"] = cmd_report


def cmd_report(args: argparse.Namespace) -> int:
    from arena.report import render_report
    from arena.store import Store

    database: Path = args.database
    out: Path = args.output if args.output is not None else database.parent
    with Store.open_existing(database) as store:
        try:
            with reading_database(database):
                index = render_report(store, out, index_only=args.index_only, transcripts=args.transcripts)
        except OSError as e:
            raise ArenaError(f"cannot write the report to {out}: {e.strerror or e}") from None
    print(f"report: {index}", file=sys.stdout)
    return 0
