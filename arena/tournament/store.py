"""The tournament database (SQLite through sqlite-utils). The schema is documented in docs/DATABASE.md.

One transaction per finished match: a match's rows (the match, its deals, terminations, seats and
transcripts) appear together or not at all, so a killed run never leaves half a result. WAL mode lets the
report be rendered while the runner writes. Schema changes are migrations, recorded in ``_migrations``.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import StoreError
from arena.referee.record import MatchRecord


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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


MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
]
SCHEMA_VERSION = len(MIGRATIONS)


class Store:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(self.path), timeout=30)
            self.db = sqlite_utils.Database(conn)
            self.db.enable_wal()
            # WAL with synchronous=NORMAL: a crash of arena (or SIGKILL) never loses a committed match;
            # only a power cut may lose the last ones, which a resume then plays again.
            conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable arena database ({e})") from None

    @classmethod
    def open_existing(cls, path: Path) -> Store:
        if not Path(path).is_file():
            raise StoreError(f"{path}: no such database")
        store = cls(path)
        if not store.db.table("tournaments").exists() or not store.db.table("tournaments").count:
            raise StoreError(f"{path}: holds no tournament")
        return store

    def close(self) -> None:
        self.db.conn.close()

    def _migrate(self) -> None:
        db = self.db
        if not db.table("_migrations").exists():
            db.table("_migrations").create({"name": str, "applied_at": str}, pk="name")
        done = {row["name"] for row in db.table("_migrations").rows}
        unknown = done - {name for name, _ in MIGRATIONS}
        if unknown:
            raise StoreError(
                f"{self.path} was written by a newer arena (migrations {', '.join(sorted(unknown))}); upgrade arena"
            )
        for name, migrate in MIGRATIONS:
            if name not in done:
                with db.conn:
                    migrate(db)
                    db.table("_migrations").insert({"name": name, "applied_at": _now()})

    # ----------------------------------------------------------------- tournaments
    def tournament(self, name: str | None = None) -> dict[str, Any]:
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
        schedule: Iterable[dict[str, Any]],
        bots: Iterable[dict[str, Any]],
        force: bool = False,
    ) -> None:
        """Record the tournament and its schedule, or check that the database holds this same tournament.

        Matches left 'running' by an interrupted run go back to 'pending': they are replayed from their seed.
        """
        db = self.db
        existing = list(db.table("tournaments").rows_where("name = ?", [name]))
        others = [r["name"] for r in db.table("tournaments").rows if r["name"] != name]
        if others:
            raise StoreError(
                f"{self.path} holds tournament {others[0]!r}, not {name!r}; use another output database "
                "or --fresh to start over"
            )
        schedule = list(schedule)
        with db.conn:
            if existing and existing[0]["config_hash"] != config_hash and not force:
                raise StoreError(
                    f"{self.path} holds tournament {name!r} played with a different configuration "
                    f"({config_path} changed since). Run again with --fresh to start over (the old results "
                    "are deleted), or --force to continue with the new configuration on purpose."
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
                db.table("bots").upsert({"tournament": name, **bot}, pk=("tournament", "name"))
            db.table("matches").insert_all(
                ({"tournament": name, "status": "pending", **row} for row in schedule), pk="id", ignore=True
            )
            db.execute("UPDATE matches SET status = 'pending' WHERE tournament = ? AND status = 'running'", [name])

    def finish(self, name: str) -> None:
        with self.db.conn:
            pending = self.count(name, "pending") + self.count(name, "running")
            self.db.table("tournaments").update(name, {"status": "done" if not pending else "running",
                                                 "updated_at": _now()})

    # ----------------------------------------------------------------- matches
    def pending(self, name: str) -> list[dict[str, Any]]:
        return list(self.db.table("matches").rows_where(
            "tournament = ? AND status != 'done'", [name], order_by="ord"))

    def count(self, name: str, status: str | None = None) -> int:
        if status is None:
            return self.db.table("matches").count_where("tournament = ?", [name])
        return self.db.table("matches").count_where("tournament = ? AND status = ?", [name, status])

    def mark_running(self, match_id: str) -> None:
        with self.db.conn:
            self.db.table("matches").update(match_id, {"status": "running", "started_at": _now()})

    def save(self, rec: MatchRecord) -> None:
        """Store a finished match, all of it in one transaction."""
        db = self.db
        term = next((t for t in rec.terminations if t.kind == rec.reason), None)
        with db.conn:
            for table in ("deals", "terminations", "seats", "transcripts"):
                db.execute(f"DELETE FROM {table} WHERE match_id = ?", [rec.match_id])
            db.table("deals").insert_all(
                {
                    "match_id": rec.match_id, "idx": i, "dealer": d["dealer"], "trump": d["trump"],
                    "deck": d["deck"], "actions": " ".join(a.replace(" ", ":") for a in d["actions"]),
                    "winner": d["winner"], "game_points": d["game_points"], "reason": d["reason"],
                    "points0": (d["points"] or [None, None])[0], "points1": (d["points"] or [None, None])[1],
                    "tricks0": (d["tricks"] or [None, None])[0], "tricks1": (d["tricks"] or [None, None])[1],
                    "forfeit": int(bool(d.get("forfeit"))),
                }
                for i, d in enumerate(rec.deals)
            )
            db.table("terminations").insert_all(
                {
                    "match_id": rec.match_id, "kind": t.kind, "seat": t.seat, "bot": t.bot, "detail": t.detail,
                    "line": t.line, "deal": t.deal, "at_ms": t.at_ms,
                }
                for t in rec.terminations
            )
            for seat in (0, 1):
                think = rec.think_ms[seat]
                db.table("seats").insert({
                    "match_id": rec.match_id, "seat": seat, "bot": rec.bots[seat], "think_ms": json.dumps(think),
                    "think_median_ms": statistics.median(think) if think else None,
                    "think_max_ms": max(think) if think else None, "decisions": len(think),
                    "hello": json.dumps(rec.bot_info[seat]),
                })
                db.table("transcripts").insert({
                    "match_id": rec.match_id, "seat": seat, "bot": rec.bots[seat],
                    "lines": json.dumps(rec.transcripts[seat]), "stderr": rec.stderr[seat],
                })
            db.table("matches").update(rec.match_id, {
                "status": "done", "winner": rec.winner_name, "winner_seat": rec.winner,
                "score0": rec.score[0], "score1": rec.score[1], "reason": rec.reason,
                "termination": term.kind if term else None, "terminated_bot": term.bot if term else None,
                "deals": len(rec.deals), "substitutions0": rec.substitutions[0],
                "substitutions1": rec.substitutions[1], "max_lag_ms": rec.max_lag_ms,
                "started_at": rec.started_at, "finished_at": _now(), "duration_s": rec.duration_s,
            })

    def results(self, name: str) -> list[dict[str, Any]]:
        return list(self.db.table("matches").rows_where("tournament = ? AND status = 'done'", [name], order_by="ord"))
