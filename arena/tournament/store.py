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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import StoreError
from arena.referee.record import MatchRecord


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


SQLITE_FULL = 13  # the primary result code; extended codes keep it in their low byte


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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            if is_disk_full(e):
                raise DiskFull(self.path.parent, e) from None
            raise StoreError(f"cannot create the directory {self.path.parent}: {e.strerror or e}") from None
        try:
            conn = sqlite3.connect(str(self.path), timeout=30)
            self.db = sqlite_utils.Database(conn)
            self.db.enable_wal()
            # WAL with synchronous=NORMAL: a crash of arena (or SIGKILL) never loses a committed match;
            # only a power cut may lose the last ones, which a resume then plays again.
            conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            if is_disk_full(e):
                raise DiskFull(self.path, e) from None
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
        unknown = done - {name for name, _ in MIGRATIONS}
        if unknown:
            raise StoreError(
                f"{self.path} was written by a newer arena (migrations {', '.join(sorted(unknown))}); upgrade arena"
            )
        for name, migrate in MIGRATIONS:
            if name not in done:
                with self._transaction():
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
        bots = list(bots)
        with self._transaction():
            if existing and existing[0]["config_hash"] != config_hash and not force:
                raise StoreError(
                    f"{self.path} holds tournament {name!r} played with a different configuration "
                    f"({config_path} changed since). Run again with --fresh to start over (the old results "
                    "are deleted), or --force to continue with the new configuration on purpose."
                )
            if existing and not force and self.count(name, "done"):
                # A program that changed between an interrupted run and its resume would mix two bots under
                # one name (within a run the referee catches it: `tampered`).
                stored = {r["name"]: r["hash"] for r in db.table("bots").rows_where("tournament = ?", [name])}
                changed = [b["name"] for b in bots if stored.get(b["name"]) not in (None, b["hash"])]
                if changed:
                    raise StoreError(
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
                db.table("bots").upsert({"tournament": name, **bot}, pk=("tournament", "name"))
            db.table("matches").insert_all(
                ({"tournament": name, "status": "pending", **row} for row in schedule), pk="id", ignore=True
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

    # ----------------------------------------------------------------- matches
    def pending(self, name: str) -> list[dict[str, Any]]:
        return list(self.db.table("matches").rows_where(
            "tournament = ? AND status != 'done'", [name], order_by="ord"))

    def count(self, name: str, status: str | None = None) -> int:
        if status is None:
            return self.db.table("matches").count_where("tournament = ?", [name])
        return self.db.table("matches").count_where("tournament = ? AND status = ?", [name, status])

    def mark_running(self, match_id: str) -> None:
        with self._transaction():
            self.db.table("matches").update(match_id, {"status": "running", "started_at": _now()})

    def save(self, rec: MatchRecord) -> None:
        """Store a finished match, all of it in one transaction."""
        db = self.db
        term = next((t for t in rec.terminations if t.kind == rec.reason), None)
        with self._transaction():
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
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
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
