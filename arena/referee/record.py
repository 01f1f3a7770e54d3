"""MatchSpec, what the referee is asked to play, and MatchRecord, everything a finished match leaves behind:
plain data for the store, the reports and the worker processes. Termination names every way a bot's part
can be ended; a BotTermination is one that happened."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from arena.protocol.session import Termination as Termination  # (the protocol's names, for the record's users)


@dataclass
class BotTermination:
    """One termination that happened: which kind, to which seat's bot, why, and when."""

    kind: Termination
    seat: int
    bot: str
    detail: str
    line: str | None = None  # the offending line (capped), if a line caused it
    deal: int | None = None  # deal index, None before the first deal
    at_ms: float = 0.0  # time since the match started


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: what goes into the referee (a local slot, a worker process) and into the store.

    ``pairing`` is the two bots in the schedule's order; ``game`` 0 seats ``pairing[0]`` in seat 0, game 1
    swaps. ``deal_seed`` seeds the deals; ``match_seed`` any other random choice the referee makes for this
    match (e.g. a substituted random move). ``order`` is the position in the schedule (0-based).
    """

    match_id: str
    pairing: tuple[str, str]
    pair_index: int
    game: int
    seat0: str
    seat1: str
    deal_seed: int
    match_seed: int
    order: int

    @property
    def seats(self) -> tuple[str, str]:
        return self.seat0, self.seat1

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchSpec:
        return cls(**{**d, "pairing": tuple(d["pairing"])})


@dataclass
class MatchRecord:
    match_id: str
    bots: tuple[str, str]  # by seat
    rules: dict[str, Any]
    deal_seed: int
    match_seed: int
    winner: int | None = None  # seat; None only if abandoned
    score: tuple[int, int] = (0, 0)
    reason: Termination | Literal["target"] = "target"  # target, or the termination that decided the match
    deals: list[dict[str, Any]] = field(default_factory=list)
    terminations: list[BotTermination] = field(default_factory=list)
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
        d["terminations"] = [BotTermination(**{**t, "kind": Termination(t["kind"])})
                             for t in d.get("terminations", [])]
        if d.get("reason", "target") != "target":
            d["reason"] = Termination(d["reason"])
        for key in ("bots", "score", "substitutions", "think_ms", "transcripts", "stderr", "bot_info"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)
