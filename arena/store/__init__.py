"""The tournament database: saves finished matches and reads them back as typed rows; the only code that
knows the schema (docs/DATABASE.md).

Modules: store (`Store`, a context manager: ``with Store(path) as store:``), rows (the frozen values the reads
return: StoredMatch, StoredDeal, ...), codec (how transcripts, stderr, think times and deals are written into
their columns: compression and the marks of rebuilt lines), migrations (the schema's versions and the
conversions of older databases), facts (a match's luck, `record_luck`), ladder (`LadderStore`: the ladder's tables:
versions, pairs, hosts, rating history, tokens), lock (`RunLock`: one `arena run` per database;
`fresh_files`: what `--fresh` may delete) and errors (`OtherResults`, `DiskFull`)."""

from arena.store.errors import DiskFull, OtherResults, is_disk_full
from arena.store.facts import record_luck
from arena.store.lock import RunLock, fresh_files
from arena.store.migrations import MIGRATIONS, SCHEMA_VERSION
from arena.store.rows import StoredBot, StoredDeal, StoredMatch, StoredSeat, StoredTermination, StoredTournament
from arena.store.store import Store

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "DiskFull",
    "OtherResults",
    "RunLock",
    "Store",
    "StoredBot",
    "StoredDeal",
    "StoredMatch",
    "StoredSeat",
    "StoredTermination",
    "StoredTournament",
    "fresh_files",
    "is_disk_full",
    "record_luck",
]
