"""The database's compact storage (docs/DATABASE.md, "Compressed columns"): every transcript line, stderr
byte and think time a match leaves comes back from the database exactly, for hostile bots too, through the
store and through plain SQL plus one decompress call; a database of the first schema is migrated (002) and
its report renders."""

from __future__ import annotations

import json
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import BOTS, ROOT

from arena.errors import StoreError
from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.process import STDERR_CAP, BotSpec
from arena.referee.record import MatchRecord, MatchSpec
from arena.report import context as ctx
from arena.report import render_report
from arena.store import MIGRATIONS, Store
from arena.tournament.build import BotProvenance

#: Answers with CRLF line ends, a few lines of binary garbage on stdout (after the handshake, before a
#: `turn`: the referee notes them as unexpected or malformed, which ends its part) and stderr with bytes
#: that are not UTF-8, a NUL, a lone CR and a form feed.
CRLF_BOT = r"""
import sys
out = sys.stdout.buffer
err = sys.stderr.buffer
err.write(b"crlf: starts\r\n\x00\xff\xfe raw \x0c bytes\rCR alone\n")
err.flush()
for raw in sys.stdin.buffer:
    words = raw.decode("ascii", "replace").split()
    if not words:
        continue
    if words[0] == "arena":
        out.write(b"bot 1 crlf\r\n")
    elif words[0] == "turn":
        legal = dict(w.split("=", 1) for w in words[1:] if "=" in w)["legal"].split(",")
        out.write(legal[0].replace(":", " ").encode() + b"\r\n")
    elif words[0] == "match-end":
        out.write(b"info \xc3\xa9t\xc3\xa9 \xe2\x99\xa5 \xf0\x9f\x83\x8f\r\n")
    elif words[0] == "quit":
        break
    out.flush()
"""


def _play(bots: dict[str, tuple[str, ...]], path: Path, target: int = 1) -> tuple[Store, list[MatchRecord]]:
    """Each bot in seat 0 against tests/bots/good.py: one short match each (``target`` game points),
    stored in ``path``; returns the store and the records as the referee made them."""
    rules = preset("santase").with_overrides({"match_target": target})
    tc = TimeControl(move_ms=5000, handshake_ms=10000)
    players = {n: Player(BotSpec(n, argv, sandbox="none"), tc) for n, argv in bots.items()}
    players["good"] = Player(BotSpec("good", (sys.executable, str(BOTS / "good.py")), sandbox="none"), tc)
    specs = [MatchSpec(f"{n}-vs-good-p0-g0", (n, "good"), 0, 0, n, "good", deal_seed=7 + i, match_seed=i, order=i)
             for i, n in enumerate(bots)]
    store = Store(path)
    store.begin("t", "t.yaml", "name: t\n", "h", rules.to_dict(), 1, "round-robin", specs,
                [BotProvenance(n, n, argv, f"sha256:{n}") for n, argv in bots.items()])
    records: list[MatchRecord] = []

    async def main() -> None:
        for spec in specs:
            rec = await play_match(spec.match_id, (players[spec.seat0], players[spec.seat1]), rules,
                                   spec.deal_seed, spec.match_seed)
            store.save(rec)
            records.append(rec)

    trio.run(main)
    store.finish("t")
    return store, records


def _as_stored(entries: list[Any]) -> list[Any]:
    """A transcript as the first schema stored it and read it back: JSON, so tuples become lists."""
    return json.loads(json.dumps(entries))  # type: ignore[no-any-return]


def _sql_transcript(path: Path, match_id: str, seat: int) -> tuple[list[Any], str]:
    """docs/DATABASE.md's recipe: plain SQL and one decompress call per column."""
    db = sqlite3.connect(path)
    try:
        lines, stderr, zdict = db.execute(
            "SELECT t.lines, t.stderr, d.data FROM transcripts t LEFT JOIN dictionaries d ON d.id = t.dict "
            "WHERE t.match_id = ? AND t.seat = ?", [match_id, seat]).fetchone()
    finally:
        db.close()
    payload = json.loads(zlib.decompressobj(zdict=zdict or b"").decompress(lines))
    t = 0
    entries = []
    for us, line in zip(payload["us"], payload["lines"], strict=True):
        t += us
        entries.append([t / 1000, line[0], line[1:]])
    return entries, zlib.decompress(stderr).decode("utf-8", "surrogatepass") if stderr else ""


