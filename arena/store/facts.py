"""What the standings count of a finished match (arena.stats.standings' MatchFacts): `record_facts` for a
MatchRecord, which builds them itself (`MatchRecord.facts`); `Store.match_facts` reads the same from the rows
with the record's `match_facts` and `deal_facts`, so the two cannot disagree."""

from __future__ import annotations

from arena.referee.record import MatchRecord
from arena.stats.standings import MatchFacts


def record_facts(rec: MatchRecord) -> MatchFacts:
    """What the standings count of a finished match (`Store.match_facts` reads the same back)."""
    return rec.facts()
