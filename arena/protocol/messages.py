"""Protocol 1.x messages, one frozen dataclass per message. docs/PROTOCOL.md is the contract."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.views import SeatView

PROTOCOL_NAME = "arena"
MAX_LINE_BYTES = 4096

_VERSION = re.compile(r"([0-9]{1,9})(?:\.([0-9]{1,9}))?")  # ASCII digits: str.isdigit() also takes '²'


class Version(NamedTuple):
    """A protocol version, ``major.minor``. Its text drops a zero minor: ``1`` is 1.0 (what a 1.0 bot and
    referee write), ``1.1`` is 1.1; ``1.0`` is read as 1.0 too. Versions compare as numbers (1.1 < 1.10)."""

    major: int
    minor: int = 0

    def __str__(self) -> str:
        return str(self.major) if self.minor == 0 else f"{self.major}.{self.minor}"

    @classmethod
    def parse(cls, text: str) -> Version:
        """ValueError when ``text`` is not ``<major>`` or ``<major>.<minor>`` in ASCII digits."""
        m = _VERSION.fullmatch(text)
        if m is None:
            raise ValueError(f"{text!r} is not a protocol version like 1 or 1.1")
        return cls(int(m.group(1)), int(m.group(2) or 0))


V1_0 = Version(1, 0)
V1_1 = Version(1, 1)  # the turn line also carries taken, opp_taken, opp_pending and led_marriage
VERSIONS = (V1_0, V1_1)  # what the referee offers, in this order: `arena 1 1.1`


# ----------------------------------------------------------------- referee -> bot
@dataclass(frozen=True)
class Hello:
    versions: tuple[Version, ...] = VERSIONS


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
    version: Version  # the version the bot chose; it decides the form of its turn lines
    name: str
    extras: dict[str, str] = field(default_factory=dict)  # author=..., version=...


@dataclass(frozen=True)
class Info:
    text: str


@dataclass(frozen=True)
class Reply:
    action: Action


BotMessage = BotHello | Info | Reply
