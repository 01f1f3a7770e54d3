"""`arena replay RECORD [--format jsonl|pgn-like]`: check game records (`arena export`) against the rules
engine, one line per record. Exit 0 when every record checks out, 1 when one differs, 2 when the file cannot
be read as records (one line naming the file and line)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.cli.export import FORMATS
from arena.errors import ArenaError


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "replay",
        help="check game records (from arena export) against the rules",
        description="Replay every record of a file written by `arena export` with the rules engine: each deal "
        "from its deck with the recorded actions. Every action must be legal, and the deals' results and the "
        "match's score and winner must be the ones the rules compute. Prints one line per record: OK, or the "
        "first difference with its deal and step. Exit status 0 when every record checks out, 1 when one "
        "does not, 2 when the file cannot be read.",
    )
    p.add_argument("record", metavar="RECORD", help="a file of records, or - for standard input")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="jsonl or pgn-like (default: from the file's first line)")
    commands["replay"] = cmd_replay


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.records import RecordFormatError, check_record, detect_format, parse_records

    name = "<stdin>" if args.record == "-" else args.record
    lines = read_lines(args.record, name)
    if not any(text.strip() for text in lines):
        raise ArenaError(f"{name}: holds no records; expected a file written by arena export")
    fmt = args.format or detect_format(lines)
    if fmt is None:
        first = next(i for i, text in enumerate(lines, 1) if text.strip())
        raise ArenaError(f"{name}:{first}: not a game record: expected a JSON object (jsonl) or a [Tag \"value\"] "
                         "line (pgn-like), as arena export writes")
    try:
        records = parse_records(lines, fmt)
    except RecordFormatError as e:
        raise ArenaError(f"{name}:{e.line}: {e}") from None
    if not records:
        raise ArenaError(f"{name}: holds no records; expected a file written by arena export")
    differ = 0
    for line, record in records:
        problem = check_record(record)
        if problem is None:
            deals = len(record.deals)
            print(f"{name}:{line}: {record.match}: OK ({deals} deal{'' if deals == 1 else 's'}, "
                  f"{record.result.score[0]}-{record.result.score[1]})")
        else:
            differ += 1
            print(f"{name}:{line}: {record.match}: {problem}")
    total = len(records)
    print(f"replay: {total} record{'' if total == 1 else 's'}, "
          + ("all OK" if not differ else f"{differ} differ{'s' if differ == 1 else ''} from the rules"))
    return 1 if differ else 0


def read_lines(path: str, name: str) -> list[str]:
    """The file's lines without their line breaks; ArenaError (one line, with the line number for text that is
    not UTF-8) when it cannot be read."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        raise ArenaError(f"{name}: cannot read it ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ArenaError(f"{name}:{line}: not UTF-8 text (byte {e.start + 1} of the file)") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    # Only "\n" ends a line: a record's text may hold other characters that str.splitlines takes for breaks.
    return [line.removesuffix("\r") for line in text.split("\n")]
