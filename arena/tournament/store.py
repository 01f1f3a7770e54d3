"""The tournament database (SQLite through sqlite-utils). The schema is documented in docs/DATABASE.md.

One transaction per finished match: a match's rows (the match, its deals, terminations, seats and
transcripts) appear together or not at all, so a killed run never leaves half a result. WAL mode lets the
report be rendered while the runner writes. Schema changes are migrations, recorded in ``_migrations``.

Also here: what keeps a user's own commands from destroying anything. `RunLock` lets one `arena run` write a
database at a time, `fresh_files` checks what `--fresh` is about to delete, and a full disk becomes
`DiskFull` (one line, the committed matches kept) instead of a traceback.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sqlite3
import statistics
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import StoreError
from arena.game.hand import parse_seat_action
from arena.game.variants import RuleSet
from arena.referee import script as referee_script
from arena.referee.record import MatchRecord, MatchSpec
from arena.referee.script import SeatScript
from arena.stats.standings import DealFacts, MatchFacts, TerminationFacts
from arena.tournament.build import BotProvenance


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


SQLITE_FULL = 13  # the primary result code; extended codes keep it in their low byte


class OtherResults(StoreError):
    """The database holds another tournament, or this one as another configuration or other programs played
    it. ``path`` is the database."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


class DiskFull(StoreError):
    """A write failed for want of space. Every match committed before it is kept, so a resume continues."""

    def __init__(self, where: Path, error: BaseException) -> None:
        detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        super().__init__(
            f"the disk is full: cannot write {where} ({detail}). Every finished match is kept in the database; "
            "free some space, then run the same command again to resume."
        )
        self.where = where


def is_disk_full(error: BaseException) -> bool:
    """SQLite's SQLITE_FULL, or an OSError for no space (ENOSPC) or an exhausted quota (EDQUOT)."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return (code is not None and code & 0xFF == SQLITE_FULL) or "database or disk is full" in str(error)
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


# ------------------------------------------------------------------------------ compressed columns
# Transcripts, stderr and think times are zlib streams (docs/DATABASE.md, "Compressed columns"). A transcript
# is compressed with a preset dictionary: the first long enough match's own transcripts (table
# `dictionaries`), which holds the rules line, the message shapes and the bots' habits, so each later match
# stores little more than its cards, actions and timings.
ZLIB_LEVEL = 6  # 9 saves under 1% here and costs twice the time
DICTIONARY_MIN = 1024  # bytes of transcript a match needs before it becomes the dictionary
DICTIONARY_MAX = 32768  # zlib's window: a longer dictionary is cut to its end


def _pack(data: bytes, zdict: bytes | None = None) -> bytes:
    if not zdict:
        return zlib.compress(data, ZLIB_LEVEL)
    co = zlib.compressobj(ZLIB_LEVEL, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, zdict)
    return co.compress(data) + co.flush()


def _unpack(blob: bytes | str | None, zdict: bytes | None = None) -> str:
    """A compressed column's text ("" for NULL); text a database holds uncompressed is returned as it is."""
    if blob is None:
        return ""
    if isinstance(blob, str):
        return blob
    d = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
    return (d.decompress(blob) + d.flush()).decode("utf-8", "surrogatepass")


def _encode_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # any str, lone surrogates too, comes back as it was


# A referee line that `arena.referee.script` rebuilds is stored as this mark, followed by the line's first
# word where it says where a transcript is ("=turn", "=deal"; an event's is left out: it would take a fifth
# of what a match stores); the payload's "script" holds what the rebuild needs beyond the record
# (docs/DATABASE.md).
REBUILT = "="
REPLY = "~"  # a bot's reply that is its recorded action's protocol text ("play Th"), also rebuilt
_NAMED = frozenset({"match", "deal", "turn", "deal-end", "match-end"})


def _transcript_payload(entries: Sequence[Any], script: SeatScript | None = None,
                        script_lines: Sequence[str] = (), replies: Sequence[str] = ()) -> bytes:
    """A transcript as stored, before compression (see `_payload_value`)."""
    return _encode_payload(_payload_value(entries, script, script_lines, replies))


def _encode_payload(value: Any) -> bytes:
    if isinstance(value, dict):
        return _encode_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return _encode_text(json.dumps(value, ensure_ascii=False))


def _payload_value(entries: Sequence[Any], script: SeatScript | None = None,
                   script_lines: Sequence[str] | None = (), replies: Sequence[str] = ()) -> Any:
    """A transcript as stored, before JSON: ``{"us": [...], "lines": [...]}``, where ``us`` holds each
    entry's time as the microseconds since the previous entry and ``lines`` each entry's direction
    followed by its text. Given the seat's ``script`` and the referee lines and replies it gives, each
    referee line that is the script's next one is stored as ``REBUILT`` (and its first word, see ``_NAMED``)
    and each reply that is the next one as ``REPLY``, and the payload has ``"script"``. Entries it cannot
    hold exactly are stored as their plain JSON list (and returned as they are).

    ``script_lines=None`` stands for the lines of a match that went by the book (`_by_the_book`): every
    referee line from the match line to ``match-end`` is then the script's next one, and is not compared."""
    us: list[int] = []
    lines: list[str] = []
    prev = 0
    trusted = script_lines is None
    expected, expected_replies = iter(script_lines or ()), iter(replies)
    want, want_reply = next(expected, None), next(expected_replies, None)
    in_match = False  # (trusted) between the match line and match-end
    try:
        for ms, direction, text in entries:
            v = round(ms * 1000)
            if v / 1000 != ms or type(direction) is not str or len(direction) != 1 or type(text) is not str:
                raise ValueError
            us.append(v - prev)
            prev = v
            if trusted and direction == ">":
                word = text.partition(" ")[0]
                in_match = in_match or word == "match"
                if in_match:
                    lines.append(REBUILT + word if word in _NAMED else REBUILT)
                    in_match = word != "match-end"
                else:
                    lines.append(direction + text)
            elif direction == ">" and text == want:
                word = text.partition(" ")[0]
                lines.append(REBUILT + word if word in _NAMED else REBUILT)
                want = next(expected, None)
            elif direction == "<" and text == want_reply:
                lines.append(REPLY)
                want_reply = next(expected_replies, None)
            else:
                lines.append(direction + text)
    except (TypeError, ValueError):
        return entries
    payload: dict[str, Any] = {"us": us, "lines": lines}
    if script is not None and (trusted or script_lines or replies):
        payload["script"] = script.to_json()
    return payload


# The deals table holds a deal compactly (docs/DATABASE.md, `deals`): the deck as its cards' names run
# together (`9dQsAs...`), and a play as its seat and card (`1:Ts`); every other action as `<seat>:<token>`
# (`0:close`, `1:marriage:Qh`). `StoredDeal` gives them back in the record's own form (`9d Qs As`,
# `1:play:Ts`), which a database written before migration 004 holds.
def _deck_column(deck: str) -> str:
    return deck.replace(" ", "")


