"""The web seat: a person's seat of the referee, as the browser sees it.

A WebSeat is what stands behind a ChannelBot (arena.referee.channel). It answers the handshake, decodes each
referee line with the protocol's codec, keeps what the referee told this seat alone (the turn's legal
actions and clock, the end of the match), and bumps a version that the room's WebSockets wait on, each then
sending the newest state. A message from a browser is checked (`WebSeat.act`) before anything reaches the
referee: only a legal action of the current turn, on this seat's turn, is written into the channel as the
seat's reply. The table itself is drawn from the engine (arena.serve.table).
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
    """One person's seat in one match: the referee's side of it (the handshake, the turn's legal actions and
    clock, the end of the match) and the check of what the person's pages send. What the table shows is
    not kept here: every page is drawn from the engine (arena.serve.table) as soon as anything changes."""

    def __init__(self, name: str, index: int, watched: Watched) -> None:
        self.name = name
        self.index = index  # the seat the room gives this person (the match line confirms it)
        self.watched = watched  # the room's: a change here is news for its players and spectators
        self.channel: ChannelBot | None = None
        self.gone: str | None = None  # why the person is gone for good, once they are
        self.legal: list[Action] = []
        self.deadline: float | None = None  # trio clock: when this seat's time for the turn runs out
        self.result: dict[str, Any] | None = None
        self.note: str | None = None  # the referee's error line to this seat, if any
        self.started = False
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
            case m.MatchStart(_, seat, _, _):
                self.index, self.started = seat, True
            case m.Turn(_, legal, time_ms, _):
                self.legal = list(legal)
                self.deadline = trio.current_time() + time_ms / 1000
            case m.DealEnd():
                self._idle()
            case m.MatchEnd(winner, score, reason):
                self.result = {"winner": winner, "score": list(score), "reason": reason}
                self._idle()
            case m.Error(code, text):
                self.note = f"{code}: {text}"
                self._idle()
            case m.Quit():
                channel.exit()

    def _idle(self) -> None:
        self.legal, self.deadline = [], None

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
        self.watched.bump()
        return None

    def refuse(self, refusal: Refusal) -> Refusal:
        self.refused += 1
        return refusal

    def turn(self) -> dict[str, Any]:
        """What only this seat's own pages get besides the table: its legal moves, its clock, the referee's note."""
        clock = None if self.deadline is None else max(0, round((self.deadline - trio.current_time()) * 1000))
        return {"legal": [ui_token(a) for a in self.legal], "clock_ms": clock, "note": self.note}


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
