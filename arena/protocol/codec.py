"""encode(message) -> line and decode(line) -> message for protocol 1.x. Pure: no I/O.

The version a bot chose in its handshake decides only the form of its ``turn`` lines: `encode` takes it
(1.0 by default), and a 1.0 bot gets exactly the lines it got before 1.1 existed.

Two error classes keep blame straight (the habit is h11's): BotProtocolError when a bot's line is wrong,
RefereeProtocolError when a referee's line is wrong (what the bot kit raises, or the referee when it is
asked to encode something impossible).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import fields as dc_fields

from arena.game.actions import TOKEN_OF_INTERNED, Action, ActionSyntaxError
from arena.game.cards import CARD_TEXT, SUITS, Card, CardError, cards_in
from arena.game.hand import Deal
from arena.game.hand import Event as GameEvent
from arena.game.variants import RuleSet
from arena.game.views import SeatView, drawn_card_seen
from arena.protocol.messages import (
    MAX_LINE_BYTES,
    PROTOCOL_NAME,
    V1_0,
    V1_1,
    BotHello,
    BotMessage,
    Closed,
    DealEnd,
    DealStart,
    Declared,
    Drew,
    Error,
    Event,
    Exchanged,
    Hello,
    Info,
    MarriageShown,
    MatchEnd,
    MatchStart,
    Played,
    Quit,
    RefereeMessage,
    Reply,
    TrickWon,
    Turn,
    Version,
)


class ProtocolError(ValueError):
    """A line that is not valid protocol 1.x. ``code`` is the error code sent in ``error <code> ...``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BotProtocolError(ProtocolError):
    """The bot broke the protocol (bad syntax, bad UTF-8, over-long line, unknown message)."""


class RefereeProtocolError(ProtocolError):
    """The referee broke the protocol (seen from a bot), or was asked to encode an invalid message."""


_TOKEN = re.compile(r"[^\s=,]+")
NONE = "-"


# ----------------------------------------------------------------- helpers
def _cards(cards: tuple[Card, ...] | list[Card]) -> str:
    return ",".join(map(str, cards)) if cards else NONE


def _card_or_none(card: Card | None) -> str:
    return NONE if card is None else str(card)


def _parse_cards(text: str, err: type[ProtocolError]) -> tuple[Card, ...]:
    if text == NONE:
        return ()
    try:
        return tuple(Card.parse(t) for t in text.split(","))
    except CardError as e:
        raise err("malformed", str(e)) from None


def _parse_card(text: str, err: type[ProtocolError]) -> Card | None:
    if text == NONE:
        return None
    try:
        return Card.parse(text)
    except CardError as e:
        raise err("malformed", str(e)) from None


