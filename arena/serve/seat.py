"""The web seat: a person's seat of the referee, as the browser sees it.

A WebSeat is what stands behind a ChannelBot (arena.referee.channel). It answers the handshake, decodes each
referee line with the protocol's codec, keeps the seat's picture of the game (built only from what the
referee sent this seat: its turn lines and its events, already filtered to the seat's view), and bumps a
version that the seat's WebSockets wait on, each then sending the newest state. A message from a browser is
checked (`WebSeat.act`) before anything reaches the referee: only a legal action of the current turn, on
this seat's turn, is written into the channel as the seat's reply.

Spectators get `public_state`: no hand, no known cards, no drawn cards.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import trio

from arena.game.actions import Action, ActionSyntaxError
from arena.protocol import messages as m
from arena.protocol.codec import RefereeProtocolError, decode_referee_line
from arena.referee.channel import ChannelBot, left

MAX_MESSAGE_BYTES = 1024  # a browser's message: {"type": "action", "action": "marry:Qh"} is 40 bytes
LOG_KEEP = 40  # events of the current deal kept for the page
CLIENT_TYPES = ("action", "ping")


class Watched:
    """A version number and an event that fires when it changes (each socket sends the newest state)."""

    def __init__(self) -> None:
        self.version = 0
        self._changed = trio.Event()

    def bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def wait_past(self, version: int) -> None:
        while self.version == version:
            await self._changed.wait()


@dataclass(frozen=True)
class Refusal:
    """Why a browser's message changed nothing: ``code`` for the page (which words it), ``detail`` in English."""

    code: str  # too-long | malformed | unknown-type | spectator | not-your-turn | illegal | over
    detail: str

    def message(self) -> str:
        return json.dumps({"type": "error", "code": self.code, "message": self.detail})


def ui_token(action: Action) -> str:
    """The protocol token as the page's buttons carry it: ``play:Th``, ``marry:Qh``, ``exchange``."""
    token = action.token()
    return "marry:" + token[len("marriage:"):] if token.startswith("marriage:") else token


def parse_ui_token(text: str) -> Action:
    """``marry:Qh`` and the protocol's own ``marriage:Qh`` alike. ActionSyntaxError when it is no action."""
    if text.startswith("marry:"):
        text = "marriage:" + text[len("marry:"):]
    return Action.parse(text)


