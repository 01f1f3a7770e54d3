"""MatchRecord: everything a finished match leaves behind, as plain data for the store and reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

TERMINATIONS = (
    "handshake", "timeout", "malformed", "overlong", "encoding", "illegal", "unexpected", "crash", "disconnect",
    "tampered",
)


@dataclass
class Termination:
    kind: str  # one of TERMINATIONS
    seat: int
    bot: str
    detail: str
    line: str | None = None  # the offending line (capped), if a line caused it
    deal: int | None = None  # deal index, None before the first deal
    at_ms: float = 0.0  # time since the match started


@dataclass
class MatchRecord:
    match_id: str
    bots: tuple[str, str]  # by seat
    rules: dict[str, Any]
    deal_seed: int
    match_seed: int
    winner: int | None = None  # seat; None only if abandoned
    score: tuple[int, int] = (0, 0)
    reason: str = "target"  # target, or the kind of the termination that decided the match
    deals: list[dict[str, Any]] = field(default_factory=list)
    terminations: list[Termination] = field(default_factory=list)
    substitutions: tuple[int, int] = (0, 0)  # random legal actions the referee played for a seat
    think_ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    max_lag_ms: float = 0.0  # the referee's own worst measured scheduling lag (never charged to a bot)
    started_at: str = ""
    duration_s: float = 0.0
    transcripts: tuple[list[Any], list[Any]] = field(default_factory=lambda: ([], []))
    stderr: tuple[str, str] = ("", "")
    bot_info: tuple[dict[str, str], dict[str, str]] = field(default_factory=lambda: ({}, {}))

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.bots[self.winner]

    def to_dict(self) -> dict[str, Any]:
        # shallow: dataclasses.asdict deep-copies the transcripts (milliseconds per match for workers)
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["terminations"] = [asdict(t) for t in self.terminations]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchRecord:
        d = dict(d)
        d["terminations"] = [Termination(**t) for t in d.get("terminations", [])]
        for key in ("bots", "score", "substitutions", "think_ms", "transcripts", "stderr", "bot_info"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)
