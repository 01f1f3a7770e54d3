"""What the store's reads return: frozen values, one type per table (StoredTournament, StoredBot,
StoredMatch, StoredDeal, StoredTermination, StoredSeat), never rows keyed by column name, so nothing outside
arena.store knows the schema. Also a MatchSpec's own columns in ``matches``, both ways.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.game.cards import Card
from arena.referee.record import (
    TARGET,
    BotTermination,
    DealRecord,
    MatchResult,
    MatchSpec,
    Termination,
    parse_deck,
    parse_seat_actions,
)
from arena.store.codec import (
    _action_texts,
    _deck_text,
    _json,
)


def _spec_row(spec: MatchSpec) -> dict[str, Any]:
    return {
        "id": spec.match_id, "ord": spec.order, "bot_a": spec.pairing[0], "bot_b": spec.pairing[1],
        "pair_index": spec.pair_index, "game": spec.game, "seat0": spec.seat0, "seat1": spec.seat1,
        "deal_seed": spec.deal_seed, "match_seed": spec.match_seed,
    }


_SPEC_COLUMNS = "id, ord, bot_a, bot_b, pair_index, game, seat0, seat1, deal_seed, match_seed"


def _row_spec(row: dict[str, Any]) -> MatchSpec:
    return MatchSpec(match_id=row["id"], pairing=(row["bot_a"], row["bot_b"]), pair_index=row["pair_index"],
                     game=row["game"], seat0=row["seat0"], seat1=row["seat1"], deal_seed=row["deal_seed"],
                     match_seed=row["match_seed"], order=row["ord"])


# --------------------------------------------------------------------------------- what the reads return
@dataclass(frozen=True)
class StoredTournament:
    """The tournament (table ``tournaments``, docs/DATABASE.md)."""

    name: str
    config_path: str | None
    config_text: str | None  # the YAML file's full text at the time of the run
    config_hash: str | None
    variant: str | None
    rules: dict[str, Any]  # the resolved rule set; {} when the stored JSON cannot be read
    seed: int | None
    format: str | None
    total_matches: int | None
    created_at: str | None  # ISO 8601 UTC
    updated_at: str | None
    status: str  # "running" or "done"


@dataclass(frozen=True)
class StoredBot:
    """One bot of the tournament (table ``bots``)."""

    name: str
    command: str | None  # as written in the config
    argv: tuple[str, ...] | str  # the command as started; the stored text itself when it is not a JSON list
    hash: str | None  # fingerprint of what the command runs
    build_output: str | None
    kind: str = "bot"  # "bot", or "human": a person's seat in `arena serve`


@dataclass(frozen=True)
class StoredMatch:
    """One scheduled match (its MatchSpec, as `begin` stored it) and, once it is done, its result
    (table ``matches``)."""

    spec: MatchSpec
    status: str  # "pending", "running" or "done"
    winner: str | None  # None until done, and for an abandoned match
    winner_seat: int | None
    score: tuple[int | None, int | None]  # game points by seat
    reason: str | None  # "target", or the termination that decided the match
    termination: str | None  # that termination's kind and offender, when there is one
    terminated_bot: str | None
    deals: int | None  # deals played
    substitutions: tuple[int, int]  # random legal actions the referee played, by seat
    max_lag_ms: float | None
    started_at: str | None
    finished_at: str | None
    duration_s: float | None

    @property
    def match_id(self) -> str:
        return self.spec.match_id

    @property
    def seat0(self) -> str:
        return self.spec.seat0

    @property
    def seat1(self) -> str:
        return self.spec.seat1

    @property
    def seats(self) -> tuple[str, str]:
        return self.spec.seat0, self.spec.seat1

    @property
    def done(self) -> bool:
        return self.status == "done"

    @property
    def result(self) -> MatchResult:
        """The result as the record's type (a finished match's; the terminations are
        `Store.match_terminations`). A stored reason without its termination (a damaged row) counts as
        the target's."""
        return MatchResult(self.winner_seat, (self.score[0] or 0, self.score[1] or 0),
                           (self.reason or "") if self.termination else TARGET)


