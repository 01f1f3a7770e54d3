"""The tournament database (SQLite through sqlite-utils). The schema is documented in docs/DATABASE.md.

One transaction per finished match: a match's rows (the match, its deals, terminations, seats and
transcripts) appear together or not at all, so a killed run never leaves half a result. WAL mode lets the
report be rendered while the runner writes. Schema changes are migrations (arena.store.migrations),
recorded in ``_migrations``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import sqlite_utils

from arena.botspec import BotProvenance
from arena.errors import StoreError
from arena.game.actions import Action
from arena.game.cards import Card, CardError, parse_cards
from arena.game.variants import RuleSet
from arena.referee import script as referee_script
from arena.referee.record import MatchRecord, MatchSpec, deal_facts, match_facts, parse_seat_actions
from arena.stats.standings import DealFacts, MatchFacts, TerminationFacts
from arena.stats.swiss import SwissGame
from arena.store.codec import (
    _action_texts,
    _actions_column,
    _by_the_book,
    _Codec,
    _deck_column,
    _deck_text,
    _encode_payload,
    _fill_rebuilt,
    _json,
    _pack,
    _rebuilt_payloads,
    _replies_of,
    _rules_or_none,
    _think_ms,
    _think_of,
    _value_entries,
)
from arena.store.errors import DiskFull, OtherResults, is_disk_full
from arena.store.facts import LuckDeal, _match_luck
from arena.store.migrations import MIGRATIONS, _pending_migrations, _refuse_newer
from arena.store.rows import (
    _SPEC_COLUMNS,
    StoredBot,
    StoredDeal,
    StoredMatch,
    StoredSeat,
    StoredTermination,
    StoredTournament,
    _row_spec,
    _spec_row,
    _stored_bot,
    _stored_match,
    _stored_seat,
    _stored_termination,
    _stored_tournament,
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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


#: (rules, seed, creation time) of a tournament -> match id -> a finished match's luck (`Store.match_luck`)
LuckCache = dict[tuple[str, ...], dict[str, float]]


class Store:
    """One open tournament database: ``with Store(path) as store:`` closes it at the end of the block (or
    call `close`). Its methods write a tournament, a match at a time, and read it back as typed rows."""

    def __init__(self, path: Path, read_only: bool = False, luck_cache: LuckCache | None = None) -> None:
        """The database at ``path``, created and migrated as needed. ``read_only`` opens an existing file
        without writing it or its folder; if its schema is older than this arena's, the migrations run on a
        private copy in the temporary directory (``file``), which `close` removes. ``luck_cache``: a dict kept
        from one store of the database to the next (`serve --watch` opens one per render), so that a finished
        match's luck (`match_luck`) is computed once."""
        self.path = Path(path)
        self.file = self.path  # the file this store reads and writes: the database, or that private copy
        self._rules: dict[str, RuleSet | None] = {}  # by the tournament's rules text
        self._last_deals: tuple[tuple[str, int] | None, list[StoredDeal]] = (None, [])
        self._luck: LuckCache = {} if luck_cache is None else luck_cache
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
    def open_existing(cls, path: Path, read_only: bool | None = None,
                      luck_cache: LuckCache | None = None) -> Store:
        """An existing database that holds a tournament. ``read_only`` (by default: when the file or its
        folder cannot be written, a read-only mount say) and ``luck_cache`` as `Store` says."""
        path = Path(path)
        if not path.is_file():
            raise StoreError(f"{path}: no such database")
        if read_only is None:
            read_only = not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
        store = cls(path, read_only=read_only, luck_cache=luck_cache)
        if not store.db.table("tournaments").exists() or not store.db.table("tournaments").count:
            store.close()
            raise StoreError(f"{path}: holds no tournament")
        return store

    def close(self) -> None:
        self.db.conn.close()
        self._remove_copy()

    def __enter__(self) -> Self:  # a subclass (the ladder's LadderStore) gets its own type back
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        total: int | None = None,
    ) -> None:
        """Record the tournament and its schedule, or check that the database holds this same tournament.

        ``total`` is the number of matches the whole tournament will have when ``schedule`` is only its
        beginning: a Swiss schedules a round at a time (`schedule_more`).

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
                    "seed": seed, "format": fmt, "total_matches": len(schedule) if total is None else total,
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
            self._insert_specs(name, schedule)
            db.execute("UPDATE matches SET status = 'pending' WHERE tournament = ? AND status = 'running'", [name])

    def stored_seed(self, name: str) -> int | None:
        """The seed tournament ``name`` was scheduled with, None when the database does not hold it yet."""
        rows = list(self.db.table("tournaments").rows_where("name = ?", [name], select="seed"))
        return rows[0]["seed"] if rows else None

    def finish(self, name: str) -> None:
        with self._transaction():
            # a Swiss stopped between two rounds has no pending match, but its next rounds are not scheduled yet
            unscheduled = max(0, (self._tournament_row(name)["total_matches"] or 0) - self.count(name))
            pending = self.count(name, "pending") + self.count(name, "running") + unscheduled
            self.db.table("tournaments").update(name, {"status": "done" if not pending else "running",
                                                 "updated_at": _now()})
        if not pending:
            # Rows keyed by match id arrive in no order, which leaves their pages a third empty; a finished
            # tournament is written once more, densely (a demo database shrinks by a tenth).
            try:
                self.db.conn.execute("VACUUM")
            except sqlite3.OperationalError:
                pass  # a reader holds the file (a report being rendered): it stays as it is, whole

    def schedule_more(self, name: str, specs: Iterable[MatchSpec]) -> None:
        """Add matches to a begun tournament's schedule (a Swiss's next round), all in one transaction; a
        match already there is kept as it is."""
        with self._transaction():
            self._insert_specs(name, specs)
            self.db.table("tournaments").update(name, {"updated_at": _now()})

    def _insert_specs(self, name: str, specs: Iterable[MatchSpec]) -> None:
        """Scheduled matches as 'pending' rows, inside the caller's transaction; a match id already there is kept."""
        self.db.table("matches").insert_all(
            ({"tournament": name, "status": "pending", **_spec_row(spec)} for spec in specs), pk="id", ignore=True,
        )

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
        term = rec.result.deciding
        context = self._match_context(mid)
        rules = None if context is None or context[0] != rec.rules or context[1] != tuple(rec.bots) \
            else context[0]  # a later read rebuilds from what the database has: no rebuilt lines if it differs
        deals = [(d.dealer, d.deck_text(), d.action_texts()) for d in rec.deals]
        values = _rebuilt_payloads(rules, mid, rec.bots, deals,
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
                        (mid, i, d.dealer, str(d.trump), _deck_column(deck), _actions_column(actions),
                         d.winner, d.game_points, d.reason or None, *(d.points or (None, None)),
                         *(d.tricks or (None, None)), int(d.forfeit))
                        for i, (d, (_, deck, actions)) in enumerate(zip(rec.deals, deals, strict=True))
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
    # Typed reads for the report and the CLI: frozen values (the Stored* types of arena.store.rows) or the
    # standings' facts, never rows keyed by column name, so nothing outside arena.store knows the schema. Plain
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

    def match(self, match_id: str) -> StoredMatch | None:
        """One match by its id (None: no such match): for a page of one match, without reading the others."""
        rows = list(self.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
        return _stored_match(rows[0]) if rows else None

    def swiss_games(self, tournament: str) -> list[SwissGame]:
        """Every scheduled match as a Swiss counts it (its round is its ``pair_index``), in schedule order."""
        return [SwissGame(r, (a, b), status == "done", winner) for r, a, b, status, winner in self.db.execute(
            "SELECT pair_index, bot_a, bot_b, status, winner FROM matches WHERE tournament = ? ORDER BY ord",
            [tournament]).fetchall()]

    def match_facts(self, tournament: str, think_times: bool = True) -> list[MatchFacts]:
        """What the standings count of every finished match, in schedule order. Built by the same function
        as `MatchRecord.facts` builds them from a record, so the report and `arena match` cannot disagree.

        ``think_times=False`` leaves every ``think_ms`` empty: reading every decision's time is most of the
        cost, and the index (re-rendered every few seconds while a tournament runs) shows none."""
        # Plain tuples, not sqlite-utils' dicts: the live index reads this every few seconds.
        done = "FROM matches m WHERE m.tournament = ? AND m.status = 'done'"
        run = self.db.conn.execute
        deals: dict[str, list[DealFacts]] = {}
        for match_id, winner, game_points, actions in run(
                "SELECT d.match_id, d.winner, d.game_points, d.actions FROM deals d "
                f"WHERE d.match_id IN (SELECT m.id {done}) ORDER BY d.match_id, d.idx", [tournament]):
            deals.setdefault(match_id, []).append(deal_facts(winner, game_points, actions or ""))
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
            match_facts(match_id, (seat0, seat1), winner, (score0, score1), deals.get(match_id, ()),
                         terms.get(match_id, ()), think.get(match_id, ((), ())))
            for match_id, seat0, seat1, winner, score0, score1 in matches
        ]

    def match_luck(self, tournament: str) -> dict[str, float]:
        """Seat 0's luck in every finished match, by match id, from its stored decks (docs/STATISTICS.md, "The
        luck-adjusted score"); seat 1's is its negative. Empty when the tournament's rules cannot be read.

        A finished match's deals never change, so its luck is kept: the live index, which asks every few
        seconds, computes only the matches finished since (it costs about 0.6 ms a match)."""
        row = self.db.conn.execute("SELECT rules, seed, created_at FROM tournaments WHERE name = ?",
                                   [tournament]).fetchone()
        rules = _rules_or_none(row[0]) if row else None
        if rules is None:
            return {}
        # (a tournament started afresh in the same file has new match ids or a new creation time)
        kept = self._luck.setdefault((str(row[0]), str(row[1]), str(row[2])), {})
        done = [r[0] for r in self.db.conn.execute(
            "SELECT id FROM matches WHERE tournament = ? AND status = 'done' ORDER BY ord", [tournament])]
        new = [match_id for match_id in done if match_id not in kept]
        deals: dict[str, list[LuckDeal]] = {}
        for start in range(0, len(new), 500):  # (SQLite's limit on a statement's parameters)
            batch = new[start:start + 500]
            for match_id, dealer, deck, actions, winner, game_points in self.db.conn.execute(
                    "SELECT match_id, dealer, deck, actions, winner, game_points FROM deals WHERE match_id IN "
                    f"({', '.join('?' * len(batch))}) ORDER BY match_id, idx", batch):
                deals.setdefault(match_id, []).append(
                    (dealer, _stored_cards(deck), _stored_actions(actions), winner, game_points))
        for match_id in new:  # (a match that ended before its first deal has no luck: 0)
            kept[match_id] = _match_luck(rules, deals.get(match_id, []))
        return {match_id: kept[match_id] for match_id in done}

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


_STORED_ACTIONS: dict[str, tuple[int, Action]] = {}  # a column's token -> its (seat, action)


def _stored_actions(actions: str | None) -> list[tuple[int, Action]]:
    """An actions column's (seat, action) pairs; none for a column that does not read (a damaged row's
    draws count no luck). Its few hundred tokens are kept parsed: a tournament's luck reads millions."""
    out = []
    known = _STORED_ACTIONS
    for token in (actions or "").split():
        pair = known.get(token)
        if pair is None:
            try:
                pair = parse_seat_actions(_action_texts(token))[0]
            except ValueError:
                return []
            if len(known) < 10_000:  # only damaged rows have more different tokens
                known[token] = pair
        out.append(pair)
    return out


def _stored_cards(deck: str | None) -> list[Card]:
    """A deck column's cards; none for a deck that does not read (a damaged row counts no luck)."""
    try:
        return parse_cards(_deck_text(deck or ""))
    except CardError:
        return []