def _same_but_rebuilt(sql: tuple[list[Any], str], full: tuple[list[Any], str]) -> None:
    """What plain SQL and one decompress call give is the transcript with each line the store rebuilds
    marked: ``=`` a referee line (with its first word for the lines that say where the transcript is), ``~``
    a reply that is the recorded action; every time, every other line and stderr as they are."""
    (entries, stderr), (lines, want_stderr) = sql, full
    assert stderr == want_stderr and len(entries) == len(lines)
    for (ms, d, text), (want_ms, want_d, want_text) in zip(entries, lines, strict=True):
        assert ms == want_ms
        if d == "=":
            assert want_d == ">" and want_text.partition(" ")[0] == (text or want_text.partition(" ")[0])
        elif d == "~":
            assert want_d == "<" and text == "" and want_text.split()[0] in ("play", "close", "marriage", "exchange",
                                                                             "declare")
        else:
            assert [d, text] == [want_d, want_text]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[MatchRecord], Path]:
    tmp = tmp_path_factory.mktemp("store")
    (tmp / "crlf.py").write_text(CRLF_BOT)
    py = sys.executable
    store, records = _play({
        "flood": (py, str(BOTS / "stderr_flood.py")),
        "bad_utf8": (py, str(BOTS / "bad_utf8.py")),
        "garbage": (py, str(BOTS / "garbage.py")),
        "crlf": (py, str(tmp / "crlf.py")),
        "greedy": (py, str(ROOT / "bots" / "greedy.py")),
    }, tmp / "arena.db", target=3)
    yield store, records, tmp
    store.close()


def test_every_transcript_line_stderr_byte_and_think_time_comes_back(
        hostile: tuple[Store, list[MatchRecord], Path]) -> None:
    store, records, tmp = hostile
    by_bot = {rec.bots[0]: rec for rec in records}
    assert len(by_bot) == 5
    for rec in records:
        seats = {s.seat: s for s in store.seats(rec.match_id)}
        for seat in (0, 1):
            got = seats[seat]
            assert got.transcript == _as_stored(rec.transcripts[seat]), (rec.match_id, seat)
            assert got.stderr == rec.stderr[seat], (rec.match_id, seat)
            assert list(got.think_ms) == rec.think_ms[seat]
            _same_but_rebuilt(_sql_transcript(tmp / "arena.db", rec.match_id, seat), (got.transcript, got.stderr))
    # what each hostile bot left is really there, whole
    flood = by_bot["flood"].stderr[0]
    assert flood.startswith("stderr_flood: startup: 5242880 bytes follow\n")
    assert len(flood.encode()) <= STDERR_CAP + 200 and "more bytes of stderr dropped]" in flood
    assert any(d == "<" and "\ufffd" in t for _, d, t in by_bot["bad_utf8"].transcripts[0])  # decoded, replaced
    assert any(d == "<" and t == "hello world ~~~" for _, d, t in by_bot["garbage"].transcripts[0])
    crlf = by_bot["crlf"]
    assert any(t.endswith("\r") for _, d, t in crlf.transcripts[0] if d == "<") or crlf.reason != "target"
    assert "\x00" in crlf.stderr[0] and "\rCR alone" in crlf.stderr[0]
    assert store.seats(by_bot["greedy"].match_id)[0].stderr == ""


