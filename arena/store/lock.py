"""What keeps a user's own commands from destroying a database: `RunLock` lets one `arena run` write a
database at a time, and `fresh_files` checks what `--fresh` is about to delete."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from arena.errors import StoreError
from arena.store.errors import DiskFull, is_disk_full
from arena.store.store import _read_only_connection


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