def _int(text: str, err: type[ProtocolError], what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise err("malformed", f"{what}: {text!r} is not an integer") from None


def _pair(text: str, err: type[ProtocolError], what: str) -> tuple[int, int]:
    a, sep, b = text.partition(",")
    if not sep:
        raise err("malformed", f"{what}: expected two integers like 3,5, got {text!r}")
    return (_int(a, err, what), _int(b, err, what))


def rules_to_wire(rules: RuleSet) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in dc_fields(rules):
        v = getattr(rules, f.name)
        key = "variant" if f.name == "name" else f.name
        if isinstance(v, bool):
            out[key] = "true" if v else "false"
        elif isinstance(v, tuple):
            out[key] = ",".join(map(str, v))
        else:
            out[key] = str(v)
    return out


def _kv(tokens: list[str], err: type[ProtocolError]) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tokens:
        k, sep, v = t.partition("=")
        if not sep or not k:
            raise err("malformed", f"expected key=value, got {t!r}")
        out[k] = v
    return out


# ----------------------------------------------------------------- encode
def encode(msg: RefereeMessage | BotMessage, version: Version = V1_0) -> str:
    """One protocol line, without the newline. ``version``: the version the receiving bot chose in its
    handshake; from 1.1 on a ``turn`` line carries more keys (docs/PROTOCOL.md, "What changed in 1.1")."""
    match msg:
        case Hello(versions):
            return f"{PROTOCOL_NAME} " + " ".join(map(str, versions))
        case MatchStart(match_id, seat, opponent, rules):
            for token in (match_id, opponent):
                if not _TOKEN.fullmatch(token):
                    raise RefereeProtocolError("internal", f"{token!r} cannot be sent as one token")
            kv = "".join(f" {k}={v}" for k, v in rules.items())
            return f"match {match_id} seat={seat} opponent={opponent}{kv}"
        case DealStart(index, dealer):
            return f"deal {index} dealer={dealer}"
        case Played(seat, card):
            return f"play {seat} {card}"
        case MarriageShown(seat, card, points):
            return f"marriage {seat} {card} {points}"
        case Exchanged(seat, card):
            return f"exchange {seat} {card}"
        case Closed(seat):
            return f"close {seat}"
        case TrickWon(seat, points):
            return f"trick {seat} {points}"
        case Drew(seat, card):
            return f"draw {seat} {'?' if card is None else card}"
        case Declared(seat, points):
            return f"declare {seat} {points}"
        case DealEnd(winner, gp, reason, points, score):
            return f"deal-end {winner} {gp} {reason.replace(' ', '-')} {points[0]},{points[1]} {score[0]},{score[1]}"
        case Turn(view, legal, time_ms, bank_ms):
            return _encode_turn(view, legal, time_ms, bank_ms, version)
        case MatchEnd(winner, score, reason):
            w = NONE if winner is None else str(winner)
            return f"match-end {w} {score[0]},{score[1]} {reason.replace(' ', '-')}"
        case Error(code, text):
            return " ".join(["error", code, *text.split()])
        case Quit():
            return "quit"
        case BotHello(version, name, extras):
            kv = "".join(f" {k}={v}" for k, v in extras.items())
            return f"bot {version} {name}{kv}"
        case Info(text):
            return f"info {text}"
        case Reply(action):
            return str(action)
    raise RefereeProtocolError("internal", f"cannot encode {msg!r}")


def _encode_turn(v: SeatView, legal: tuple[Action, ...], time_ms: int, bank_ms: int | None,
                 version: Version) -> str:
    marriages = ",".join(f"{s}{SUITS[suit]}" for s, suit in v.marriages) or NONE
    # 1.1's keys sit next to the 1.0 keys they complete; a 1.0 line is exactly what 1.0 always sent
    led_marriage = pending = taken = ""
    if version >= V1_1:
        if v.taken is None or v.opponent_pending is None or v.led_marriage is None:
            raise RefereeProtocolError("internal", "a 1.1 turn line needs a view with taken, opponent_pending "
                                                   "and led_marriage")
        led_marriage = f" led_marriage={'true' if v.led_marriage else 'false'}"
        pending = f" opp_pending={v.opponent_pending}"
        taken = f" taken={_cards(v.taken[0])} opp_taken={_cards(v.taken[1])}"
    return (
        f"turn seat={v.seat} hand={_cards(v.hand)} trump={SUITS[v.trump_suit]} "
        f"turned={_card_or_none(v.trump_card)} talon={v.talon_size} "
        f"closed={NONE if v.closed_by is None else v.closed_by} led={_card_or_none(v.led)}{led_marriage} "
        f"leader={v.leader} dealer={v.dealer} points={v.points[0]} opp_points={v.points[1]} "
        f"pending={v.pending_marriage}{pending} tricks={v.tricks[0]} opp_tricks={v.tricks[1]} "
        f"marriages={marriages} played={_cards(v.played)}{taken} known={_cards(v.opponent_known)} "
        f"score={v.match_score[0]} opp_score={v.match_score[1]} "
        f"time={time_ms} bank={NONE if bank_ms is None else bank_ms} "
        f"legal={','.join(a.token() for a in legal)}"
    )


# ----------------------------------------------------------------- the referee's turn line, from the deal
# `turn_line` writes what ``encode(Turn(deal.view(seat, score), ...))`` writes, without building the view:
# the referee sends one per decision, and the view's tuples of cards and its 20-field dataclass were most of
# its cost. Card lists come from their bit masks through a cache (a tournament repeats the same hands).
_MASK_TEXT: dict[int, str] = {0: NONE}


def _mask_text(mask: int) -> str:
    text = _MASK_TEXT.get(mask)
    if text is None:
        if len(_MASK_TEXT) > 200_000:
            _MASK_TEXT.clear()
            _MASK_TEXT[0] = NONE
        text = _MASK_TEXT[mask] = ",".join([str(c) for c in cards_in(mask)])
    return text


def _legal_text(legal: Sequence[Action]) -> str:
    try:
        return ",".join(map(TOKEN_OF_INTERNED.__getitem__, map(id, legal)))  # no Python frame per action
    except KeyError:  # an action made elsewhere than arena.game.actions
        return ",".join([a.token() for a in legal])


def turn_line(deal: Deal, seat: int, match_score: tuple[int, int], legal: Sequence[Action], time_ms: int,
              bank_ms: int | None, version: Version = V1_0) -> str:
    """The ``turn`` line for ``seat`` of ``deal``: the same text as
    ``encode(Turn(deal.view(seat, match_score), tuple(legal), time_ms, bank_ms), version)``, built faster."""
    other = 1 - seat
    talon = deal.talon
    face_up = deal.face_up_card()
    turned = NONE if face_up is None else CARD_TEXT[face_up]
    led = deal.led
    marriages = ",".join([f"{s}{SUITS[suit]}" for s, suit in deal.marriages]) if deal.marriages else NONE
    pending = deal.pending_marriage
    tricks = deal.tricks
    hands = deal.hands
    masks = _MASK_TEXT
    hand = masks.get(hands[seat]) or _mask_text(hands[seat])
    played = masks.get(deal.played_mask) or _mask_text(deal.played_mask)
    known_mask = deal.opponent_known_mask(seat)
    known = masks.get(known_mask) or _mask_text(known_mask)
    led_marriage = opp_pending = taken = ""
    if version >= V1_1:
        led_marriage = " led_marriage=true" if deal.led_marriage else " led_marriage=false"
        opp_pending = f" opp_pending={pending[other]}"
        taken = f" taken={_mask_text(deal.taken[seat])} opp_taken={_mask_text(deal.taken[other])}"
    return (
        f"turn seat={seat} hand={hand} trump={SUITS[deal.trump]} turned={turned} talon={len(talon)} "
        f"closed={NONE if deal.closed_by is None else deal.closed_by} led={NONE if led is None else CARD_TEXT[led]}"
        f"{led_marriage} leader={deal.leader} dealer={deal.dealer} points={deal.total(seat)} "
        f"opp_points={deal.total(other)} pending={pending[seat]}{opp_pending} tricks={tricks[seat]} "
        f"opp_tricks={tricks[other]} marriages={marriages} played={played}{taken} known={known} "
        f"score={match_score[0]} opp_score={match_score[1]} "
        f"time={time_ms} bank={NONE if bank_ms is None else bank_ms} "
        f"legal={_legal_text(legal)}"
    )




# ----------------------------------------------------------------- engine events as one seat sees them
def event_message(ev: GameEvent, viewer: int, face_up: Card | None) -> Event | None:
    """The protocol event for one engine event, as seat ``viewer`` may see it; None for deal-end, which
    goes out as its own message with the match score. ``face_up``: the talon's face-up card when the event
    happened (``Deal.trump_card``); what a seat sees of a draw is the game's rule, `drawn_card_seen`."""
    card = ev.card
    match ev.kind:
        case "play" if card is not None:
            return Played(ev.seat, card)
        case "marriage" if card is not None:
            return MarriageShown(ev.seat, card, ev.points)
        case "exchange" if card is not None:
            return Exchanged(ev.seat, card)
        case "close":
            return Closed(ev.seat)
        case "trick":
            return TrickWon(ev.seat, ev.points)
        case "draw" if card is not None:
            return Drew(ev.seat, drawn_card_seen(card, ev.seat, viewer, face_up))
        case "declare":
            return Declared(ev.seat, ev.points)
        case "deal-end":
            return None
    raise RefereeProtocolError("internal", f"cannot send engine event {ev}")


# ----------------------------------------------------------------- lines from a bot

EVENT_LINES: dict[tuple[GameEvent, Card | None], tuple[str | None, str | None]] = {}


def event_lines(ev: GameEvent, face_up: Card | None) -> tuple[str | None, str | None]:
    """``encode(event_message(ev, viewer, face_up))`` for viewer 0 and 1 (None for no line), remembered in
    ``EVENT_LINES``: a tournament sends the same few thousand event lines over and over (the referee looks
    there first), and the store rebuilds them (arena.referee.script)."""
    pair = EVENT_LINES.get((ev, face_up))
    if pair is None:
        msgs = (event_message(ev, 0, face_up), event_message(ev, 1, face_up))
        pair = (None if msgs[0] is None else encode(msgs[0]), None if msgs[1] is None else encode(msgs[1]))
        if len(EVENT_LINES) > 50_000:
            EVENT_LINES.clear()
        EVENT_LINES[(ev, face_up)] = pair
    return pair

def decode_bot_line(line: str) -> BotMessage:
    """Decode one line a bot wrote (already split and UTF-8 decoded). Raises BotProtocolError."""
    line = line.rstrip("\r\n").rstrip(" \t\r")
    if not line:
        raise BotProtocolError("malformed", "empty line")
    head, _, rest = line.partition(" ")
    if head == "info":
        return Info(rest)
    if head == "bot":
        parts = rest.split(" ")
        try:
            version = Version.parse(parts[0])
        except ValueError:
            version = None
        if len(parts) < 2 or version is None or not _TOKEN.fullmatch(parts[1]):
            raise BotProtocolError(
                "handshake",
                "expected 'bot <version> <name> [key=value ...]' (version: 1 or 1.1; name: one token without "
                f"'=' or ','), got {line!r}",
            )
        try:
            extras = _kv(parts[2:], BotProtocolError)
        except BotProtocolError as e:
            raise BotProtocolError("handshake", str(e)) from None
        return BotHello(version, parts[1], extras)
    try:
        return Reply(Action.parse(line))  # ``play Th`` or its token form ``play:Th``
    except ActionSyntaxError as e:
        raise BotProtocolError("malformed", str(e)) from None


def decode_bot_bytes(raw: bytes) -> BotMessage:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BotProtocolError("encoding", f"line is not valid UTF-8 ({e.reason} at byte {e.start})") from None
    return decode_bot_line(text)


# ----------------------------------------------------------------- lines from the referee (for bots)
def decode_referee_line(line: str) -> RefereeMessage:
    """Decode a referee line (what a bot reads). Raises RefereeProtocolError."""
    err = RefereeProtocolError
    line = line.rstrip("\r\n")
    tokens = line.split(" ")
    head, args = tokens[0], tokens[1:]
    try:
        if head == PROTOCOL_NAME:
            return Hello(tuple(_version(a, err) for a in args))
        if head == "match":
            kv = _kv(args[1:], err)
            seat = _int(kv.pop("seat"), err, "seat")
            opponent = kv.pop("opponent")
            return MatchStart(args[0], seat, opponent, kv)
        if head == "deal":
            return DealStart(_int(args[0], err, "deal"), _int(_kv(args[1:], err)["dealer"], err, "dealer"))
        if head == "turn":
            return _decode_turn(_kv(args, err))
        if head == "deal-end":
            return DealEnd(
                _int(args[0], err, "winner"), _int(args[1], err, "game points"), args[2],
                _pair(args[3], err, "points"), _pair(args[4], err, "score"),
            )
        if head == "match-end":
            w = None if args[0] == NONE else _int(args[0], err, "winner")
            return MatchEnd(w, _pair(args[1], err, "score"), args[2])
        if head == "error":
            return Error(args[0], " ".join(args[1:]))
        if head == "quit":
            return Quit()
        if head not in _EVENT_HEADS:
            raise err("malformed", f"unknown message {head!r}")
        seat = _int(args[0], err, "seat")
        if head == "play":
            return Played(seat, Card.parse(args[1]))
        if head == "marriage":
            return MarriageShown(seat, Card.parse(args[1]), _int(args[2], err, "points"))
        if head == "exchange":
            return Exchanged(seat, Card.parse(args[1]))
        if head == "close":
            return Closed(seat)
        if head == "trick":
            return TrickWon(seat, _int(args[1], err, "points"))
        if head == "draw":
            return Drew(seat, None if args[1] == "?" else Card.parse(args[1]))
        if head == "declare":
            return Declared(seat, _int(args[1], err, "points"))
    except (IndexError, KeyError):
        raise err("malformed", f"{head}: a field is missing in {line!r}") from None
    except CardError as e:
        raise err("malformed", str(e)) from None
    raise err("malformed", f"unknown message {head!r}")


_EVENT_HEADS = frozenset({"play", "marriage", "exchange", "close", "trick", "draw", "declare"})


def _version(text: str, err: type[ProtocolError]) -> Version:
    try:
        return Version.parse(text)
    except ValueError as e:
        raise err("malformed", str(e)) from None


def _bool(text: str, err: type[ProtocolError], what: str) -> bool:
    if text not in ("true", "false"):
        raise err("malformed", f"{what}: expected true or false, got {text!r}")
    return text == "true"


def _suit(text: str, err: type[ProtocolError]) -> int:
    if len(text) != 1 or text not in SUITS:
        raise err("malformed", f"{text!r} is not a suit (one of {' '.join(SUITS)})")
    return SUITS.index(text)


def _decode_turn(kv: dict[str, str]) -> Turn:
    err = RefereeProtocolError
    marriages = []
    if kv["marriages"] != NONE:
        for m in kv["marriages"].split(","):
            marriages.append((_int(m[:-1], err, "marriage seat"), _suit(m[-1:], err)))
    closed = None if kv["closed"] == NONE else _int(kv["closed"], err, "closed")
    # 1.1's keys: absent from a 1.0 line, where the view holds None for them
    taken = None
    if "taken" in kv or "opp_taken" in kv:
        taken = (_parse_cards(kv["taken"], err), _parse_cards(kv["opp_taken"], err))
    opp_pending = _int(kv["opp_pending"], err, "opp_pending") if "opp_pending" in kv else None
    led_marriage = _bool(kv["led_marriage"], err, "led_marriage") if "led_marriage" in kv else None
    view = SeatView(
        seat=_int(kv["seat"], err, "seat"),
        hand=_parse_cards(kv["hand"], err),
        trump_suit=_suit(kv["trump"], err),
        trump_card=_parse_card(kv["turned"], err),
        talon_size=_int(kv["talon"], err, "talon"),
        closed=closed is not None,
        closed_by=closed,
        led=_parse_card(kv["led"], err),
        leader=_int(kv["leader"], err, "leader"),
        dealer=_int(kv["dealer"], err, "dealer"),
        points=(_int(kv["points"], err, "points"), _int(kv["opp_points"], err, "opp_points")),
        pending_marriage=_int(kv["pending"], err, "pending"),
        tricks=(_int(kv["tricks"], err, "tricks"), _int(kv["opp_tricks"], err, "opp_tricks")),
        marriages=tuple(marriages),
        played=_parse_cards(kv["played"], err),
        opponent_known=_parse_cards(kv["known"], err),
        match_score=(_int(kv["score"], err, "score"), _int(kv["opp_score"], err, "opp_score")),
        taken=taken,
        opponent_pending=opp_pending,
        led_marriage=led_marriage,
    )
    try:
        legal = tuple(Action.parse(t) for t in kv["legal"].split(","))
    except ActionSyntaxError as e:
        raise err("malformed", str(e)) from None
    bank = None if kv["bank"] == NONE else _int(kv["bank"], err, "bank")
    return Turn(view, legal, _int(kv["time"], err, "time"), bank)


# ----------------------------------------------------------------- raw bytes -> lines
class LineSplitter:
    """Feed raw bytes from a pipe; get complete lines back. Enforces the length limit on raw bytes, so a
    bot that writes megabytes without a newline is caught at MAX_LINE_BYTES, not after filling memory."""

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self.max_line = max_line
        self._buf = bytearray()

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Complete lines (without the newline). Raises BotProtocolError('overlong') past the limit."""
        if data and not self._buf and data.find(b"\n") == len(data) - 1 and len(data) <= self.max_line:
            return [bytes(data[:-1])]  # the usual read: exactly one short, complete line
        self._buf += data
        lines: list[bytes] = []
        start = 0
        buf = self._buf
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            end = nl - 1 if nl > start and buf[nl - 1] == 13 else nl  # a \r\n ending does not count
            if end - start > self.max_line:
                raise BotProtocolError("overlong", f"line longer than {self.max_line} bytes")
            lines.append(bytes(buf[start:nl]))
            start = nl + 1
        del buf[:start]
        if len(buf) > self.max_line:
            raise BotProtocolError("overlong", f"line longer than {self.max_line} bytes (no newline yet)")
        return lines

    @property
    def pending(self) -> bytes:
        return bytes(self._buf)