def test_the_store_gives_back_the_records_deals_and_result(hostile: tuple[Store, list[MatchRecord], Path]) -> None:
    """What the referee recorded comes back as the same typed values: each deal a DealRecord, the result a
    MatchResult with the text the report shows; the workers' JSON form round-trips it too."""
    store, records, _ = hostile
    stored = {m.match_id: m for m in store.matches("t")}
    assert any(rec.result.forfeited for rec in records) and any(not rec.result.forfeited for rec in records)
    for rec in records:
        assert [d.record() for d in store.deals(rec.match_id)] == rec.deals, rec.match_id
        assert all(d.forfeit == s.forfeit for d, s in zip(rec.deals, store.deals(rec.match_id), strict=True))
        result = stored[rec.match_id].result
        assert (result.winner, result.score, result.reason) == (rec.winner, rec.score, str(rec.reason))
        assert result.text() == rec.result.text()
        assert result.text() == (f"forfeit ({rec.score[0]}\u2013{rec.score[1]})" if rec.reason != "target"
                                 else f"{rec.score[0]}\u2013{rec.score[1]}")
        assert MatchRecord.from_dict(json.loads(json.dumps(rec.to_dict()))).deals == rec.deals


def test_the_stored_match_is_small(hostile: tuple[Store, list[MatchRecord], Path]) -> None:
    """A transcript is stored in a fraction of its JSON (the first match's own is the dictionary)."""
    store, records, tmp = hostile
    db = sqlite3.connect(tmp / "arena.db")
    try:
        stored = db.execute("SELECT sum(length(lines)) FROM transcripts WHERE match_id = ?",
                            [records[-1].match_id]).fetchone()[0]
        dicts = db.execute("SELECT count(*) FROM dictionaries").fetchone()[0]
    finally:
        db.close()
    raw = sum(len(json.dumps(t)) for t in records[-1].transcripts)
    assert dicts == 1 and stored * 5 < raw, (stored, raw)


def test_a_write_that_fails_leaves_no_dictionary_behind(tmp_path: Path) -> None:
    """A match whose transaction is rolled back (here: it was never scheduled) takes the dictionary it
    created with it, and the next match makes a new one that its rows can be read with."""
    store, records = _play({"greedy": (sys.executable, str(ROOT / "bots" / "greedy.py"))}, tmp_path / "a.db")
    other = Store(tmp_path / "b.db")
    rec = records[0]
    stray = MatchRecord(**{**rec.__dict__, "match_id": "not-scheduled"})
    with pytest.raises(StoreError, match="no scheduled match"):
        other.save(stray)
    assert other.db.conn.execute("SELECT count(*) FROM dictionaries").fetchone()[0] == 0
    spec = MatchSpec(rec.match_id, ("greedy", "good"), 0, 0, "greedy", "good", 7, 0, 0)
    other.begin("t", "t.yaml", "name: t\n", "h", rec.rules.to_dict(), 1, "round-robin", [spec], [])
    other.save(rec)
    assert other.seats(rec.match_id)[0].transcript == _as_stored(rec.transcripts[0])
    other.close()
    store.close()


# ------------------------------------------------------------------------------------------- migration 002
def _old_schema_db(path: Path, records: list[MatchRecord], rules: dict[str, Any]) -> None:
    """A database as the first schema (migration 001 only) wrote it: transcripts, stderr and think times
    as plain text."""
    db = sqlite3.connect(path)
    import sqlite_utils

    sdb = sqlite_utils.Database(db)
    MIGRATIONS[0][1](sdb)
    sdb.table("_migrations").create({"name": str, "applied_at": str}, pk="name")
    sdb.table("_migrations").insert({"name": "001_initial", "applied_at": "2026-01-01T00:00:00+00:00"})
    sdb.table("tournaments").insert({"name": "old", "config_path": "old.yaml", "config_text": "name: old\n",
                                     "config_hash": "h", "variant": "santase", "rules": json.dumps(rules),
                                     "seed": 1, "format": "round-robin", "total_matches": len(records),
                                     "status": "done"})
    for i, rec in enumerate(records):
        sdb.table("matches").insert({
            "id": rec.match_id, "tournament": "old", "ord": i, "bot_a": rec.bots[0], "bot_b": rec.bots[1],
            "pair_index": i, "game": 0, "seat0": rec.bots[0], "seat1": rec.bots[1], "deal_seed": rec.deal_seed,
            "match_seed": rec.match_seed, "status": "done", "winner": rec.winner_name, "winner_seat": rec.winner,
            "score0": rec.score[0], "score1": rec.score[1], "reason": str(rec.reason), "deals": len(rec.deals),
            "substitutions0": 0, "substitutions1": 0})
        for k, d in enumerate(rec.deals):
            sdb.table("deals").insert({
                "match_id": rec.match_id, "idx": k, "dealer": d.dealer, "trump": str(d.trump), "deck": d.deck_text(),
                "actions": " ".join(d.action_texts()), "winner": d.winner, "game_points": d.game_points,
                "reason": d.reason, "forfeit": int(d.forfeit)})
        for seat in (0, 1):
            sdb.table("seats").insert({"match_id": rec.match_id, "seat": seat, "bot": rec.bots[seat],
                                       "think_ms": json.dumps(rec.think_ms[seat]), "decisions": len(rec.think_ms[seat]),
                                       "hello": json.dumps(rec.bot_info[seat])})
            sdb.table("transcripts").insert({"match_id": rec.match_id, "seat": seat, "bot": rec.bots[seat],
                                             "lines": json.dumps(rec.transcripts[seat]), "stderr": rec.stderr[seat]})
    # an odd row the migration must keep as it is: a transcript that is not a JSON list
    sdb.table("transcripts").update((records[0].match_id, 1), {"lines": "not json ["})
    db.commit()
    db.close()


