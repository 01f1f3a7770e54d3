"""The schema's versions: each migration, in order, with the conversions of the rows an older arena wrote.

A database records the migrations it has had in ``_migrations``; `Store` runs the missing ones, and refuses
a database that a newer arena wrote.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from arena.errors import StoreError
from arena.game.variants import RuleSet
from arena.store.codec import (
    DICTIONARY_MIN,
    _actions_column,
    _Codec,
    _deck_column,
    _dictionary,
    _encode_payload,
    _pack,
    _payload_of_json,
    _rebuilt_payloads,
    _rules_or_none,
    _think_ms,
)


def _m001_initial(db: sqlite_utils.Database) -> None:
    db.table("tournaments").create(
        {
            "name": str, "config_path": str, "config_text": str, "config_hash": str, "variant": str,
            "rules": str, "seed": int, "format": str, "total_matches": int, "created_at": str,
            "updated_at": str, "status": str,
        },
        pk="name",
    )
    db.table("bots").create(
        {"tournament": str, "name": str, "command": str, "argv": str, "hash": str, "build_output": str},
        pk=("tournament", "name"),
    )
    db.table("matches").create(
        {
            "id": str, "tournament": str, "ord": int, "bot_a": str, "bot_b": str, "pair_index": int,
            "game": int, "seat0": str, "seat1": str, "deal_seed": int, "match_seed": int, "status": str,
            "winner": str, "winner_seat": int, "score0": int, "score1": int, "reason": str,
            "termination": str, "terminated_bot": str, "deals": int, "substitutions0": int,
            "substitutions1": int, "max_lag_ms": float, "started_at": str, "finished_at": str,
            "duration_s": float,
        },
        pk="id",
    )
    db.table("matches").create_index(["tournament", "status"])
    db.table("deals").create(
        {
            "match_id": str, "idx": int, "dealer": int, "trump": str, "deck": str, "actions": str,
            "winner": int, "game_points": int, "reason": str, "points0": int, "points1": int,
            "tricks0": int, "tricks1": int, "forfeit": int,
        },
        pk=("match_id", "idx"),
        foreign_keys=[("match_id", "matches", "id")],
    )
    db.table("terminations").create(
        {
            "id": int, "match_id": str, "kind": str, "seat": int, "bot": str, "detail": str, "line": str,
            "deal": int, "at_ms": float,
        },
        pk="id",
        foreign_keys=[("match_id", "matches", "id")],
    )
    db.table("terminations").create_index(["match_id"])
    db.table("seats").create(
        {
            "match_id": str, "seat": int, "bot": str, "think_ms": str, "think_median_ms": float,
            "think_max_ms": float, "decisions": int, "hello": str,
        },
        pk=("match_id", "seat"),
        foreign_keys=[("match_id", "matches", "id")],
    )
    db.table("transcripts").create(
        {"match_id": str, "seat": int, "bot": str, "lines": str, "stderr": str},
        pk=("match_id", "seat"),
        foreign_keys=[("match_id", "matches", "id")],
    )


def _m002_compact(db: sqlite_utils.Database) -> None:
    """Transcripts, stderr and think times compressed (docs/DATABASE.md, "Compressed columns"): a match
    shrinks from some 58 kB to a few. Every value converts back exactly; a transcript that would not (an
    odd row) is kept as its JSON text, compressed."""
    conn = db.conn
    if not conn.in_transaction:
        conn.execute("BEGIN")  # the tables' creation too: a run killed half way leaves the old schema whole
    conn.execute("CREATE TABLE dictionaries (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    conn.execute(
        "CREATE TABLE transcripts_new (match_id TEXT, seat INTEGER, bot TEXT, lines BLOB, stderr BLOB, "
        "dict INTEGER REFERENCES dictionaries(id), PRIMARY KEY (match_id, seat), "
        "FOREIGN KEY (match_id) REFERENCES matches(id))"
    )
    codec = _Codec(conn)
    rows = conn.execute(
        "SELECT t.match_id, t.seat, t.bot, t.lines, t.stderr FROM transcripts t "
        "LEFT JOIN matches m ON m.id = t.match_id ORDER BY m.ord, t.match_id, t.seat")
    pending: dict[str, list[tuple[int, str | None, bytes, str | None]]] = {}

    def flush(match_id: str) -> None:
        seats = pending.pop(match_id)
        conn.executemany("INSERT INTO transcripts_new VALUES (?, ?, ?, ?, ?, ?)",
                         codec.transcript_rows(match_id, seats))

    for match_id, seat, bot, lines, stderr in rows:
        if pending and match_id not in pending:
            flush(next(iter(pending)))
        pending.setdefault(match_id, []).append((seat, bot, _payload_of_json(lines), stderr))
    if pending:
        flush(next(iter(pending)))
    conn.execute("DROP TABLE transcripts")
    conn.execute("ALTER TABLE transcripts_new RENAME TO transcripts")
    conn.executemany("UPDATE seats SET think_ms = ? WHERE rowid = ?", [
        (_pack(text.encode()) if isinstance(text, str) else text, rowid)
        for rowid, text in conn.execute("SELECT rowid, think_ms FROM seats").fetchall()
    ])


def _m003_bot_kind(db: sqlite_utils.Database) -> None:
    """``bots.kind``: ``bot`` (a program) or ``human`` (a person's seat in `arena serve`)."""
    db.conn.execute("ALTER TABLE bots ADD COLUMN kind TEXT NOT NULL DEFAULT 'bot'")


def _m004_rebuilt_lines(db: sqlite_utils.Database) -> None:
    """Transcripts keep only what the record does not give back (arena.referee.script), a deal's deck and
    actions are written compactly, and the tables with a row per deal or seat are WITHOUT ROWID, which
    stores their key once instead of in a table and an index: a demo match goes from some 12 kB to 4."""
    conn = db.conn
    if not conn.in_transaction:
        conn.execute("BEGIN")
    for table in ("deals", "seats", "transcripts"):
        (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).fetchone()
        head, paren, rest = sql.partition("(")
        conn.execute(f'CREATE TABLE "{table}_new" {paren}{rest} WITHOUT ROWID')
        conn.execute(f'INSERT INTO "{table}_new" SELECT * FROM "{table}"')
        conn.execute(f'DROP TABLE "{table}"')
        conn.execute(f'ALTER TABLE "{table}_new" RENAME TO "{table}"')
    codec = _Codec(conn)
    rules_of: dict[str, RuleSet | None] = {}
    new_dict: int | None = None
    matches = conn.execute(
        "SELECT m.id, m.seat0, m.seat1, m.reason, t.rules FROM matches m JOIN tournaments t ON t.name = m.tournament "
        "WHERE m.status = 'done' ORDER BY m.ord").fetchall()
    for match_id, seat0, seat1, reason, rules_text in matches:
        if rules_text not in rules_of:
            rules_of[rules_text] = _rules_or_none(rules_text)
        rows = conn.execute("SELECT seat, bot, lines, stderr, dict FROM transcripts WHERE match_id = ? ORDER BY seat",
                            [match_id]).fetchall()
        if [r[0] for r in rows] != [0, 1]:
            continue
        entries = [codec.read(lines, None, dict_id)[0] for _, _, lines, _, dict_id in rows]
        if not all(isinstance(e, list) for e in entries):
            continue
        think = {seat: _think_ms(t) for seat, t in conn.execute(
            "SELECT seat, think_ms FROM seats WHERE match_id = ?", [match_id])}
        deals = [(dealer, deck or "", (actions or "").split()) for dealer, deck, actions in conn.execute(
            "SELECT dealer, deck, actions FROM deals WHERE match_id = ? ORDER BY idx", [match_id])]  # the old form
        payloads = [_encode_payload(v) for v in _rebuilt_payloads(
            rules_of[rules_text], match_id, (seat0, seat1), deals, (think.get(0, []), think.get(1, [])),
            reason or "target", entries)]
        if new_dict is None and sum(map(len, payloads)) >= DICTIONARY_MIN:
            # the old dictionary holds full lines: one from what is now stored compresses much better
            data = _dictionary(payloads)
            new_dict = conn.execute("INSERT INTO dictionaries (data) VALUES (?)", [data]).lastrowid
            codec.dicts[new_dict] = data  # type: ignore[index]  # lastrowid of an INSERT is an int
        conn.executemany("UPDATE transcripts SET lines = ?, dict = ? WHERE match_id = ? AND seat = ?",
                         [(_pack(payloads[seat], codec.dictionary(new_dict)), new_dict, match_id, seat)
                          for seat in (0, 1)])
    conn.execute("DELETE FROM dictionaries WHERE id NOT IN (SELECT dict FROM transcripts WHERE dict IS NOT NULL)")
    conn.executemany("UPDATE deals SET deck = ?, actions = ? WHERE match_id = ? AND idx = ?", [
        (_deck_column(deck or ""), _actions_column((actions or "").split()), match_id, idx)
        for match_id, idx, deck, actions in conn.execute("SELECT match_id, idx, deck, actions FROM deals").fetchall()])


def _m005_ladder(db: sqlite_utils.Database) -> None:
    """The ladder's own tables (`arena ladder`, docs/LADDER.md); its matches are rows of ``matches``."""
    for sql in (
        "CREATE TABLE ladder_versions (key TEXT PRIMARY KEY, program TEXT NOT NULL, author TEXT, command TEXT, "
        "argv TEXT, cwd TEXT, build TEXT, fingerprint TEXT, status TEXT NOT NULL, reason TEXT, added_at TEXT, "
        "decided_at TEXT, since_pair INTEGER, until_pair INTEGER)",
        "CREATE TABLE ladder_pairs (id INTEGER PRIMARY KEY, seq INTEGER UNIQUE, kind TEXT NOT NULL, "
        "first TEXT NOT NULL, second TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, "
        "score REAL, applied INTEGER NOT NULL DEFAULT 0, void_reason TEXT, chosen_at TEXT, finished_at TEXT)",
        "CREATE TABLE ladder_matches (match_id TEXT PRIMARY KEY REFERENCES matches(id), "
        "pair_id INTEGER NOT NULL REFERENCES ladder_pairs(id), host TEXT, void INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX ladder_matches_pair ON ladder_matches (pair_id)",
        "CREATE TABLE ladder_history (seq INTEGER, key TEXT, rating REAL, low REAL, high REAL, rank INTEGER, "
        "rank_low INTEGER, rank_high INTEGER, provisional INTEGER, pairs INTEGER, PRIMARY KEY (key, seq)) "
        "WITHOUT ROWID",
        "CREATE TABLE ladder_tokens (hash TEXT PRIMARY KEY, author TEXT NOT NULL, created_at TEXT)",
    ):
        db.conn.execute(sql)


def _m006_ladder_private(db: sqlite_utils.Database) -> None:
    """What only a version's author may read: ``detail``, the output behind a refusal (a build's, a check's,
    the bot's own lines), kept apart from the public ``reason``."""
    db.conn.execute("ALTER TABLE ladder_versions ADD COLUMN detail TEXT")


def _m007_seat_indexes(db: sqlite_utils.Database) -> None:
    """A bot's latest matches found from an index, not by reading every match (a version's page of a ladder
    with a semester of matches)."""
    db.conn.execute("CREATE INDEX IF NOT EXISTS matches_seat0 ON matches (seat0, finished_at)")
    db.conn.execute("CREATE INDEX IF NOT EXISTS matches_seat1 ON matches (seat1, finished_at)")


MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_compact", _m002_compact),
    ("003_bot_kind", _m003_bot_kind),
    ("004_rebuilt_lines", _m004_rebuilt_lines),
    ("005_ladder", _m005_ladder),
    ("006_ladder_private", _m006_ladder_private),
    ("007_seat_indexes", _m007_seat_indexes),
]
SCHEMA_VERSION = len(MIGRATIONS)


def _pending_migrations(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the database lacks a migration of this arena's (a database that is none lacks them all)."""
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    except sqlite3.OperationalError:
        return True
    _refuse_newer(done, path)
    return not {name for name, _ in MIGRATIONS} <= done


def _refuse_newer(done: set[str], path: Path) -> None:
    unknown = done - {name for name, _ in MIGRATIONS}
    if unknown:
        raise StoreError(
            f"{path} was written by a newer arena (migrations {', '.join(sorted(unknown))}); upgrade arena")
