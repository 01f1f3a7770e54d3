"""`arena export DATABASE [--format jsonl|pgn-like] [-o FILE]`: one game record per finished match
(docs/RECORDS.md), the portable form of what the database holds; `arena replay` checks them."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.cli.options import reading_database
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.game.variants import RuleSet
    from arena.records import BotTermination, DealRecord, GameRecord
    from arena.store import Store, StoredDeal, StoredMatch, StoredTermination

FORMATS = ("jsonl", "pgn-like")  # arena.records.FORMATS, without importing the rules to build the parser
SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".pgn": "pgn-like", ".txt": "pgn-like"}


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "export",
        help="write every finished match of a database as a game record (jsonl or pgn-like)",
        description="Write one game record per finished match of a tournament database: the bots by seat, the "
        "full rule set, the seeds, every deal's deck and actions, and the result with its terminations. "
        "`arena replay FILE` checks the records against the rules. The formats are described in "
        "docs/RECORDS.md.",
    )
    p.add_argument("database", type=Path, metavar="DATABASE", help="the tournament's SQLite database")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="jsonl (one JSON object per line) or pgn-like ([Tag \"value\"] headers and the actions); "
                   "default: from the -o file's suffix (.pgn is pgn-like), else jsonl")
    p.add_argument("-o", "--output", type=Path, metavar="FILE", default=None,
                   help="the file to write (a file there is replaced, through a symbolic link too; a FIFO or a "
                   "device is written into; default: standard output)")
    commands["export"] = cmd_export


def cmd_export(args: argparse.Namespace) -> int:
    from arena.store import Store

    output: Path | None = args.output
    fmt: str = args.format or (SUFFIXES.get(output.suffix.lower(), "jsonl") if output is not None else "jsonl")
    if output is not None and output.is_dir():
        raise ArenaError(f"-o: {output} is a directory; expected the path of a file to write")
    with Store.open_existing(args.database) as store:
        records = stored_records(store, args.database)
        if output is None:
            with reading_database(args.database):
                count = _write(sys.stdout, records, fmt)
            sys.stdout.flush()
            return 0
        target = output.resolve()  # through a symbolic link: the file it names is replaced, not the link
        # a device or a FIFO is written into, never replaced; a file is written beside it, then renamed
        into = target.exists() and not target.is_file()
        partial = target if into else target.with_name(f".{target.name}.partial")
        try:
            with open(partial, "w", encoding="utf-8", newline="\n") as f, reading_database(args.database):
                count = _write(f, records, fmt)
            if not into:
                partial.replace(target)  # a failed export never leaves half a file under the name asked for
        except OSError as e:
            if not into:
                partial.unlink(missing_ok=True)
            raise ArenaError(f"-o: cannot write {output}: {e.strerror or e}") from None
        except BaseException:
            if not into:
                partial.unlink(missing_ok=True)
            raise
    print(f"export: {count} record{'' if count == 1 else 's'} ({fmt}) to {output}")
    return 0


def _write(out: TextIO, records: Iterator[GameRecord], fmt: str) -> int:
    from arena.records import format_record

    count = 0
    for record in records:
        out.write(format_record(record, fmt))
        count += 1
    return count


def stored_records(store: Store, where: Path) -> Iterator[GameRecord]:
    """The record of every finished match of the database's tournament, in schedule order."""
    from arena.game.variants import RulesError, RuleSet

    tournament = store.tournament_info()
    try:
        rules = RuleSet.from_dict(dict(tournament.rules)) if tournament.rules else None
    except (RulesError, TypeError) as e:
        raise ArenaError(f"{where}: the stored rule set cannot be read ({e})") from None
    if rules is None:
        raise ArenaError(f"{where}: the stored rule set cannot be read (tournaments.rules is not a JSON object)")
    for match in store.matches(tournament.name):
        if match.done:
            yield stored_record(tournament.name, rules, match, store.deals(match.match_id),
                                store.match_terminations(match.match_id), where)


def stored_record(event: str, rules: RuleSet, match: StoredMatch, deals: Sequence[StoredDeal],
                  terminations: Sequence[StoredTermination], where: Path) -> GameRecord:
    """One finished match of the database as a record; ArenaError naming the row a record cannot be made of."""
    from arena.records import GameRecord

    return GameRecord(
        event=event, match=match.match_id, date=match.started_at or "", bots=match.seats, rules=rules,
        deal_seed=match.spec.deal_seed, match_seed=match.spec.match_seed,
        deals=tuple(_deal(d, f"{where}: match {match.match_id} deal {d.idx + 1}") for d in deals),
        result=dataclasses.replace(match.result, terminations=tuple(
            _termination(t, f"{where}: match {match.match_id}") for t in terminations)),
    )


def _termination(t: StoredTermination, where: str) -> BotTermination:
    """The stored termination as the game record holds it: without its time, which records do not carry."""
    try:
        return dataclasses.replace(t.record(), at_ms=0.0)
    except ValueError as e:  # a kind arena does not name
        raise ArenaError(f"{where}: termination {t.kind!r}: {e}") from None


def _deal(d: StoredDeal, where: str) -> DealRecord:
    try:
        return d.record()
    except ValueError as e:  # a card (CardError) or an action token that does not read
        raise ArenaError(f"{where}: {e}") from None
