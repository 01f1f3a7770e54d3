"""The ladder's tables (docs/DATABASE.md, "The ladder"): its versions, duplicate pairs, which host played each
match, the rating history and the upload tokens. `LadderStore` is a `Store` with these reads and writes; the
ladder's matches themselves are ordinary rows of ``matches`` (tournament ``ladder``, format ``ladder``), so
the report, `arena transcript` and the replays read them as they read a tournament's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import StoreError
from arena.referee.record import MatchSpec
from arena.stats.ladder import LadderRating
from arena.store.rows import _spec_row
from arena.store.store import Store, _now

#: The one tournament a ladder database holds.
LADDER = "ladder"


@dataclass(frozen=True)
class LadderVersion:
    """One bot version (table ``ladder_versions``)."""

    key: str  # name@fingerprint[:12]
    program: str  # the bot's name
    author: str
    command: str  # as written
    argv: tuple[str, ...]  # as started
    cwd: str | None
    build: str | None
    fingerprint: str
    status: str  # pending (admission running), admitted, refused, retired
    reason: str  # why it was refused ("" otherwise)
    added_at: str
    since_pair: int | None  # the first rated pair that could choose it; None until a run first sees it
    until_pair: int | None  # retired: the first pair that could no longer choose it
    detail: str = ""  # the output behind a refusal (a build's, a check's): for its author's eyes only


@dataclass(frozen=True)
class LadderPair:
    """One duplicate pair (table ``ladder_pairs``): rated (with ``seq``), a challenge or a validation."""

    id: int
    seq: int | None
    kind: str  # rated, challenge, validation
    first: str
    second: str
    attempt: int  # 0, then one more each time it is voided and replayed
    status: str  # chosen (to play), done, void
    score: float | None  # first's match points over the two matches
    applied: bool  # its result is in the ratings (rated pairs, in seq order)


@dataclass(frozen=True)
class HistoryPoint:
    """A version's rating just after a rated pair it played was applied (table ``ladder_history``)."""

    seq: int
    rating: LadderRating


@dataclass(frozen=True)
class HostRate:
    """Per host (or worker): matches played and how many ended in a termination."""

    host: str
    matches: int
    terminations: int


def _version(r: dict[str, Any]) -> LadderVersion:
    return LadderVersion(r["key"], r["program"], r["author"] or "", r["command"], tuple(json.loads(r["argv"])),
                         r["cwd"], r["build"], r["fingerprint"], r["status"], r["reason"] or "", r["added_at"],
                         r["since_pair"], r["until_pair"], r.get("detail") or "")


def _pair(r: dict[str, Any]) -> LadderPair:
    return LadderPair(r["id"], r["seq"], r["kind"], r["first"], r["second"], r["attempt"], r["status"], r["score"],
                      bool(r["applied"]))


