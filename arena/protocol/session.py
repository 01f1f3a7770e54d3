"""The referee's side of one bot's conversation, as a state machine with no I/O (the habit is h11's).

The referee tells the session what it asked (`asked_hello`, `asked_turn`), hands it each line the bot wrote
(`receive`: the raw bytes as one line, without its newline), and tells it when the bot's answer did not come
(`no_answer`) or its stream ended (`ended`). The session says what each line means at that moment: a
`BotHello` that completes the handshake, the legal `Action` that answers a turn, `Info` commentary, or a
`Violation` naming the termination, with the words every transcript and report shows. Pipes, clocks and
processes stay in arena.referee; the rules of the conversation are all here, and are tested without a bot
(tests/test_protocol_session.py).

What the bot may write when:
- before it was asked anything, and between a reply and the next question: only ``info`` lines;
- after the hello (``arena 1 1.1``): ``bot <version> <name>`` with a version the referee offered;
- after a ``turn`` line: one action, legal now.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, StrEnum

from arena.game.actions import Action
from arena.protocol import messages as m
from arena.protocol.codec import BotProtocolError, decode_bot_bytes

__all__ = ["Expect", "ProtocolSession", "Termination", "Violation"]


class Termination(StrEnum):
    """Every way a bot's part in a match can be ended by the referee (docs/PROTOCOL.md, "Terminations").

    The value is the name everywhere: the ``error <code>`` line the bot is sent, the database, the reports,
    and a match's ``reason`` when the termination decided it.
    """

    HANDSHAKE = "handshake"  # no valid `bot <version> <name>` line in time, or a version not offered
    TIMEOUT = "timeout"  # no reply within the time for the decision (and the bank)
    MALFORMED = "malformed"  # a line that is not a message, or not the one asked for
    OVERLONG = "overlong"  # a line over the protocol's length limit
    ENCODING = "encoding"  # a line that is not valid UTF-8
    ILLEGAL = "illegal"  # a well-formed action that is not legal now
    UNEXPECTED = "unexpected"  # a reply when no decision was asked for
    CRASH = "crash"  # the process could not start, exited or was killed while the referee needed it
    DISCONNECT = "disconnect"  # the bot closed its stdout (or stdin) while its process lived on
    TAMPERED = "tampered"  # the bot's program changed on disk since the run began; it is not started


class Violation(Exception):
    """The bot broke the protocol or the rules; ``kind`` is the termination, ``line`` the offending line."""

    def __init__(self, kind: Termination, detail: str, line: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.line = line


class Expect(Enum):
    """What the referee is waiting for from the bot."""

    NOTHING = "nothing"
    HELLO = "handshake"
    REPLY = "turn"


ONLY_INFO = " (only info lines)"  # how a timeout's detail ends when the bot wrote commentary but no answer
_SHOWN = 200  # bytes of an offending line a termination keeps


def shown(raw: bytes) -> str:
    """A line as a termination records it: decoded leniently and capped."""
    return raw[:_SHOWN].decode("utf-8", "replace")


class ProtocolSession:
    """One bot's conversation with the referee: what was asked, and what a line from the bot means now."""

    __slots__ = ("expect", "hello", "legal")

    def __init__(self) -> None:
        self.expect = Expect.NOTHING
        self.hello: m.BotHello | None = None  # the bot's answer to the handshake, once it gave one
        self.legal: Sequence[Action] = ()  # the actions the current turn allows

    @property
    def version(self) -> m.Version:
        """The protocol version the bot chose in its handshake (1.0 before one)."""
        return self.hello.version if self.hello is not None else m.V1_0

    # --- what the referee asked

    def asked_hello(self) -> None:
        self.expect = Expect.HELLO

    def asked_turn(self, legal: Sequence[Action]) -> None:
        self.expect = Expect.REPLY
        self.legal = legal

    # --- what came back

    def decode(self, raw: bytes) -> m.BotMessage:
        """The message a line holds; a Violation when it is none. During the handshake anything that is not
        a protocol line at all ("Loading model...") is the handshake's fault."""
        try:
            return decode_bot_bytes(raw)
        except BotProtocolError as e:
            if self.expect is Expect.HELLO and e.code == Termination.MALFORMED:
                raise self._not_a_hello(raw) from None
            raise Violation(Termination(e.code), str(e), shown(raw)) from None

    def receive(self, msg: m.BotMessage, raw: bytes) -> m.BotHello | Action | m.Info:
        """What ``msg`` (decoded from the line ``raw``) means now: commentary, the hello that ends the
        handshake, or the legal action that answers the turn. Raises Violation for anything else."""
        # (the referee's hot path, once a decision: checked by class and identity, no call that can be spared)
        if msg.__class__ is m.Info:
            return msg
        expect = self.expect
        if expect is Expect.REPLY:
            if msg.__class__ is not m.Reply:
                raise Violation(Termination.MALFORMED, "expected an action", shown(raw))
            action = msg.action
            for a in self.legal:  # actions are interned: the reply is one of the list's own objects, or illegal
                if a is action:
                    self.expect = Expect.NOTHING
                    return action
            if action not in self.legal:
                raise Violation(Termination.ILLEGAL, f"{action} is not legal now; legal: "
                                                     f"{', '.join(str(a) for a in self.legal)}", shown(raw))
            self.expect = Expect.NOTHING
            return action
        if expect is Expect.HELLO:
            if not isinstance(msg, m.BotHello):
                raise self._not_a_hello(raw)
            if msg.version not in m.VERSIONS:
                offered = " ".join(map(str, m.VERSIONS))
                raise Violation(Termination.HANDSHAKE,
                                f"version {msg.version} is not offered (the referee speaks {offered})", shown(raw))
            self.hello = msg
            self.expect = Expect.NOTHING
            return msg
        raise Violation(Termination.UNEXPECTED, "a line arrived when no decision was asked for", shown(raw))

    def _not_a_hello(self, raw: bytes) -> Violation:
        return Violation(Termination.HANDSHAKE, f"expected 'bot <version> <name>', got {shown(raw)}", shown(raw))

    # --- what did not come back

    def no_answer(self, only_info: bool = False) -> Violation:
        """The answer to what was asked did not come in time (``only_info``: the bot wrote commentary only)."""
        kind = Termination.HANDSHAKE if self.expect is Expect.HELLO else Termination.TIMEOUT
        return Violation(kind, f"no answer to the {self.expect.value} in time{ONLY_INFO if only_info else ''}")

    def ended(self, exited: bool, description: str) -> Violation:
        """The bot's stdout ended: it exited (``description`` says how: "exited with status 2") or, alive,
        closed it."""
        if exited:
            waited = "" if self.expect is Expect.NOTHING else f" while the referee waited for the {self.expect.value}"
            return Violation(Termination.CRASH, f"the bot {description}{waited}")
        return Violation(Termination.DISCONNECT, "the bot closed its stdout")
