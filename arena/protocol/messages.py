"""Protocol v1 messages, one frozen dataclass per message. docs/PROTOCOL.md is the contract."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.views import SeatView

PROTOCOL_NAME = "arena"
VERSIONS = (1,)
MAX_LINE_BYTES = 4096


# ----------------------------------------------------------------- referee -> bot
@dataclass(frozen=True)
class Hello:
    versions: tuple[int, ...] = VERSIONS


@dataclass(frozen=True)
class MatchStart:
    match_id: str
    seat: int
    opponent: str
    rules: dict[str, str]  # every rule parameter, as protocol text (see codec.rules_to_wire)


@dataclass(frozen=True)
class DealStart:
    index: int
    dealer: int


@dataclass(frozen=True)
class Played:
    seat: int
    card: Card


@dataclass(frozen=True)
class MarriageShown:
    seat: int
    card: Card  # the card led
    points: int  # counted now or pending; 0 when void (declared before a won trick where that voids it)


@dataclass(frozen=True)
class Exchanged:
    seat: int
    card: Card  # the turned trump card the exchanger took


@dataclass(frozen=True)
class Closed:
    seat: int


@dataclass(frozen=True)
class TrickWon:
    seat: int
    points: int


@dataclass(frozen=True)
class Drew:
    seat: int
    card: Card | None  # None when the receiver may not see it


@dataclass(frozen=True)
class Declared:
    seat: int
    points: int


@dataclass(frozen=True)
class DealEnd:
    winner: int
    game_points: int
    reason: str  # kebab-case, e.g. reached-66
    points: tuple[int, int]  # by seat
    score: tuple[int, int]  # match score by seat after this deal


@dataclass(frozen=True)
class Turn:
    view: SeatView
    legal: tuple[Action, ...]
    time_ms: int
    bank_ms: int | None = None


@dataclass(frozen=True)
class MatchEnd:
    winner: int | None  # None if abandoned
    score: tuple[int, int]
    reason: str  # target, or the termination's name


@dataclass(frozen=True)
class Error:
    code: str
    text: str


@dataclass(frozen=True)
class Quit:
    pass


Event = Played | MarriageShown | Exchanged | Closed | TrickWon | Drew | Declared
RefereeMessage = (
    Hello | MatchStart | DealStart | Event | DealEnd | Turn | MatchEnd | Error | Quit
)


# ----------------------------------------------------------------- bot -> referee
@dataclass(frozen=True)
class BotHello:
    version: int
    name: str
    extras: dict[str, str] = field(default_factory=dict)  # author=..., version=...


@dataclass(frozen=True)
class Info:
    text: str


@dataclass(frozen=True)
class Reply:
    action: Action


BotMessage = BotHello | Info | Reply