class WebSeat:
    """One person's seat in one match."""

    def __init__(self, name: str, index: int, names: tuple[str, str], watched: Watched) -> None:
        self.name = name
        self.index = index  # the seat the room gives this person (the match line confirms it)
        self.names = names
        self.watched = watched  # the room's: a change here is news for its players and spectators
        self.channel: ChannelBot | None = None
        self.gone: str | None = None  # why the person is gone for good, once they are
        self.rules: dict[str, str] = {}
        self.score = [0, 0]
        self.deal = 0
        self.dealer: int | None = None
        self.hand: list[str] = []
        self.known: list[str] = []
        self.trump = ""
        self.trump_card: str | None = None
        self.talon: int | None = None
        self.closed_by: int | None = None
        self.points = [0, 0]
        self.pending = [0, 0]
        self.tricks = [0, 0]
        self.table: list[list[Any]] = []  # [seat, card] of the trick being played
        self.last_trick: dict[str, Any] | None = None
        self.legal: list[Action] = []
        self.deadline: float | None = None  # trio clock: when this seat's time for the turn runs out
        self.to_move: int | None = None
        self.log: list[dict[str, Any]] = []
        self.deals: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.note: str | None = None  # the referee's error line to this seat, if any
        self.started = False
        self.replay: str | None = None
        self.refused = 0

    # ------------------------------------------------------------------ the referee's side
    def connect(self) -> ChannelBot:
        """Player.connect: the channel the referee plays this seat through."""
        self.channel = ChannelBot(self.name, self.on_lines)
        if self.gone is not None:  # left before the match even began
            self.channel.put(left(self.gone))
        return self.channel

    def leave(self, detail: str) -> None:
        """The person is gone for good: the referee records a ``disconnect`` at the seat's next read."""
        if self.gone is not None or self.result is not None:
            return
        self.gone = detail
        if self.channel is not None:
            self.channel.put(left(detail))

    def on_lines(self, lines: Sequence[str]) -> None:
        for line in lines:
            try:
                msg = decode_referee_line(line)
            except RefereeProtocolError:  # the referee's own lines always decode; never let one stop it
                continue
            self._take(msg)
        self.watched.bump()

    def _take(self, msg: m.RefereeMessage) -> None:
        channel = self.channel
        assert channel is not None
        match msg:
            case m.Hello():
                channel.reply(f"bot 1.1 {self.name}")
            case m.MatchStart(_, seat, _, rules):
                self.index, self.rules, self.started = seat, rules, True
            case m.DealStart(index, dealer):
                self.deal, self.dealer = index + 1, dealer
                self.hand, self.known, self.table, self.last_trick, self.log = [], [], [], None, []
                self.points, self.pending, self.tricks = [0, 0], [0, 0], [0, 0]
                self.closed_by, self.trump_card, self.talon = None, None, None
                self.to_move = 1 - dealer
            case m.Turn(view, legal, time_ms, _):
                self._turn(view, legal, time_ms)
            case m.DealEnd(winner, gp, reason, points, score):
                self.score = list(score)
                self.points = list(points)
                self.deals.append({"deal": self.deal, "winner": winner, "game_points": gp, "reason": reason,
                                   "points": list(points), "score": list(score)})
                self._log({"kind": "deal-end", "seat": winner, "points": gp, "reason": reason})
                self._idle()
            case m.MatchEnd(winner, score, reason):
                self.score = list(score)
                self.result = {"winner": winner, "score": list(score), "reason": reason}
                self._idle()
            case m.Error(code, text):
                self.note = f"{code}: {text}"
                self._idle()
            case m.Quit():
                channel.exit()
            case _:
                self._event(msg)

    def _idle(self) -> None:
        self.legal, self.deadline, self.to_move = [], None, None

    def _turn(self, view: Any, legal: Sequence[Action], time_ms: int) -> None:
        me, other = self.index, 1 - self.index
        self.hand = [str(c) for c in view.hand]
        self.known = [str(c) for c in view.opponent_known]
        self.trump = view.trump_char
        self.trump_card = None if view.trump_card is None else str(view.trump_card)
        self.talon = view.talon_size
        self.closed_by = view.closed_by
        self.points[me], self.points[other] = view.points
        self.tricks[me], self.tricks[other] = view.tricks
        self.pending[me] = view.pending_marriage
        if view.opponent_pending is not None:
            self.pending[other] = view.opponent_pending
        self.score[me], self.score[other] = view.match_score
        self.legal = list(legal)
        self.deadline = trio.current_time() + time_ms / 1000
        self.to_move = me

    def _event(self, msg: Any) -> None:
        match msg:
            case m.Played(seat, card):
                if len(self.table) >= 2:
                    self.table = []
                self.table.append([seat, str(card)])
                if seat == self.index and str(card) in self.hand:
                    self.hand.remove(str(card))
                self.to_move = 1 - seat if len(self.table) == 1 else None
                self._log({"kind": "play", "seat": seat, "card": str(card)})
            case m.TrickWon(seat, points):
                self.last_trick = {"cards": self.table, "winner": seat, "points": points}
                self.table = []
                self.tricks[seat] += 1
                self.points[seat] += points + self.pending[seat]
                self.pending[seat] = 0
                self.to_move = seat
                self._log({"kind": "trick", "seat": seat, "points": points})
            case m.MarriageShown(seat, card, points):
                immediate = self.rules.get("marriage_credit", "immediate") == "immediate"
                if immediate and self.tricks[seat] > 0:
                    self.points[seat] += points
                else:
                    self.pending[seat] += points
                self._log({"kind": "marriage", "seat": seat, "card": str(card), "points": points})
            case m.Exchanged(seat, card):
                self._log({"kind": "exchange", "seat": seat, "card": str(card)})
            case m.Closed(seat):
                self.closed_by = seat
                self._log({"kind": "close", "seat": seat})
            case m.Drew(seat, card):
                if self.talon:
                    self.talon -= 1
                if card is not None and str(card) == self.trump_card:
                    self.trump_card = None
                if seat == self.index and card is not None:
                    self.hand.append(str(card))
                self._log({"kind": "draw", "seat": seat, "card": None if card is None else str(card)})
            case m.Declared(seat, points):
                self._log({"kind": "declare", "seat": seat, "points": points})

    def _log(self, entry: dict[str, Any]) -> None:
        self.log.append(entry)
        del self.log[:-LOG_KEEP]

    # ------------------------------------------------------------------ the browser's side
    def act(self, raw: str | bytes) -> Refusal | None:
        """Check one message from this seat's browser; write the action into the channel when it is a legal
        action of the current turn. None when accepted; else why it changed nothing."""
        if len(raw) > MAX_MESSAGE_BYTES:
            return self.refuse(Refusal("too-long", f"a message may be at most {MAX_MESSAGE_BYTES} bytes"))
        refusal, token = read_message(raw)
        if refusal is not None:
            return self.refuse(refusal)
        if token is None:  # a ping
            return None
        if self.result is not None or self.gone is not None:
            return self.refuse(Refusal("over", "the match is over"))
        if not self.legal or self.channel is None:
            return self.refuse(Refusal("not-your-turn", "it is not your turn"))
        try:
            action = parse_ui_token(token)
        except ActionSyntaxError:
            return self.refuse(Refusal("illegal", f"{token[:40]!r} is not an action"))
        if action not in self.legal:
            legal = ", ".join(ui_token(a) for a in self.legal)
            return self.refuse(Refusal("illegal", f"{ui_token(action)} is not legal now; legal: {legal}"))
        self.channel.reply(str(action))
        self.legal, self.deadline = [], None
        if action.card is not None and action.kind in ("play", "marriage"):
            self.to_move = None  # the echo of the play (with the next turn line) says who is next
        self.watched.bump()
        return None

    def refuse(self, refusal: Refusal) -> Refusal:
        self.refused += 1
        return refusal

    # ------------------------------------------------------------------ what a page is sent
    def state(self, phase: str) -> dict[str, Any]:
        """This seat's whole picture, for its own browser."""
        out = self.public_state(phase)
        clock = None if self.deadline is None else max(0, round((self.deadline - trio.current_time()) * 1000))
        out.update(seat=self.index, hand=self.hand, known=self.known, legal=[ui_token(a) for a in self.legal],
                   clock_ms=clock, note=self.note)
        out["log"] = self.log
        return out

    def public_state(self, phase: str) -> dict[str, Any]:
        """What anyone watching may see: no hand, no known cards, no drawn card."""
        return {
            "type": "state", "phase": phase, "seat": None, "names": list(self.names),
            "variant": self.rules.get("variant"), "target": _int_or_none(self.rules.get("match_target")),
            "deal": self.deal, "dealer": self.dealer, "score": self.score, "points": self.points,
            "pending": self.pending, "tricks": self.tricks, "trump": self.trump, "trump_card": self.trump_card,
            "talon": self.talon, "closed_by": self.closed_by, "table": self.table, "last_trick": self.last_trick,
            "to_move": self.to_move, "deals": self.deals, "result": self.result, "replay": self.replay,
            "log": [{**e, "card": None} if e["kind"] == "draw" else e for e in self.log],
            "hand": [], "known": [], "legal": [], "clock_ms": None, "note": None,
        }


def read_message(raw: str | bytes) -> tuple[Refusal | None, str | None]:
    """A browser's message: (refusal, None), or (None, the action token), or (None, None) for a ping."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return Refusal("malformed", "a message is a JSON object"), None
    if not isinstance(data, dict):
        return Refusal("malformed", "a message is a JSON object"), None
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        return Refusal("unknown-type", f"type is one of {', '.join(CLIENT_TYPES)}"), None
    if kind == "ping":
        return None, None
    token = data.get("action")
    if not isinstance(token, str):
        return Refusal("malformed", "an action message has an \"action\" string"), None
    return None, token


def _int_or_none(text: str | None) -> int | None:
    """A number of the match line (text on the wire) as the browser's first state gives it: a number."""
    try:
        return None if text is None else int(text)
    except ValueError:
        return None