def _deck_text(column: str) -> str:
    return column if " " in column else " ".join(column[i:i + 2] for i in range(0, len(column), 2))


def _actions_column(actions: Iterable[str]) -> str:
    return " ".join(a.replace(":play:", ":", 1) for a in actions)


def _action_texts(column: str) -> tuple[str, ...]:
    """The actions of a deals row, each ``<seat>:<token>``."""
    return tuple(f"{a[:2]}play:{a[2:]}" if len(a) == 4 and a[1] == ":" else a for a in column.split())


def _rules_or_none(text: str) -> RuleSet | None:
    try:
        return RuleSet.from_dict(json.loads(text))
    except Exception:  # noqa: BLE001 - rules this arena cannot read: nothing is rebuilt
        return None


def _rebuilt_payloads(rules: RuleSet | None, match_id: str, bots: Sequence[str],
                      deals: Sequence[tuple[int | None, str, Sequence[str]]], think_ms: Sequence[Sequence[float]],
                      reason: str, entries: Sequence[Sequence[Any]], by_the_book: bool = False) -> list[Any]:
    """Both seats' payload values, each referee line that the script rebuilds left out (see `_payload_value`).

    ``by_the_book``: the referee says the match went by the book (`_by_the_book`), so its lines from the
    match line to ``match-end`` are the script's, and the match is not replayed to compare them: the replay
    was most of what storing a match cost. tests/test_script.py holds the two ways equal."""
    scripts = [_seat_script(e) for e in entries]
    if rules is None or not any(scripts):
        return [_payload_value(entries[seat]) for seat in (0, 1)]
    if by_the_book:
        replies = _replies_of(deals)
        return [_payload_value(entries[seat], scripts[seat], None, replies[seat]) for seat in (0, 1)]
    rebuilt = referee_script.match_script(rules, match_id, bots, deals, think_ms, scripts, reason)
    return [_payload_value(entries[seat], scripts[seat], rebuilt.referee[seat], rebuilt.replies[seat])
            for seat in (0, 1)]


def _replies_of(deals: Sequence[tuple[int | None, str, Sequence[str]]]) -> tuple[list[str], list[str]]:
    """Each seat's rebuilt replies without a replay: the k-th is the seat's k-th action in its protocol text
    ("1:play:Th", as arena writes an action: the seat, then the token, whose text is "play Th")."""
    replies: tuple[list[str], list[str]] = ([], [])
    for _, _, actions in deals:
        for text in actions:
            if text[:2] in ("0:", "1:"):
                replies[text[0] == "1"].append(text[2:].replace(":", " "))
    return replies


def _by_the_book(rec: MatchRecord) -> bool:
    """Whether every referee line of the match, from the match line to ``match-end``, is the one
    `arena.referee.script` rebuilds: so in a match that reached its target with no termination (no error
    line, no restart) and no substituted move (every recorded action was the bot's reply)."""
    return not rec.terminations and not any(rec.substitutions) and rec.winner is not None \
        and str(rec.reason) == "target"


def _seat_script(entries: Sequence[Any]) -> SeatScript | None:
    """What the seat's rebuilt lines depend on, from the first ``turn`` line it was sent."""
    for entry in entries:
        if entry[1] == ">" and entry[2].startswith("turn "):
            return SeatScript.of_turn_line(entry[2])
    return None


def _payload_of_json(text: str | None) -> bytes:
    """Migration 002: a stored JSON transcript as its payload; text that is not a JSON list is kept as is."""
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return _encode_text(text or "")
    return _transcript_payload(value) if isinstance(value, list) else _encode_text(text or "")


def _transcript_entries(text: str, events: bool = True) -> tuple[list[Any] | str, SeatScript | None, int]:
    """The transcript a payload holds: ``[ms, direction, text]`` entries (a rebuilt line still as its mark;
    without ``events``, the rebuilt event lines left out), or the stored text if it is not one; the seat's
    script; and how many lines the transcript has."""
    return _value_entries(_json(text, []), text, events)


def _value_entries(value: Any, text: str = "", events: bool = True) -> tuple[list[Any] | str, SeatScript | None, int]:
    """`_transcript_entries` of a payload's JSON value (``text``: the payload, kept when it is not one)."""
    if isinstance(value, dict) and isinstance(value.get("us"), list) and isinstance(value.get("lines"), list):
        times = accumulate(value["us"])
        pairs = zip(times, value["lines"], strict=False)
        entries = [[t / 1000, line[:1], line[1:]] for t, line in pairs if events or line != REBUILT]
        return entries, SeatScript.from_json(value.get("script")), min(len(value["us"]), len(value["lines"]))
    if isinstance(value, list):
        return value, None, len(value)
    return (value if isinstance(value, str) else text), None, 0


def _think_of(entries: list[Any] | str) -> list[float] | None:
    """A seat's think times as its transcript gives them, when every reply is a rebuilt one: the k-th is
    the time from the last ``turn`` line to the k-th reply (the referee measures it so); None otherwise."""
    if isinstance(entries, str):
        return None
    out: list[float] = []
    turn = None
    for ms, direction, text in entries:
        if direction == REPLY:
            if turn is None:
                return None
            out.append(round(ms - turn, 3))
            turn = None
        elif direction == "<" and not text.startswith(("info", "bot ")):
            return None  # a line that may have been a reply, kept as it was: no telling
        elif (direction == REBUILT and text == "turn") or (direction == ">" and text.startswith("turn ")):
            turn = ms
    return out


def _fill_rebuilt(entries: list[Any] | str, referee: Sequence[str] | None, replies: Sequence[str]) -> list[Any] | str:
    """The entries with each rebuilt line in full: the seat's ``referee`` lines and ``replies`` in order.
    With ``referee=None`` a rebuilt referee line is ``[ms, ">", word]``: its first word if that is
    ``match``, ``deal``, ``turn``, ``deal-end`` or ``match-end``, else ``""``."""
    if isinstance(entries, str):
        return entries
    lines, answers = iter(referee or ()), iter(replies)
    for entry in entries:
        if entry[1] == REBUILT:
            entry[1] = ">"
            if referee is not None:
                entry[2] = next(lines, "")
        elif entry[1] == REPLY:
            entry[1] = "<"
            entry[2] = next(answers, "")
    return entries