@dataclass(frozen=True)
class StoredDeal:
    """One deal of a match (table ``deals``); ``(rules, deck, dealer, actions)`` replays it."""

    idx: int
    dealer: int | None  # seat
    trump: str | None  # the turned trump card, e.g. "Ah"
    deck: str  # the shuffled deck, space-separated, in dealing order
    actions: tuple[str, ...]  # every action in order, "<seat>:<action token>" (arena.game.parse_seat_action)
    winner: int | None  # seat; None for a deal cut short by a forfeited match
    game_points: int | None
    reason: str | None  # how the deal ended (a DealEndReason's text, or "forfeit")
    points: tuple[int | None, int | None]  # card points by seat
    tricks: tuple[int | None, int | None]  # tricks by seat
    forfeit: bool  # the referee ended the deal for a violation

    def record(self) -> DealRecord:
        """The deal as the record's type; ValueError (a CardError for a card) naming what does not read."""
        decided = self.winner in (0, 1)
        return DealRecord(
            dealer=self.dealer if self.dealer in (0, 1) else 0, trump=Card.parse(self.trump or ""),
            deck=parse_deck(self.deck), actions=parse_seat_actions(self.actions),
            winner=self.winner if decided else None, game_points=self.game_points if decided else None,
            reason=self.reason or "", points=_pair(self.points) if decided else None,
            tricks=_pair(self.tricks) if decided else None,
        )

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredDeal:
        """A deal from a row of the deals table (a missing column reads as NULL)."""
        get = row.get
        return cls(
            idx=get("idx") or 0, dealer=get("dealer"), trump=get("trump"), deck=_deck_text(get("deck") or ""),
            actions=_action_texts(get("actions") or ""), winner=get("winner"), game_points=get("game_points"),
            reason=get("reason"), points=(get("points0"), get("points1")), tricks=(get("tricks0"), get("tricks1")),
            forfeit=bool(get("forfeit")),
        )


@dataclass(frozen=True)
class StoredTermination:
    """One violation (table ``terminations``; the kinds are listed in docs/PROTOCOL.md)."""

    match_id: str
    kind: str
    seat: int | None
    bot: str
    detail: str | None
    line: str | None  # the offending line (capped), if a line caused it
    deal: int | None  # deal index, None before the first deal
    at_ms: float | None  # since the match started

    def record(self) -> BotTermination:
        """The termination as the record's type; ValueError for a kind arena does not name."""
        return BotTermination(Termination(self.kind), self.seat if self.seat in (0, 1) else 0, self.bot,
                              self.detail or "", self.line, self.deal, self.at_ms or 0.0)


@dataclass(frozen=True)
class StoredSeat:
    """One seat of a match: its think times and handshake (table ``seats``) and its transcript
    (table ``transcripts``); a value the database lacks is None (or empty)."""

    seat: int
    bot: str | None
    decisions: int | None
    think_median_ms: float | None
    think_max_ms: float | None
    hello: dict[str, Any]  # the name and extras the bot gave in its handshake
    transcript: list[Any] | str  # the protocol lines ([ms, direction, text] each); the text if it is not a JSON list
    stderr: str
    think_ms: tuple[float, ...] = ()  # the think time of each decision it answered, in order (seats.think_ms)
    lines: int = 0  # how many lines its transcript has (also when `transcript` leaves some out)


def _pair(values: tuple[int | None, int | None]) -> tuple[int, int]:
    return values[0] or 0, values[1] or 0


def _stored_tournament(r: Mapping[str, Any]) -> StoredTournament:
    rules = _json(r.get("rules"), {})
    return StoredTournament(
        name=r["name"], config_path=r.get("config_path"), config_text=r.get("config_text"),
        config_hash=r.get("config_hash"), variant=r.get("variant"), rules=rules if isinstance(rules, dict) else {},
        seed=r.get("seed"), format=r.get("format"), total_matches=r.get("total_matches"),
        created_at=r.get("created_at"), updated_at=r.get("updated_at"), status=r.get("status") or "running",
    )


def _stored_bot(r: Mapping[str, Any]) -> StoredBot:
    argv = _json(r["argv"], [])
    return StoredBot(name=r["name"], command=r["command"], hash=r["hash"], build_output=r["build_output"],
                     kind=r.get("kind") or "bot",
                     argv=tuple(str(a) for a in argv) if isinstance(argv, list) else str(argv))


def _stored_match(r: dict[str, Any]) -> StoredMatch:
    return StoredMatch(
        spec=_row_spec(r), status=r["status"], winner=r["winner"], winner_seat=r["winner_seat"],
        score=(r["score0"], r["score1"]), reason=r["reason"], termination=r["termination"],
        terminated_bot=r["terminated_bot"], deals=r["deals"],
        substitutions=(r["substitutions0"] or 0, r["substitutions1"] or 0), max_lag_ms=r["max_lag_ms"],
        started_at=r["started_at"], finished_at=r["finished_at"], duration_s=r["duration_s"],
    )


def _stored_termination(r: Mapping[str, Any]) -> StoredTermination:
    return StoredTermination(match_id=r["match_id"], kind=r["kind"], seat=r["seat"], bot=r["bot"],
                             detail=r["detail"], line=r["line"], deal=r["deal"], at_ms=r["at_ms"])


def _stored_seat(seat: int, s: Mapping[str, Any], t: tuple[str | None, list[Any] | str, str],
                 think_ms: Sequence[float], count: int) -> StoredSeat:
    hello = _json(s.get("hello"), {})
    bot, lines, stderr = t
    return StoredSeat(
        seat=seat, bot=s.get("bot") or bot, decisions=s.get("decisions"),
        think_median_ms=s.get("think_median_ms"), think_max_ms=s.get("think_max_ms"),
        hello=hello if isinstance(hello, dict) else {}, transcript=lines, stderr=stderr,
        think_ms=tuple(think_ms), lines=count,
    )
