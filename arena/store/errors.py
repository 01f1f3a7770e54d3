"""The store's own errors: another tournament's results in the way (`OtherResults`), and a full disk
(`DiskFull`: one line, the committed matches kept, instead of a traceback)."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from arena.errors import StoreError

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
