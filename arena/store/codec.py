"""How a match's transcripts, stderr, think times and deals are written into their columns and read back.

Transcripts, stderr and think times are zlib streams, a transcript's with a preset dictionary (`_Codec`).
A referee line that `arena.referee.script` rebuilds from the record is stored as a mark (`REBUILT`, and
`REPLY` for a bot's reply that is its recorded action), and filled in again on reading. A deal's deck and
actions are stored compactly. docs/DATABASE.md describes every form.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Any

from arena.errors import StoreError
from arena.game.variants import RuleSet
from arena.referee import script as referee_script
from arena.referee.record import MatchRecord
from arena.referee.script import SeatScript

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


def _json(text: str | None, default: Any) -> Any:
    """The stored JSON ``text``, ``default`` when there is none, the text itself when it is not JSON."""
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return text


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