def test_an_old_schema_database_is_migrated_and_its_report_renders(
        hostile: tuple[Store, list[MatchRecord], Path], tmp_path: Path) -> None:
    _, records, _ = hostile
    path = tmp_path / "old.db"
    _old_schema_db(path, records, records[0].rules.to_dict())
    before = path.stat().st_size
    store = Store.open_existing(path)
    try:
        names = [r[0] for r in store.db.conn.execute("SELECT name FROM _migrations ORDER BY name")]
        assert names[:2] == ["001_initial", "002_compact"]
        for n, rec in enumerate(records):
            seats = {s.seat: s for s in store.seats(rec.match_id)}
            for seat in (0, 1):
                if (n, seat) == (0, 1):
                    assert seats[seat].transcript == "not json ["  # kept, as the first schema read it
                else:
                    assert seats[seat].transcript == _as_stored(rec.transcripts[seat])
                assert seats[seat].stderr == rec.stderr[seat]
                assert list(seats[seat].think_ms) == rec.think_ms[seat]
        stored = store.db.conn.execute("SELECT sum(length(lines)) FROM transcripts").fetchone()[0]
        index = render_report(store, tmp_path / "report", transcripts="all")
    finally:
        store.close()
    raw = sum(len(json.dumps(t)) for rec in records for t in rec.transcripts)
    assert stored * 3 < raw and path.stat().st_size < before  # compressed, the space given back (VACUUM)
    assert "greedy" in index.read_text()
    page = tmp_path / "report" / "match.html"  # the viewer of every match, which loads its data file
    _, data = ctx.read_match_data((tmp_path / "report" / "data" / f"{ctx.file_name(records[-1].match_id)}.js")
                                  .read_text())
    assert data["m"]["bots"] == list(records[-1].bots) and page.is_file()
    assert len(data["seats"][0]["lines"]) == len(records[-1].transcripts[0])
    again = Store.open_existing(path)  # a migrated database opens as it is
    again.close()


def test_a_reader_sees_what_another_connection_commits_since_its_last_read(
        hostile: tuple[Store, list[MatchRecord], Path], tmp_path: Path) -> None:
    """`Store.deals` keeps the last match's deals for repeated reads; a commit by another process (here
    another connection) in between is read, not the kept rows."""
    _, records, tmp = hostile
    with sqlite3.connect(tmp / "arena.db") as src, sqlite3.connect(tmp_path / "copy.db") as dst:
        src.backup(dst)
    src.close()
    dst.close()
    with Store.open_existing(tmp_path / "copy.db") as reader, Store.open_existing(tmp_path / "copy.db") as writer:
        mid = records[0].match_id
        first = reader.deals(mid)
        assert reader.deals(mid) == first
        with writer.db.conn:
            writer.db.conn.execute("UPDATE deals SET game_points = 3 - game_points WHERE match_id = ? AND idx = 0",
                                   [mid])
        assert reader.deals(mid)[0].game_points == 3 - first[0].game_points


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_read_only_database_is_reported_on_and_left_as_it_was(
        hostile: tuple[Store, list[MatchRecord], Path], tmp_path: Path) -> None:
    """Opened read-only, an old-schema database is migrated in a private copy, not in place: the report
    renders, every transcript comes back, and not a byte of the database's folder changes."""
    _, records, _ = hostile
    folder = tmp_path / "results"
    folder.mkdir()
    _old_schema_db(folder / "old.db", records, records[0].rules.to_dict())
    before = _files(folder)
    with Store.open_existing(folder / "old.db", read_only=True) as store:
        copy = store.file
        assert copy != store.path and copy.is_file()
        rec = records[-1]
        assert store.seats(rec.match_id)[0].transcript == _as_stored(rec.transcripts[0])
        index = render_report(store, tmp_path / "report")
    assert "greedy" in index.read_text() and (tmp_path / "report" / "data").is_dir()
    assert not copy.exists()  # the private copy is gone with the store, at the end of its `with`
    assert _files(folder) == before