class LadderStore(Store):
    """A ladder database: `Store` plus the ladder's own tables."""

    # ------------------------------------------------------------------------------------ the ladder itself
    def init_ladder(self, rules: dict[str, Any], settings: dict[str, Any], seed: int) -> None:
        """Make this database a ladder with these rules and settings (the ``tournaments`` row, format
        ``ladder``; the settings as JSON in ``config_text``). StoreError if it holds anything already."""
        if self.db.table("tournaments").count:
            raise StoreError(f"{self.path} already holds {'a ladder' if self.is_ladder() else 'a tournament'}; "
                             "give another file to start a new ladder")
        with self._transaction():
            self.db.table("tournaments").insert({
                "name": LADDER, "config_path": "", "config_text": json.dumps(settings), "config_hash": "",
                "variant": rules.get("name", ""), "rules": json.dumps(rules), "seed": seed, "format": "ladder",
                "total_matches": 0, "created_at": _now(), "updated_at": _now(), "status": "running"}, pk="name")

    def is_ladder(self) -> bool:
        rows = list(self.db.query("SELECT format FROM tournaments WHERE name = ?", [LADDER]))
        return bool(rows) and rows[0]["format"] == "ladder"

    def ladder_settings(self) -> tuple[dict[str, Any], dict[str, Any], int]:
        """The ladder's rules, settings and seed; StoreError if the database is no ladder."""
        if not self.is_ladder():
            raise StoreError(f"{self.path} is not a ladder (make one with `arena ladder {self.path} init`)")
        row = self._tournament_row(LADDER)
        return json.loads(row["rules"]), json.loads(row["config_text"]), row["seed"]

    # ------------------------------------------------------------------------------------ versions
    def versions(self, status: str | None = None) -> list[LadderVersion]:
        """Every version in the order it was added (only those with ``status`` if given)."""
        where, args = ("WHERE status = ?", [status]) if status else ("", [])
        return [_version(r) for r in self.db.query(f"SELECT * FROM ladder_versions {where} ORDER BY rowid", args)]

    def version(self, key: str) -> LadderVersion | None:
        rows = list(self.db.query("SELECT * FROM ladder_versions WHERE key = ?", [key]))
        return _version(rows[0]) if rows else None

    def add_version(self, v: LadderVersion, build_output: str | None = None) -> None:
        """A new version, with what its build printed (kept with the ladder's bots, as a tournament's)."""
        with self._transaction():
            self.db.table("ladder_versions").insert({
                "key": v.key, "program": v.program, "author": v.author, "command": v.command,
                "argv": json.dumps(list(v.argv)), "cwd": v.cwd, "build": v.build, "fingerprint": v.fingerprint,
                "status": v.status, "reason": v.reason, "added_at": v.added_at, "since_pair": v.since_pair,
                "until_pair": v.until_pair, "detail": v.detail}, pk="key")
            if build_output is not None:
                self._upsert_bot(v, build_output)

    def decide_version(self, key: str, admitted: bool, reason: str = "", build_output: str | None = None,
                       detail: str = "") -> None:
        """The end of a version's admission: admitted (it becomes a bot of the ladder's ``bots``), or refused
        with a public ``reason`` and a ``detail`` for its author only."""
        v = self.version(key)
        assert v is not None
        with self._transaction():
            self.db.execute("UPDATE ladder_versions SET status = ?, reason = ?, detail = ?, decided_at = ? "
                            "WHERE key = ?", ["admitted" if admitted else "refused", reason, detail, _now(), key])
            if admitted:
                self._upsert_bot(v, build_output)

    def _upsert_bot(self, v: LadderVersion, build_output: str | None = None) -> None:
        """The version as a bot of the ladder; ``build_output`` None keeps what its build printed."""
        if build_output is None:
            row = self.db.execute("SELECT build_output FROM bots WHERE tournament = ? AND name = ?",
                                  [LADDER, v.key]).fetchone()
            build_output = row[0] if row else ""
        self.db.table("bots").upsert({
            "tournament": LADDER, "name": v.key, "command": v.command, "argv": json.dumps(list(v.argv)),
            "hash": v.fingerprint, "build_output": build_output or "", "kind": "bot"}, pk=("tournament", "name"))

    def set_detail(self, key: str, detail: str) -> None:
        with self._transaction():
            self.db.execute("UPDATE ladder_versions SET detail = ? WHERE key = ?", [detail, key])

    def swap_pending_reason(self, key: str, old: str, new: str) -> bool:
        """A pending version's reason set to ``new`` if it is still ``old`` (one writer wins); whether it was."""
        with self._transaction():
            cursor = self.db.execute("UPDATE ladder_versions SET reason = ? WHERE key = ? AND status = 'pending' "
                                     "AND reason = ?", [new, key, old])
        return cursor.rowcount == 1

    def forget_version(self, key: str) -> None:
        """A refused version's row, before the same program is checked again."""
        with self._transaction():
            self.db.execute("DELETE FROM ladder_versions WHERE key = ? AND status = 'refused'", [key])

    def record_refusal(self, name: str, author: str, command: str, reason: str, detail: str = "") -> str:
        """A submission refused before it was a program (its build failed, its command cannot start): kept
        under a key of its own, with the public reason and the detail its author alone may read."""
        # (the next rowid: unlike a count, never one a row already had, as versions refused before are forgotten)
        number = self.db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM ladder_versions").fetchone()[0]
        key = f"{name}.refused-{number}"
        self.add_version(LadderVersion(key, name, author, command, (), None, None, "", "refused",
                                       " ".join(reason.split())[:2000], _now(), None, None, detail))
        return key

    def place_new_versions(self, seq: int) -> list[str]:
        """Admitted versions no run has seen yet become choosable from rated pair ``seq`` on; each retires the
        earlier admitted version of its name. Returns their keys (in the order added)."""
        new = [v for v in self.versions("admitted") if v.since_pair is None]
        with self._transaction():
            for v in new:
                self.db.execute("UPDATE ladder_versions SET status = 'retired', until_pair = ? "
                                "WHERE program = ? AND status = 'admitted' AND key != ? AND since_pair IS NOT NULL",
                                [seq, v.program, v.key])
                self.db.execute("UPDATE ladder_versions SET since_pair = ? WHERE key = ?", [seq, v.key])
        return [v.key for v in new]

    # ------------------------------------------------------------------------------------ pairs
    def pairs(self, kind: str | None = "rated", status: str | None = None) -> list[LadderPair]:
        """Pairs of ``kind`` (all kinds for None), rated ones in seq order, the others in the order chosen."""
        where, args = ["1"], []
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        return [_pair(r) for r in self.db.query(
            f"SELECT * FROM ladder_pairs WHERE {' AND '.join(where)} ORDER BY coalesce(seq, -1), id", args)]

    def count_done_rated(self) -> int:
        row = self.db.execute("SELECT count(*) FROM ladder_pairs WHERE kind = 'rated' AND status = 'done'").fetchone()
        return int(row[0])

    def pair(self, pair_id: int) -> LadderPair:
        return _pair(next(iter(self.db.query("SELECT * FROM ladder_pairs WHERE id = ?", [pair_id]))))

    def next_seq(self) -> int:
        row = self.db.execute("SELECT max(seq) FROM ladder_pairs").fetchone()
        return 0 if row[0] is None else row[0] + 1

    def choose_pair(self, seq: int | None, kind: str, first: str, second: str) -> int:
        """Record a pair chosen to play (before it plays: a resumed run plays it as chosen). Its id."""
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO ladder_pairs (seq, kind, first, second, attempt, status, applied, chosen_at) "
                "VALUES (?, ?, ?, ?, 0, 'chosen', 0, ?)", [seq, kind, first, second, _now()])
            assert cur.lastrowid is not None
            return cur.lastrowid

    def schedule_match(self, pair_id: int, spec: MatchSpec, host: str) -> None:
        """A match of a pair, 'pending' until `save` stores it; replaced if it was scheduled before (a resumed
        run's second try at a match the first did not finish)."""
        with self._transaction():
            self.db.execute("DELETE FROM matches WHERE id = ? AND status != 'done'", [spec.match_id])
            self.db.table("matches").insert({"tournament": LADDER, "status": "pending", **_spec_row(spec)},
                                            pk="id", ignore=True)
            self.db.table("ladder_matches").upsert({"match_id": spec.match_id, "pair_id": pair_id, "host": host,
                                                    "void": 0}, pk="match_id")
            self.db.execute("UPDATE tournaments SET total_matches = (SELECT count(*) FROM matches "
                            "WHERE tournament = ?), updated_at = ? WHERE name = ?", [LADDER, _now(), LADDER])

    def match_done(self, match_id: str) -> tuple[str | None, tuple[str, str], float] | None:
        """A finished match's winner, seats and referee lag (ms); None if it is not finished."""
        row = self.db.execute("SELECT winner, seat0, seat1, max_lag_ms FROM matches WHERE id = ? AND status = 'done'",
                              [match_id]).fetchone()
        return None if row is None else (row[0], (row[1], row[2]), row[3] or 0.0)

    def finish_pair(self, pair_id: int, score: float) -> None:
        with self._transaction():
            self.db.execute("UPDATE ladder_pairs SET status = 'done', score = ?, finished_at = ? WHERE id = ?",
                            [score, _now(), pair_id])

    def void_attempt(self, pair_id: int, reason: str) -> None:
        """The pair's current attempt does not count (its matches are marked void); it is played again."""
        with self._transaction():
            self._void_rows(pair_id, reason)

    def _void_rows(self, pair_id: int, reason: str) -> None:
        self.db.execute("UPDATE ladder_matches SET void = 1 WHERE pair_id = ?", [pair_id])
        self.db.execute("UPDATE ladder_pairs SET attempt = attempt + 1, status = 'chosen', score = NULL, "
                        "applied = 0, void_reason = ? WHERE id = ?", [reason, pair_id])

    def void_host(self, host: str) -> list[int]:
        """Every rated pair a match of which ``host`` played is voided, to be played again (the ratings are
        rebuilt without them), in one transaction: a kill part-way leaves the ladder as it was. The ids of
        the pairs voided."""
        with self._transaction():
            ids = [r[0] for r in self.db.execute(
                "SELECT DISTINCT lm.pair_id FROM ladder_matches lm JOIN ladder_pairs p ON p.id = lm.pair_id "
                "WHERE lm.host = ? AND lm.void = 0 AND p.kind = 'rated'", [host])]
            for pair_id in ids:
                self._void_rows(pair_id, f"voided: played on {host}")
            if ids:
                self.db.execute("UPDATE ladder_pairs SET applied = 0 WHERE kind = 'rated'")
                self.db.execute("DELETE FROM ladder_history")
        return ids

    def host_rates(self) -> list[HostRate]:
        """Per host: the matches it played (not voided) and how many ended in a termination."""
        return [HostRate(r[0], r[1], r[2] or 0) for r in self.db.execute(
            "SELECT lm.host, count(*), sum(m.termination IS NOT NULL) FROM ladder_matches lm "
            "JOIN matches m ON m.id = lm.match_id WHERE m.status = 'done' AND lm.void = 0 "
            "GROUP BY lm.host ORDER BY lm.host")]

    # ------------------------------------------------------------------------------------ ratings
    def apply(self, pair_ids: Sequence[int], points: Iterable[tuple[int, LadderRating]]) -> None:
        """Mark rated pairs as applied and store the rating points computed after them, in one transaction."""
        with self._transaction():
            self.db.conn.executemany("UPDATE ladder_pairs SET applied = 1 WHERE id = ?", [(i,) for i in pair_ids])
            self.db.conn.executemany(
                "INSERT OR REPLACE INTO ladder_history (seq, key, rating, low, high, rank, rank_low, rank_high, "
                "provisional, pairs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(seq, r.key, r.rating, r.low, r.high, r.rank, r.rank_low, r.rank_high, int(r.provisional), r.pairs)
                 for seq, r in points])

    def latest_ratings(self) -> dict[str, LadderRating]:
        """Each version's rating after the last rated pair it played that was applied (its last history
        point): a rating moves only at its own pairs, so this is its rating now."""
        # (SQLite's bare columns with max(): the values come from the row of the greatest seq)
        return {r[0]: LadderRating(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in self.db.execute(
            "SELECT key, rating, low, high, rank, rank_low, rank_high, provisional, pairs, max(seq) "
            "FROM ladder_history GROUP BY key")}

    def history(self, key: str, points: int | None = None) -> list[HistoryPoint]:
        """A version's rating after each of its applied pairs, in order; with ``points``, about that many of
        them, evenly spaced, its last always among them (a chart of a semester's pairs needs no more)."""
        step = 1
        if points is not None:
            (count,) = self.db.execute("SELECT count(*) FROM ladder_history WHERE key = ?", [key]).fetchone()
            step = max(1, -(-count // points))
        # (a point's ``pairs`` counts the version's pairs, one more at each of its points: thinned in SQLite's C,
        # on the key's range of the primary key, before Python sees a row)
        rows = self.db.query(
            "SELECT * FROM ladder_history WHERE key = ? AND (pairs % ? = 0 OR seq = (SELECT max(seq) "
            "FROM ladder_history WHERE key = ?)) ORDER BY seq", [key, step, key])
        return [HistoryPoint(r["seq"], LadderRating(r["key"], r["rating"], r["low"], r["high"], r["rank"],
                                                    r["rank_low"], r["rank_high"], bool(r["provisional"]), r["pairs"]))
                for r in rows]

    def recent_matches(self, key: str, limit: int = 20) -> list[tuple[str, str, str, int, int, str, str]]:
        """A version's latest finished matches: (id, seat0, seat1, score0, score1, reason, pair kind). Each
        seat's latest from its own index (migration 007), so the cost does not grow with the ladder."""
        latest = ("SELECT * FROM (SELECT id, finished_at, ord FROM matches WHERE {seat} = ? AND status = 'done' "
                  "ORDER BY finished_at DESC LIMIT ?)")
        return [tuple(r) for r in self.db.execute(
            "SELECT m.id, m.seat0, m.seat1, m.score0, m.score1, m.reason, p.kind FROM "
            f"({latest.format(seat='seat0')} UNION ALL {latest.format(seat='seat1')}) AS r "
            "JOIN matches m ON m.id = r.id JOIN ladder_matches lm ON lm.match_id = m.id "
            "JOIN ladder_pairs p ON p.id = lm.pair_id ORDER BY m.finished_at DESC, m.ord DESC LIMIT ?",
            [key, limit, key, limit, limit])]

    # ------------------------------------------------------------------------------------ upload tokens
    def add_token(self, token_hash: str, author: str) -> None:
        with self._transaction():
            self.db.table("ladder_tokens").insert({"hash": token_hash, "author": author, "created_at": _now()},
                                                  pk="hash")

    def revoke_tokens(self, author: str) -> int:
        """Delete every upload token of ``author``; how many there were."""
        with self._transaction():
            return self.db.execute("DELETE FROM ladder_tokens WHERE author = ?", [author]).rowcount

    def name_owner(self, name: str) -> str | None:
        """Who a bot name belongs to: the author of its first version that was not refused (None: nobody's)."""
        row = self.db.execute("SELECT author FROM ladder_versions WHERE program = ? AND status != 'refused' "
                              "ORDER BY rowid LIMIT 1", [name]).fetchone()
        return None if row is None else row[0] or ""

    def token_author(self, token_hash: str) -> str | None:
        rows = list(self.db.query("SELECT author FROM ladder_tokens WHERE hash = ?", [token_hash]))
        return rows[0]["author"] if rows else None


def data_folder(db: Path) -> Path:
    """Where a ladder keeps uploaded bots: next to its database."""
    return db.with_name(db.name + ".files")