def _dictionary(payloads: Sequence[bytes]) -> bytes:
    """A preset dictionary from one match's payloads: of each seat the start of its times and the start of
    its lines (the rules line, the first deal), which compresses the demo's transcripts some 12% better than
    the payloads' last 32 KiB."""
    share = DICTIONARY_MAX // max(1, len(payloads))
    parts = []
    for p in payloads:
        cut = p.find(b'"lines":')
        head, lines = (p[:cut], p[cut:]) if cut >= 0 else (b"", p)
        parts.append(head[: share // 8] + lines[: share - min(len(head), share // 8)])
    return b"".join(parts)[-DICTIONARY_MAX:]


class _Codec:
    """Compression of a database's transcripts, with its dictionaries (cached: a stored one never changes)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.dicts: dict[int, bytes] = {}

    def forget(self) -> None:
        """After a rolled-back write: a dictionary it inserted is gone (and its id may be reused)."""
        self.dicts.clear()

    def dictionary(self, dict_id: int | None) -> bytes | None:
        if dict_id is None:
            return None
        if dict_id not in self.dicts:
            row = self.conn.execute("SELECT data FROM dictionaries WHERE id = ?", [dict_id]).fetchone()
            if row is None:
                raise StoreError(f"transcript dictionary {dict_id} is missing from the database")
            self.dicts[dict_id] = bytes(row[0])
        return self.dicts[dict_id]

    def transcript_rows(
        self, match_id: str, seats: Sequence[tuple[int, str | None, bytes, str | None]]
    ) -> list[tuple[Any, ...]]:
        """Rows of the transcripts table for one match's seats ``(seat, bot, payload, stderr)``; the first
        match with enough transcript becomes the database's dictionary."""
        row = self.conn.execute("SELECT max(id) FROM dictionaries").fetchone()
        dict_id: int | None = row[0] if row else None
        if dict_id is None and sum(len(p) for _, _, p, _ in seats) >= DICTIONARY_MIN:
            data = _dictionary([p for _, _, p, _ in seats])
            dict_id = self.conn.execute("INSERT INTO dictionaries (data) VALUES (?)", [data]).lastrowid
            assert dict_id is not None
            self.dicts[dict_id] = data
        zdict = self.dictionary(dict_id)
        return [(match_id, seat, bot, _pack(payload, zdict), _pack(_encode_text(stderr)) if stderr else None,
                 dict_id) for seat, bot, payload, stderr in seats]

    def read(self, lines: bytes | str | None, stderr: bytes | str | None, dict_id: int | None,
             events: bool = True) -> tuple[list[Any] | str, SeatScript | None, int, str]:
        """A stored transcript row's entries (rebuilt lines not filled in; without ``events``, the rebuilt
        events left out), its script, its number of lines, and its stderr."""
        text = _unpack(lines, self.dictionary(dict_id) if isinstance(lines, bytes) else None)
        return (*_transcript_entries(text, events), _unpack(stderr))


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


MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_compact", _m002_compact),
    ("003_bot_kind", _m003_bot_kind),
    ("004_rebuilt_lines", _m004_rebuilt_lines),
]
SCHEMA_VERSION = len(MIGRATIONS)


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """``path`` opened read-only. SQLite reads a WAL database through its -shm file, which it creates next
    to it; where it cannot (a read-only folder) and there is no -wal file, whose pages it would miss, the
    file is opened as immutable."""
    uri = path.absolute().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size:
            raise
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)


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