def test_arena_report_reads_a_database_on_a_read_only_mount(
        hostile: tuple[Store, list[MatchRecord], Path], tmp_path: Path) -> None:
    """What a user meets: results handed over on read-only media. `arena report` and `arena transcript`
    work, without asking for write access."""
    import subprocess

    _, records, tmp = hostile
    folder, mount = tmp_path / "results", tmp_path / "mnt"
    folder.mkdir()
    mount.mkdir()
    _old_schema_db(folder / "old.db", records, records[0].rules.to_dict())
    with sqlite3.connect(tmp / "arena.db") as src, sqlite3.connect(folder / "new.db") as dst:
        src.backup(dst)
    dst.close()
    src.close()
    made = subprocess.run(["mount", "--bind", str(folder), str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a bind mount here: {made.stderr.decode().strip()}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,ro,bind", str(mount)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip(f"cannot make the mount read-only here: {ro.stderr.decode().strip()}")
        before = _files(folder)
        for name in ("old.db", "new.db"):
            out = subprocess.run([sys.executable, "-m", "arena", "report", str(mount / name), "-o",
                                  str(tmp_path / name)], capture_output=True, text=True, timeout=120, cwd=ROOT)
            assert out.returncode == 0, out.stderr
            assert (tmp_path / name / "index.html").is_file()
        rec = records[-1]
        shown = subprocess.run([sys.executable, "-m", "arena", "transcript", str(mount / "new.db"), rec.match_id,
                                "--seat", "0"], capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert shown.returncode == 0, shown.stderr
        assert f" {rec.transcripts[0][-1][1]} {rec.transcripts[0][-1][2]}" in shown.stdout
        assert _files(folder) == before
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_the_recipe_in_database_md_prints_a_transcript(hostile: tuple[Store, list[MatchRecord], Path]) -> None:
    """docs/DATABASE.md's `python3 -c` recipe, run as written against a real database."""
    import re
    import subprocess

    store, records, tmp = hostile
    doc = (ROOT / "docs" / "DATABASE.md").read_text()
    code = re.search(r"python3 -c '\n(.*?)\n' reports/demo/arena\.db", doc, re.S)
    assert "arena transcript reports/demo/arena.db" in doc
    assert code is not None
    rec = records[-1]
    out = subprocess.run([sys.executable, "-c", code.group(1), str(tmp / "arena.db"), rec.match_id, "0"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    stored, _ = _sql_transcript(tmp / "arena.db", rec.match_id, 0)
    assert out.splitlines() == [f"{ms / 1:10.3f} {d} {t}" for ms, d, t in stored]
    assert sum(d == "=" for _, d, _ in stored) > len(stored) / 2  # the lines the record gives back are marks
    full = subprocess.run([sys.executable, "-m", "arena", "transcript", str(tmp / "arena.db"), rec.match_id,
                           "--seat", "0"], capture_output=True, text=True, timeout=60, check=True).stdout
    want = [f"{ms / 1:10.3f} {d} {t}" for ms, d, t in store.seats(rec.match_id)[0].transcript]
    assert full.splitlines()[:len(want)] == want and want[2].startswith(f"{stored[2][0]:10.3f} > match ")