class Store:
    def __init__(self, path: Path, read_only: bool = False) -> None:
        """The database at ``path``, created and migrated as needed. ``read_only`` opens an existing file
        without writing it or its folder; if its schema is older than this arena's, the migrations run on a
        private copy in the temporary directory (``file``), which `close` removes."""
        self.path = Path(path)
        self.file = self.path  # the file this store reads and writes: the database, or that private copy
        self._rules: dict[str, RuleSet | None] = {}  # by the tournament's rules text
        self._last_deals: tuple[tuple[str, int] | None, list[StoredDeal]] = (None, [])
        try:
            if read_only:
                conn = _read_only_connection(self.path)
                try:
                    pending = _pending_migrations(conn, self.path)
                except StoreError:
                    conn.close()
                    raise
                if pending:
                    conn = self._private_copy(conn)
            else:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    if is_disk_full(e):
                        raise DiskFull(self.path.parent, e) from None
                    raise StoreError(f"cannot create the directory {self.path.parent}: {e.strerror or e}") from None
                conn = sqlite3.connect(str(self.path), timeout=30)
            self.db = sqlite_utils.Database(conn)
            self.codec = _Codec(conn)
            if not read_only or self.file != self.path:
                self.db.enable_wal()
                # WAL with synchronous=NORMAL: a crash of arena (or SIGKILL) never loses a committed match;
                # only a power cut may lose the last ones, which a resume then plays again.
                conn.execute("PRAGMA synchronous=NORMAL")
                self._migrate()
        except sqlite3.DatabaseError as e:
            self._remove_copy()
            if is_disk_full(e):
                raise DiskFull(self.path, e) from None
            raise StoreError(f"{self.path}: not a usable arena database ({e})") from None

    def _private_copy(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        """A copy of the read-only database ``conn`` in a new temporary file, open for the migrations."""
        fd, name = tempfile.mkstemp(prefix="arena-", suffix=".db")
        os.close(fd)
        self.file = Path(name)
        copy = sqlite3.connect(name, timeout=30)
        try:
            conn.backup(copy)
        finally:
            conn.close()
        return copy

    def _remove_copy(self) -> None:
        if self.file != self.path:
            for p in (self.file, Path(f"{self.file}-wal"), Path(f"{self.file}-shm")):
                p.unlink(missing_ok=True)

    @classmethod
    def open_existing(cls, path: Path, read_only: bool | None = None) -> Store:
        """An existing database that holds a tournament. ``read_only`` (by default: when the file or its
        folder cannot be written, a read-only mount say) opens it as `Store` says."""
        path = Path(path)
        if not path.is_file():
            raise StoreError(f"{path}: no such database")
        if read_only is None:
            read_only = not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
        store = cls(path, read_only=read_only)
        if not store.db.table("tournaments").exists() or not store.db.table("tournaments").count:
            store.close()
            raise StoreError(f"{path}: holds no tournament")
        return store

    def close(self) -> None:
        self.db.conn.close()
        self._remove_copy()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction (rolled back on any error); a full disk becomes `DiskFull`."""
        try:
            with self.db.conn:
                yield
        except (sqlite3.Error, OSError) as e:
            if is_disk_full(e):
                raise DiskFull(self.path, e) from None
            raise

    def _migrate(self) -> None:
        db = self.db
        if not db.table("_migrations").exists():
            db.table("_migrations").create({"name": str, "applied_at": str}, pk="name")
        done = {row["name"] for row in db.table("_migrations").rows}
        _refuse_newer(done, self.path)
        converted = False
        for name, migrate in MIGRATIONS:
            if name not in done:
                with self._transaction():
                    migrate(db)
                    db.table("_migrations").insert({"name": name, "applied_at": _now()})
                converted = converted or (bool(done) and name in ("002_compact", "004_rebuilt_lines"))
        if converted:
            db.conn.execute("VACUUM")  # give the space an older schema took back to the file system

    # ----------------------------------------------------------------- tournaments
    def _tournament_row(self, name: str | None = None) -> dict[str, Any]:
        table = self.db.table("tournaments")
        rows = list(table.rows_where("name = ?", [name]) if name else table.rows)
        if not rows:
            raise StoreError(f"{self.path}: no tournament {name!r}" if name else f"{self.path}: no tournament")
        return rows[0]

    def begin(
        self,
        name: str,
        config_path: str,
        config_text: str,
        config_hash: str,
        rules: dict[str, Any],
        seed: int,
        fmt: str,
        schedule: Iterable[MatchSpec],
        bots: Iterable[BotProvenance],
        force: bool = False,
    ) -> None:
        """Record the tournament and its schedule, or check that the database holds this same tournament.

        Matches left 'running' by an interrupted run go back to 'pending': they are replayed from their seed.
        """
        db = self.db
        existing = list(db.table("tournaments").rows_where("name = ?", [name]))
        others = [r["name"] for r in db.table("tournaments").rows if r["name"] != name]
        if others:
            raise OtherResults(self.path,
                f"{self.path} holds tournament {others[0]!r}, not {name!r}; use another output database "
                "(output.database), or remove that file yourself if its results are not needed"
            )
        schedule = list(schedule)
        bots = list(bots)
        with self._transaction():
            if existing and existing[0]["config_hash"] != config_hash and not force:
                raise OtherResults(self.path,
                    f"{self.path} holds tournament {name!r} played with a different configuration "
                    f"({config_path} changed since). Run again with --fresh to start over (the old results "
                    "are deleted), or --force to continue with the new configuration on purpose."
                )
            if existing and not force and self.count(name, "done"):
                # A program that changed between an interrupted run and its resume would mix two bots under
                # one name (within a run the referee catches it: `tampered`).
                stored = {r["name"]: r["hash"] for r in db.table("bots").rows_where("tournament = ?", [name])}
                changed = [b.name for b in bots if stored.get(b.name) not in (None, b.hash)]
                if changed:
                    raise OtherResults(self.path,
                        f"{self.path}: the program of {', '.join(changed)} changed since tournament {name!r} "
                        "began, so its results so far were played by another program. Restore it, run again "
                        "with --fresh to start over, or --force to go on with the new program on purpose."
                    )
            db.table("tournaments").upsert(
                {
                    "name": name, "config_path": config_path, "config_text": config_text,
                    "config_hash": config_hash, "variant": rules.get("name", ""), "rules": json.dumps(rules),
                    "seed": seed, "format": fmt, "total_matches": len(schedule),
                    "created_at": existing[0]["created_at"] if existing else _now(), "updated_at": _now(),
                    "status": "running",
                },
                pk="name",
            )
            for bot in bots:
                db.table("bots").upsert({
                    "tournament": name, "name": bot.name, "command": bot.command, "argv": json.dumps(list(bot.argv)),
                    "hash": bot.hash, "build_output": bot.build_output or "",
                }, pk=("tournament", "name"))
            db.table("matches").insert_all(
                ({"tournament": name, "status": "pending", **_spec_row(spec)} for spec in schedule), pk="id",
                ignore=True,
            )
            db.execute("UPDATE matches SET status = 'pending' WHERE tournament = ? AND status = 'running'", [name])

    def stored_seed(self, name: str) -> int | None:
        """The seed tournament ``name`` was scheduled with, None when the database does not hold it yet."""
        rows = list(self.db.table("tournaments").rows_where("name = ?", [name], select="seed"))
        return rows[0]["seed"] if rows else None

    def finish(self, name: str) -> None:
        with self._transaction():
            pending = self.count(name, "pending") + self.count(name, "running")
            self.db.table("tournaments").update(name, {"status": "done" if not pending else "running",
                                                 "updated_at": _now()})
        if not pending:
            # Rows keyed by match id arrive in no order, which leaves their pages a third empty; a finished
            # tournament is written once more, densely (a demo database shrinks by a tenth).
            try:
                self.db.conn.execute("VACUUM")
            except sqlite3.OperationalError:
                pass  # a reader holds the file (a report being rendered): it stays as it is, whole

    # ----------------------------------------------------------------- matches
    def pending(self, name: str) -> list[MatchSpec]:
        """The matches still to play, in schedule order."""
        return [_row_spec(row) for row in self.db.table("matches").rows_where(
            "tournament = ? AND status != 'done'", [name], order_by="ord", select=_SPEC_COLUMNS)]

    def count(self, name: str, status: str | None = None) -> int:
        if status is None:
            return self.db.table("matches").count_where("tournament = ?", [name])
        return self.db.table("matches").count_where("tournament = ? AND status = ?", [name, status])

    def save(self, rec: MatchRecord) -> None:
        """Store a finished match, all of it in one transaction (one commit; each table's rows in one
        ``executemany``)."""
        mid = rec.match_id
        self._last_deals = (None, [])
        term = next((t for t in rec.terminations if t.kind == rec.reason), None)
        context = self._match_context(mid)
        rules = None if context is None or context[0].to_dict() != rec.rules or context[1] != tuple(rec.bots) \
            else context[0]  # a later read rebuilds from what the database has: no rebuilt lines if it differs
        values = _rebuilt_payloads(rules, mid, rec.bots, [(d["dealer"], d["deck"], d["actions"]) for d in rec.deals],
                                   rec.think_ms, str(rec.reason), rec.transcripts,
                                   _by_the_book(rec))  # outside the write lock
        payloads = [_encode_payload(v) for v in values]
        # a seat's think times are not stored when its transcript gives them back (`_think_of`)
        derived = [_think_of(_value_entries(v)[0]) for v in values]
        run, many = self.db.conn.execute, self.db.conn.executemany
        try:
            with self._transaction():
                for table in ("deals", "terminations", "seats", "transcripts"):
                    run(f"DELETE FROM {table} WHERE match_id = ?", [mid])
                many(
                    "INSERT INTO deals (match_id, idx, dealer, trump, deck, actions, winner, game_points, reason, "
                    "points0, points1, tricks0, tricks1, forfeit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (mid, i, d["dealer"], d["trump"], _deck_column(d["deck"]), _actions_column(d["actions"]),
                         d["winner"], d["game_points"], d["reason"], *(d["points"] or (None, None)),
                         *(d["tricks"] or (None, None)), int(bool(d.get("forfeit"))))
                        for i, d in enumerate(rec.deals)
                    ],
                )
                many(
                    "INSERT INTO terminations (match_id, kind, seat, bot, detail, line, deal, at_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(mid, str(t.kind), t.seat, t.bot, t.detail, t.line, t.deal, t.at_ms) for t in rec.terminations],
                )
                many(
                    "INSERT INTO seats (match_id, seat, bot, think_ms, think_median_ms, think_max_ms, decisions, "
                    "hello) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (mid, seat, rec.bots[seat],
                         None if derived[seat] == think else _pack(json.dumps(think).encode()),
                         statistics.median(think) if think else None, max(think) if think else None, len(think),
                         json.dumps(rec.bot_info[seat]))
                        for seat, think in enumerate(rec.think_ms)
                    ],
                )
                many(
                    "INSERT INTO transcripts (match_id, seat, bot, lines, stderr, dict) VALUES (?, ?, ?, ?, ?, ?)",
                    self.codec.transcript_rows(
                        mid, [(seat, rec.bots[seat], payloads[seat], rec.stderr[seat]) for seat in (0, 1)]),
                )
                updated = run(
                    "UPDATE matches SET status = 'done', winner = ?, winner_seat = ?, score0 = ?, score1 = ?, "
                    "reason = ?, termination = ?, terminated_bot = ?, deals = ?, substitutions0 = ?, "
                    "substitutions1 = ?, max_lag_ms = ?, started_at = ?, finished_at = ?, duration_s = ? "
                    "WHERE id = ?",
                    [rec.winner_name, rec.winner, rec.score[0], rec.score[1], str(rec.reason),
                     str(term.kind) if term else None, term.bot if term else None, len(rec.deals),
                     rec.substitutions[0], rec.substitutions[1], rec.max_lag_ms, rec.started_at, _now(),
                     rec.duration_s, mid],
                )
                if updated.rowcount != 1:
                    raise StoreError(f"{self.path}: no scheduled match {mid!r} to store")
        except BaseException:
            self.codec.forget()
            raise

    def _match_context(self, match_id: str) -> tuple[RuleSet, tuple[str, str], str | None] | None:
        """The rules, bots by seat and reason a match's rebuilt lines are made from, as the database has them."""
        row = self.db.conn.execute(
            "SELECT t.rules, m.seat0, m.seat1, m.reason FROM matches m JOIN tournaments t ON t.name = m.tournament "
            "WHERE m.id = ?", [match_id]).fetchone()
        if row is None:
            return None
        text, seat0, seat1, reason = row
        if text not in self._rules:
            self._rules[text] = _rules_or_none(text)
        rules = self._rules[text]
        return None if rules is None else (rules, (seat0, seat1), reason)

    # ----------------------------------------------------------------- arena serve: games added as they start
    def open_games(self, name: str, rules: dict[str, Any], config_path: str, config_text: str) -> None:
        """Make this database the record of `arena serve`'s games under tournament ``name`` (format
        ``serve``): created on first use; games a stopped server left unfinished are dropped (no deal of
        theirs was stored). StoreError if it holds another tournament or other rules."""
        db = self.db
        rows = list(db.table("tournaments").rows)
        if rows and (rows[0]["name"] != name or json.loads(rows[0]["rules"] or "{}") != rules):
            what = "games played with other rules" if rows[0]["name"] == name else f"tournament {rows[0]['name']!r}"
            raise StoreError(f"{self.path} holds {what}, not the games of {name!r} with these rules; use another --db")
        with self._transaction():
            db.table("tournaments").upsert({
                "name": name, "config_path": config_path, "config_text": config_text, "config_hash": "",
                "variant": rules.get("name", ""), "rules": json.dumps(rules), "seed": 0, "format": "serve",
                "total_matches": 0, "created_at": rows[0]["created_at"] if rows else _now(), "updated_at": _now(),
                "status": "running"}, pk="name")
            db.execute("DELETE FROM matches WHERE tournament = ? AND status != 'done'", [name])
            db.execute("UPDATE tournaments SET total_matches = (SELECT count(*) FROM matches WHERE tournament = ?) "
                       "WHERE name = ?", [name, name])

    def add_game(self, name: str, spec: MatchSpec, bots: Iterable[tuple[BotProvenance, str]]) -> None:
        """A game that starts now: its bots (each with its kind, ``bot`` or ``human``) and its match row,
        'running' until `save` stores it."""
        with self._transaction():
            for bot, kind in bots:
                self.db.table("bots").upsert({
                    "tournament": name, "name": bot.name, "command": bot.command, "argv": json.dumps(list(bot.argv)),
                    "hash": bot.hash, "build_output": bot.build_output or "", "kind": kind,
                }, pk=("tournament", "name"))
            self.db.table("matches").insert({"tournament": name, "status": "running", "started_at": _now(),
                                             **_spec_row(spec)}, pk="id")
            self.db.execute("UPDATE tournaments SET total_matches = total_matches + 1, updated_at = ? WHERE name = ?",
                            [_now(), name])

    def next_order(self, name: str) -> int:
        """The schedule position of a game added now."""
        row = self.db.execute("SELECT max(ord) FROM matches WHERE tournament = ?", [name]).fetchone()
        return 0 if row[0] is None else row[0] + 1

    def outcomes(self, name: str) -> list[tuple[str | None, tuple[str, str]]]:
        """Each finished match's winner (None for none) and its two bots by seat, in schedule order."""
        return [(row["winner"], (row["seat0"], row["seat1"])) for row in self.db.table("matches").rows_where(
            "tournament = ? AND status = 'done'", [name], order_by="ord", select="winner, seat0, seat1")]

    # ----------------------------------------------------------------- reads
    # Typed reads for the report and the CLI: frozen values (the Stored* types below) or the standings'
    # facts, never rows keyed by column name, so nothing outside this module knows the schema. Plain
    # SELECTs: a report can be rendered while `arena run` writes.
    def tournament_info(self, name: str | None = None) -> StoredTournament:
        """The tournament (the only one, unless ``name`` is given)."""
        return _stored_tournament(self._tournament_row(name))

    def bots(self, tournament: str) -> list[StoredBot]:
        """The tournament's bots, in config order."""
        return [_stored_bot(r) for r in self.db.query(
            "SELECT * FROM bots WHERE tournament = ? ORDER BY rowid", [tournament])]

    def matches(self, tournament: str) -> list[StoredMatch]:
        """Every scheduled match, in schedule order, finished or not."""
        return [_stored_match(r) for r in self.db.query(
            "SELECT * FROM matches WHERE tournament = ? ORDER BY ord", [tournament])]

    def match_facts(self, tournament: str, think_times: bool = True) -> list[MatchFacts]:
        """What the standings count of every finished match, in schedule order. Built by the same function
        as `record_facts` builds them from a MatchRecord, so the report and `arena match` cannot disagree.

        ``think_times=False`` leaves every ``think_ms`` empty: reading every decision's time is most of the
        cost, and the index (re-rendered every few seconds while a tournament runs) shows none."""
        # Plain tuples, not sqlite-utils' dicts: the live index reads this every few seconds.
        done = "FROM matches m WHERE m.tournament = ? AND m.status = 'done'"
        run = self.db.conn.execute
        deals: dict[str, list[DealFacts]] = {}
        for match_id, winner, game_points, actions in run(
                "SELECT d.match_id, d.winner, d.game_points, d.actions FROM deals d "
                f"WHERE d.match_id IN (SELECT m.id {done}) ORDER BY d.match_id, d.idx", [tournament]):
            deals.setdefault(match_id, []).append(_deal_facts(winner, game_points, actions or ""))
        terms: dict[str, list[TerminationFacts]] = {}
        for match_id, bot, kind in run("SELECT t.match_id, t.bot, t.kind FROM terminations t "
                                       f"WHERE t.match_id IN (SELECT m.id {done}) ORDER BY t.id", [tournament]):
            terms.setdefault(match_id, []).append(TerminationFacts(bot, kind))
        think: dict[str, list[list[float]]] = {}
        if think_times:
            for match_id, seat, think_ms, lines, dict_id in run(
                    "SELECT s.match_id, s.seat, s.think_ms, CASE WHEN s.think_ms IS NULL THEN t.lines END, t.dict "
                    "FROM seats s LEFT JOIN transcripts t ON t.match_id = s.match_id AND t.seat = s.seat "
                    f"WHERE s.match_id IN (SELECT m.id {done})", [tournament]):
                if seat in (0, 1):
                    think.setdefault(match_id, [[], []])[seat] = (
                        _think_ms(think_ms) if think_ms is not None or lines is None
                        else _think_of(self.codec.read(lines, None, dict_id)[0]) or [])
        matches = run(f"SELECT m.id, m.seat0, m.seat1, m.winner_seat, m.score0, m.score1 {done} ORDER BY m.ord",
                      [tournament])
        return [
            _match_facts(match_id, (seat0, seat1), winner, (score0, score1), deals.get(match_id, ()),
                         terms.get(match_id, ()), think.get(match_id, ((), ())))
            for match_id, seat0, seat1, winner, score0, score1 in matches
        ]

    def deals(self, match_id: str) -> list[StoredDeal]:
        """A match's deals, in order. The last match's are kept: a reader of a match (the report, `seats`)
        asks for them more than once. They are kept as of the database's ``data_version``, which changes when
        another connection (another process, say) commits, so a match saved meanwhile is read anew."""
        key = (match_id, self.db.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._last_deals[0] != key:
            self._last_deals = (key, [StoredDeal.from_row(r) for r in self.db.query(
                "SELECT * FROM deals WHERE match_id = ? ORDER BY idx", [match_id])])
        return list(self._last_deals[1])

    def match_terminations(self, match_id: str) -> list[StoredTermination]:
        """A match's terminations, in the order they happened."""
        return [_stored_termination(r) for r in self.db.query(
            "SELECT * FROM terminations WHERE match_id = ? ORDER BY id", [match_id])]

    def terminations(self, tournament: str) -> list[StoredTermination]:
        """Every termination in the tournament's finished matches, in schedule order."""
        return [_stored_termination(r) for r in self.db.query(
            "SELECT t.* FROM terminations t JOIN matches m ON m.id = t.match_id "
            "WHERE m.tournament = ? AND m.status = 'done' ORDER BY m.ord, t.id", [tournament])]

    def seats(self, match_id: str, referee_lines: bool = True) -> list[StoredSeat]:
        """A match's seats (with their transcripts), by seat; a seat with neither row is left out.

        The referee lines the database does not keep are rebuilt from the match's record, which replays the
        match; with ``referee_lines=False`` they are not: the rebuilt event lines are left out, and each of
        the other rebuilt referee lines is only its first word (``[ms, ">", "turn"]``; ``match``, ``deal``,
        ``turn``, ``deal-end``, ``match-end``). That is all some readers need (the bots' own lines, the times,
        where the turns and deals are), at a fraction of the cost."""
        seats = {r["seat"]: r for r in self.db.query("SELECT * FROM seats WHERE match_id = ?", [match_id])}
        transcripts = {seat: (bot, *self.codec.read(lines, stderr, dict_id, events=referee_lines))
                       for seat, bot, lines, stderr, dict_id in self.db.conn.execute(
                           "SELECT seat, bot, lines, stderr, dict FROM transcripts WHERE match_id = ?", [match_id])}
        think = {s: _think_ms(r.get("think_ms")) if r.get("think_ms") is not None or s not in transcripts
                 else _think_of(transcripts[s][1]) or [] for s, r in seats.items()}
        scripts = [transcripts[s][2] if s in transcripts else None for s in (0, 1)]
        referee: tuple[list[str], list[str]] | None = None
        replies: tuple[list[str], list[str]] = ([], [])
        if any(scripts):
            deals = [(d.dealer, d.deck, d.actions) for d in self.deals(match_id)]
            context = self._match_context(match_id) if referee_lines else None
            if context is not None:
                rules, bots, reason = context
                rebuilt = referee_script.match_script(
                    rules, match_id, bots, deals, [think.get(s, []) for s in (0, 1)],
                    scripts, reason or "target")
                referee, replies = rebuilt.referee, rebuilt.replies
            else:  # no replay needed
                replies = _replies_of(deals)
        out = []
        for s in sorted(set(seats) | set(transcripts)):
            bot, entries, _, count, stderr = transcripts.get(s, (None, [], None, 0, ""))
            filled = _fill_rebuilt(entries, None if referee is None else referee[s], replies[s] if s < 2 else [])
            out.append(_stored_seat(s, seats.get(s, {}), (bot, filled, stderr), think.get(s, []), count))
        return out

    def hellos(self, tournament: str) -> dict[str, dict[str, Any]]:
        """Per bot, what it said of itself in its last handshake (name and extras) in the finished matches;
        bots that never said anything are left out."""
        out: dict[str, dict[str, Any]] = {}
        for r in self.db.query("SELECT s.bot, s.hello FROM seats s JOIN matches m ON m.id = s.match_id "
                               "WHERE m.tournament = ? AND m.status = 'done' ORDER BY m.ord", [tournament]):
            hello = _json(r["hello"], {})
            if isinstance(hello, dict) and hello:
                out[r["bot"]] = hello  # the last one wins
        return out


def _spec_row(spec: MatchSpec) -> dict[str, Any]:
    return {
        "id": spec.match_id, "ord": spec.order, "bot_a": spec.pairing[0], "bot_b": spec.pairing[1],
        "pair_index": spec.pair_index, "game": spec.game, "seat0": spec.seat0, "seat1": spec.seat1,
        "deal_seed": spec.deal_seed, "match_seed": spec.match_seed,
    }


_SPEC_COLUMNS = "id, ord, bot_a, bot_b, pair_index, game, seat0, seat1, deal_seed, match_seed"


def _row_spec(row: dict[str, Any]) -> MatchSpec:
    return MatchSpec(match_id=row["id"], pairing=(row["bot_a"], row["bot_b"]), pair_index=row["pair_index"],
                     game=row["game"], seat0=row["seat0"], seat1=row["seat1"], deal_seed=row["deal_seed"],
                     match_seed=row["match_seed"], order=row["ord"])


# --------------------------------------------------------------------------------- what the reads return
@dataclass(frozen=True)
class StoredTournament:
    """The tournament (table ``tournaments``, docs/DATABASE.md)."""

    name: str
    config_path: str | None
    config_text: str | None  # the YAML file's full text at the time of the run
    config_hash: str | None
    variant: str | None
    rules: dict[str, Any]  # the resolved rule set; {} when the stored JSON cannot be read
    seed: int | None
    format: str | None
    total_matches: int | None
    created_at: str | None  # ISO 8601 UTC
    updated_at: str | None
    status: str  # "running" or "done"


@dataclass(frozen=True)
class StoredBot:
    """One bot of the tournament (table ``bots``)."""

    name: str
    command: str | None  # as written in the config
    argv: tuple[str, ...] | str  # the command as started; the stored text itself when it is not a JSON list
    hash: str | None  # fingerprint of what the command runs
    build_output: str | None
    kind: str = "bot"  # "bot", or "human": a person's seat in `arena serve`


@dataclass(frozen=True)
class StoredMatch:
    """One scheduled match (its MatchSpec, as `begin` stored it) and, once it is done, its result
    (table ``matches``)."""

    spec: MatchSpec
    status: str  # "pending", "running" or "done"
    winner: str | None  # None until done, and for an abandoned match
    winner_seat: int | None
    score: tuple[int | None, int | None]  # game points by seat
    reason: str | None  # "target", or the termination that decided the match
    termination: str | None  # that termination's kind and offender, when there is one
    terminated_bot: str | None
    deals: int | None  # deals played
    substitutions: tuple[int, int]  # random legal actions the referee played, by seat
    max_lag_ms: float | None
    started_at: str | None
    finished_at: str | None
    duration_s: float | None

    @property
    def match_id(self) -> str:
        return self.spec.match_id

    @property
    def seat0(self) -> str:
        return self.spec.seat0

    @property
    def seat1(self) -> str:
        return self.spec.seat1

    @property
    def seats(self) -> tuple[str, str]:
        return self.spec.seat0, self.spec.seat1

    @property
    def done(self) -> bool:
        return self.status == "done"


@dataclass(frozen=True)
class StoredDeal:
    """One deal of a match (table ``deals``); ``(rules, deck, dealer, actions)`` replays it."""

    idx: int
    dealer: int | None  # seat
    trump: str | None  # the turned trump card, e.g. "Ah"
    deck: str  # the shuffled deck, space-separated, in dealing order
    actions: tuple[str, ...]  # every action in order, "<seat>:<action token>" (arena.game.parse_seat_action)
    winner: int | None  # seat; None for a deal cut short by a forfeited match
    game_points: int | None
    reason: str | None  # how the deal ended (a DealEndReason's text, or "forfeit")
    points: tuple[int | None, int | None]  # card points by seat
    tricks: tuple[int | None, int | None]  # tricks by seat
    forfeit: bool  # the referee ended the deal for a violation

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredDeal:
        """A deal from a row of the deals table (a missing column reads as NULL)."""
        get = row.get
        return cls(
            idx=get("idx") or 0, dealer=get("dealer"), trump=get("trump"), deck=_deck_text(get("deck") or ""),
            actions=_action_texts(get("actions") or ""), winner=get("winner"), game_points=get("game_points"),
            reason=get("reason"), points=(get("points0"), get("points1")), tricks=(get("tricks0"), get("tricks1")),
            forfeit=bool(get("forfeit")),
        )


@dataclass(frozen=True)
class StoredTermination:
    """One violation (table ``terminations``; the kinds are listed in docs/PROTOCOL.md)."""

    match_id: str
    kind: str
    seat: int | None
    bot: str
    detail: str | None
    line: str | None  # the offending line (capped), if a line caused it
    deal: int | None  # deal index, None before the first deal
    at_ms: float | None  # since the match started


@dataclass(frozen=True)
class StoredSeat:
    """One seat of a match: its think times and handshake (table ``seats``) and its transcript
    (table ``transcripts``); a value the database lacks is None (or empty)."""

    seat: int
    bot: str | None
    decisions: int | None
    think_median_ms: float | None
    think_max_ms: float | None
    hello: dict[str, Any]  # the name and extras the bot gave in its handshake
    transcript: list[Any] | str  # the protocol lines ([ms, direction, text] each); the text if it is not a JSON list
    stderr: str
    think_ms: tuple[float, ...] = ()  # the think time of each decision it answered, in order (seats.think_ms)
    lines: int = 0  # how many lines its transcript has (also when `transcript` leaves some out)


def _json(text: str | None, default: Any) -> Any:
    """The stored JSON ``text``, ``default`` when there is none, the text itself when it is not JSON."""
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return text


def _stored_tournament(r: Mapping[str, Any]) -> StoredTournament:
    rules = _json(r.get("rules"), {})
    return StoredTournament(
        name=r["name"], config_path=r.get("config_path"), config_text=r.get("config_text"),
        config_hash=r.get("config_hash"), variant=r.get("variant"), rules=rules if isinstance(rules, dict) else {},
        seed=r.get("seed"), format=r.get("format"), total_matches=r.get("total_matches"),
        created_at=r.get("created_at"), updated_at=r.get("updated_at"), status=r.get("status") or "running",
    )


def _stored_bot(r: Mapping[str, Any]) -> StoredBot:
    argv = _json(r["argv"], [])
    return StoredBot(name=r["name"], command=r["command"], hash=r["hash"], build_output=r["build_output"],
                     kind=r.get("kind") or "bot",
                     argv=tuple(str(a) for a in argv) if isinstance(argv, list) else str(argv))


def _stored_match(r: dict[str, Any]) -> StoredMatch:
    return StoredMatch(
        spec=_row_spec(r), status=r["status"], winner=r["winner"], winner_seat=r["winner_seat"],
        score=(r["score0"], r["score1"]), reason=r["reason"], termination=r["termination"],
        terminated_bot=r["terminated_bot"], deals=r["deals"],
        substitutions=(r["substitutions0"] or 0, r["substitutions1"] or 0), max_lag_ms=r["max_lag_ms"],
        started_at=r["started_at"], finished_at=r["finished_at"], duration_s=r["duration_s"],
    )


def _stored_termination(r: Mapping[str, Any]) -> StoredTermination:
    return StoredTermination(match_id=r["match_id"], kind=r["kind"], seat=r["seat"], bot=r["bot"],
                             detail=r["detail"], line=r["line"], deal=r["deal"], at_ms=r["at_ms"])


def _stored_seat(seat: int, s: Mapping[str, Any], t: tuple[str | None, list[Any] | str, str],
                 think_ms: Sequence[float], count: int) -> StoredSeat:
    hello = _json(s.get("hello"), {})
    bot, lines, stderr = t
    return StoredSeat(
        seat=seat, bot=s.get("bot") or bot, decisions=s.get("decisions"),
        think_median_ms=s.get("think_median_ms"), think_max_ms=s.get("think_max_ms"),
        hello=hello if isinstance(hello, dict) else {}, transcript=lines, stderr=stderr,
        think_ms=tuple(think_ms), lines=count,
    )


def _think_ms(stored: bytes | str | None) -> list[float]:
    try:
        text = _unpack(stored)
    except (zlib.error, UnicodeDecodeError):
        return []
    values = _json(text, [])
    if not isinstance(values, list):
        return []
    try:
        return list(map(float, values))  # what `save` writes: fast, in C
    except (TypeError, ValueError):
        return [v for v in values if isinstance(v, int | float)]


# The standings' facts of a match, from a MatchRecord (`record_facts`) or from its rows (`Store.match_facts`):
# both go through `_match_facts` and `_deal_facts`, so `arena match` and the report count alike.
def record_facts(rec: MatchRecord) -> MatchFacts:
    """What the standings count of a finished match (`Store.match_facts` reads the same back)."""
    return _match_facts(
        rec.match_id, rec.bots, rec.winner, rec.score,
        [_deal_facts(d.get("winner"), d.get("game_points"), " ".join(d.get("actions") or ())) for d in rec.deals],
        [TerminationFacts(t.bot, str(t.kind)) for t in rec.terminations], rec.think_ms,
    )


def _match_facts(
    match_id: str,
    bots: Sequence[str],
    winner: int | None,
    score: Sequence[int | None],
    deals: Iterable[DealFacts],
    terminations: Iterable[TerminationFacts],
    think_ms: Sequence[Iterable[float]],
) -> MatchFacts:
    return MatchFacts(
        match_id, (bots[0], bots[1]), winner if winner in (0, 1) else None, (score[0] or 0, score[1] or 0),
        tuple(deals), tuple(terminations), (tuple(think_ms[0]), tuple(think_ms[1])),
    )


def _deal_facts(winner: int | None, game_points: int | None, actions: str) -> DealFacts:
    """A deal's facts from its winner, game points and actions (space-separated, as the database holds them)."""
    counts = [0, 0, 0, 0]  # closes by seat, marriages by seat
    if "close" in actions or "marriage" in actions:  # else there is nothing to count: skip the parsing
        for text in actions.split():
            i = _COUNTED.get(text)
            if i is None:
                if len(_COUNTED) > 10_000:  # only a corrupt database has that many different actions
                    _COUNTED.clear()
                i = _COUNTED[text] = _counted(text)
            if i >= 0:
                counts[i] += 1
    decided = winner in (0, 1)
    return DealFacts(winner if decided else None, (game_points or 0) if decided else 0,
                     (counts[0], counts[1]), (counts[2], counts[3]))


def _counted(text: str) -> int:
    """Where `_deal_facts` counts an action: 0/1 a close by seat 0/1, 2/3 a marriage, -1 nowhere (also for
    an action that cannot be read: a corrupt row counts for nothing, and its replay shows where it is)."""
    try:
        seat, action = parse_seat_action(text)
    except ValueError:
        return -1
    if action.kind == "close":
        return seat
    if action.kind == "marriage":
        return 2 + seat
    return -1


_COUNTED: dict[str, int] = {}  # action text -> where it counts: a tournament repeats the same few hundred


# --------------------------------------------------------------------------------- one writer, --fresh
class RunLock:
    """An exclusive ``flock`` on ``<database>.lock`` (which holds the owner's pid) for a whole `arena run`.

    Two runs writing one database would both play the pending matches and mix their results, so the second
    is refused at once. The kernel drops a flock when its process dies, SIGKILL included, so a stale lock
    file never blocks a later run. Readers (`arena report`, sqlite3) do not take it.
    """

    def __init__(self, database: Path) -> None:
        self.database = Path(database)
        self.path = Path(f"{database}.lock")
        self.fd: int | None = None

    def acquire(self) -> None:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as e:
                if is_disk_full(e):
                    raise DiskFull(self.path, e) from None
                raise StoreError(f"cannot create the lock file {self.path}: {e.strerror or e}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                os.close(fd)
                owner = f"pid {pid}" if pid.isdigit() else "pid unknown"
                raise StoreError(
                    f"{self.database} is in use by another arena run ({owner}); wait for it to finish or stop it, "
                    "then run again"
                ) from None
            # A run that just finished removes its lock file after we opened it: our lock would then be on
            # a file nobody else sees, so lock the file the path names now.
            try:
                st, now = os.fstat(fd), os.stat(self.path)
                same = (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino)
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as e:
            self.release()
            if is_disk_full(e):
                raise DiskFull(self.path, e) from None
            raise

    def release(self) -> None:
        if self.fd is None:
            return
        # Remove the file before unlocking it: a run that opened it meanwhile sees it gone and starts over.
        self.path.unlink(missing_ok=True)
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


ARENA_TABLES = ("_migrations", "tournaments", "matches")


def fresh_files(path: Path, name: str) -> list[Path]:
    """The files `arena run --fresh` deletes: the database and its -wal/-shm, those that exist.

    Raises StoreError (and nothing is deleted) unless ``path`` is an arena database of tournament ``name``:
    a misspelt ``output.database`` must never cost a user an unrelated file. The check reads the file
    read-only, so it changes nothing either.
    """
    path = Path(path)
    if not path.exists():
        return []

    def refuse(why: str) -> StoreError:
        return StoreError(
            f"--fresh: {path} is not a database of tournament {name!r} ({why}); nothing was deleted. "
            "Check output.database, or remove the file yourself"
        )

    if not path.is_file():
        raise refuse("not a regular file")
    companions = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = [p for p in companions if p.exists()]
    try:
        # Not immutable=1: a killed run's results (its schema too) may still be only in the -wal file.
        conn = _read_only_connection(path)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = [t for t in ARENA_TABLES if t not in tables]
            if missing:
                raise refuse(f"no arena tables: {', '.join(missing)} missing")
            names = [row[0] for row in conn.execute("SELECT name FROM tournaments")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise refuse(f"not an SQLite database: {e}") from None
    finally:
        # A read-only connection to a WAL database creates -wal and -shm and cannot remove them: leave the
        # directory as it was.
        for p in companions:
            if p not in existed:
                p.unlink(missing_ok=True)
    if name not in names:
        raise refuse(f"it holds tournament {names[0]!r}" if names else "it holds no tournament")
    return [path, *existed]
