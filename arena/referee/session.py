"""A seat's bot session below the match: starting the process, the handshake, and lines in and out.

The I/O of the conversation is here (pipes, deadlines, the transcript); its rules are the protocol
session's (arena.protocol.session.ProtocolSession, one per bot process), which says what each line means
and names what a bot does wrong (silence, a bad line, a closed pipe, an exit) as a Violation with its
Termination. The match loop (arena.referee.match) decides what a violation costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn, cast

import trio

from arena.botspec import fingerprint
from arena.protocol import messages as m
from arena.protocol.codec import BotProtocolError, decode_bot_bytes, encode
from arena.protocol.session import ONLY_INFO, ProtocolSession, Termination, Violation
from arena.protocol.session import shown as shown_raw
from arena.referee.clock import TimeControl
from arena.referee.process import BotProcess, BotSpec, Broken, Eof, Line, start_bot
from arena.referee.sandbox import sandbox_hint
from arena.units import size_text

if TYPE_CHECKING:
    from arena.referee.channel import ChannelBot


__all__ = ["ONLY_INFO", "BotHandle", "Player", "Violation", "probe", "probe_hello"]


@dataclass(frozen=True)
class Player:
    spec: BotSpec
    time: TimeControl
    # A seat played in-process (arena serve's person): called instead of starting ``spec``'s program, it
    # returns a ChannelBot (arena.referee.channel), which has the surface of a bot process used here.
    connect: Callable[[], ChannelBot] | None = field(default=None, compare=False)


class BotHandle:
    """A seat's bot across its processes: starts one on demand, handshakes, replaces it after a violation.

    A handle may outlive a match (bot reuse): the runner keeps it open and passes it to the next match.
    """

    def __init__(self, player: Player, nursery: trio.Nursery, kill_grace: float = 1.0) -> None:
        self.player = player
        self.nursery = nursery  # where the bot's pipe readers run; it must outlive the handle's use
        self.kill_grace = kill_grace
        self.bot: BotProcess | None = None
        self.session = ProtocolSession()  # the current process's conversation
        self.pids: list[int] = []  # every process started for this handle (each leads its own group)
        # the deal seeds of the matches it was handed: a kept process never meets the same deck twice (the
        # twin game of a duplicate pair deals its opponent's cards to it; arena.referee.pool)
        self.deal_seeds: set[int] = set()

    @property
    def name(self) -> str:
        return self.player.spec.name

    @property
    def hello(self) -> m.BotHello | None:
        """The current process's answer to the handshake (None before one)."""
        return self.session.hello

    @property
    def version(self) -> m.Version:
        """The protocol version the current process chose in its handshake (1.0 before one)."""
        return self.session.version

    async def start(self) -> BotProcess:
        """A handshaken process (the current one if it is still usable). Raises Violation."""
        if self.bot is not None:
            return self.bot
        self.session = ProtocolSession()
        if self.player.connect is not None:  # no process: no pid, no program to fingerprint
            self.bot = cast(BotProcess, self.player.connect())
            await _handshake(self.bot, self.session, self.player.time)
            return self.bot
        try:
            bot = await start_bot(self.player.spec, self.nursery, self.kill_grace)
        except OSError as e:
            command = " ".join(self.player.spec.argv)
            if len(command) > 200:  # (a megabyte of arguments would push the reason off the screen)
                command = f"{command[:160]}... ({len(command)} characters)"
            raise Violation(Termination.CRASH, f"cannot start {command}: {e.strerror or e}") from None
        self.bot = bot
        self.pids.append(bot.proc.pid)
        try:
            await _handshake(bot, self.session, self.player.time)
        except Violation as v:
            raise await _explained(bot, v) from None
        return bot

    async def discard(self, error: Violation | None = None) -> None:
        """Tell the bot why (if it is a violation), then stop its process group."""
        bot, self.bot = self.bot, None
        if bot is None:
            return
        with trio.CancelScope(shield=True):
            if error is not None and bot.alive:
                with trio.move_on_after(1):
                    await bot.send([encode(m.Error(error.kind, error.detail))])
            await bot.stop()

    async def quit(self) -> None:
        """End the session politely: ``quit``, then the grace period, then the group is stopped."""
        bot = self.bot
        if bot is not None and bot.alive:
            with trio.CancelScope(shield=True):
                await bot.send([encode(m.Quit())])
                await bot.wait_exit(self.kill_grace)
        await self.discard()

    async def aclose(self) -> None:
        await self.quit()


# What a runtime says when it cannot get the memory it asks for at start (a JVM's reservations, Python's
# MemoryError, C++'s bad_alloc, malloc's ENOMEM)
_OUT_OF_MEMORY = re.compile(r"could not allocate|could not reserve|insufficient memory|out of memory|MemoryError|"
                            r"cannot allocate memory|bad_alloc", re.IGNORECASE)


async def _explained(process: BotProcess, v: Violation) -> Violation:
    """The violation of a bot that did not complete its handshake, with what its own words suggest: files
    that exist here but not in its sandbox (`sandbox_hint`), or a start that ran out of memory under
    ``limits.memory``. Its last words are taken first: the rest of its stderr, and the lines after the one
    it answered with, once it exits (a runtime that prints an error and exits; at most half a second). Only a
    started program has these (stderr, a sandbox): a person's seat (ChannelBot) never comes here."""
    if process.alive and v.line is not None:
        await process.wait_exit(0.5)
    process.drain_stderr()
    said = [process.stderr_text(), v.line or ""]
    said += [item.raw.decode("utf-8", "replace") for item in process.pending_now() if isinstance(item, Line)]
    text = "\n".join(said)
    spec = process.spec
    hints = []
    if process.sandbox is not None:
        hint = sandbox_hint(spec.argv, spec.cwd, spec.files, text)
        if hint is not None:
            hints.append(hint)
    memory = spec.limits.memory_bytes
    if memory is not None and _OUT_OF_MEMORY.search(text):
        hints.append(f"it may have run out of memory: limits.memory ({size_text(memory)}) caps each process's "
                     "address space (RLIMIT_AS), which counts what a runtime reserves, not only what it uses; raise "
                     "it, or have the runtime reserve less (a JVM: java -Xmx256m -XX:CompressedClassSpaceSize=64m; "
                     "docs/CONFIG.md)")
    return Violation(v.kind, "; ".join([v.detail, *hints]), v.line) if hints else v


def check_program(spec: BotSpec) -> None:
    """Raise Violation(TAMPERED) if the bot's program is no longer what it was when the run began.

    Checked before every match and every restart, reused processes included: without a sandbox a bot (or
    its opponent) could rewrite a program between matches.
    """
    if spec.fingerprint is None:
        return
    try:
        now = fingerprint(spec.argv)
    except OSError as e:
        now = f"unreadable ({e.strerror})"
    if now != spec.fingerprint:
        raise Violation(Termination.TAMPERED, f"the bot's program changed since the run began (fingerprint "
                                              f"{spec.fingerprint}, now {now}); it is not started again")


class Commentary:
    """The ``info`` lines one wait takes instead of its answer. A bot may write them at any time, and every
    one that is there is read at once, without awaiting; so that one that never stops writing them still
    gets its timeout and does not hold up the referee:

    - past the deadline, the wait takes only the lines that were already there when it first saw the
      deadline pass (an answer among them counts: that lateness was the referee's, as with a reply);
    - every CHECKPOINT lines it lets trio run (other matches, Ctrl-C, the bot's exit)."""

    CHECKPOINT = 64

    def __init__(self, bot: BotProcess, session: ProtocolSession, deadline: float) -> None:
        self.bot = bot
        self.session = session
        self.deadline = deadline
        self.count = 0
        self.left: int | None = None  # past the deadline: the lines still to take that were there then

    async def took(self, now: float) -> None:
        """One more ``info`` line was taken at ``now``. Raises the wait's timeout Violation."""
        if now > self.deadline:
            if self.left is None:
                self.left = self.bot.waiting_lines()
            if self.left <= 0:
                raise self.session.no_answer(only_info=True)
            self.left -= 1
        self.count += 1
        if self.count % self.CHECKPOINT == 0:
            await trio.lowlevel.checkpoint()


async def _handshake(bot: BotProcess, session: ProtocolSession, tc: TimeControl) -> m.BotHello:
    session.asked_hello()
    await bot.send([encode(m.Hello())])
    deadline = trio.current_time() + (tc.handshake_ms + tc.grace_ms) / 1000
    commentary = Commentary(bot, session, deadline)
    while True:
        item = await next_line(bot, session, deadline)
        said = session.receive(decode_line(bot, session, item), item.raw)
        if said.__class__ is m.Info:
            await commentary.took(trio.current_time())
            continue
        return cast(m.BotHello, said)


@dataclass(frozen=True)
class Probe:
    """What starting a bot once showed: the hello it gave, or the Violation that ended its start (a crash,
    silence, a wrong answer: the termination a match would record), and its stderr."""

    hello: m.BotHello | None
    violation: Violation | None
    stderr: str


async def probe(player: Player, kill_grace: float = 1.0) -> Probe:
    """Start the bot as a match does, take its handshake and end the session with ``quit``."""
    violation = None
    async with trio.open_nursery() as nursery:
        handle = BotHandle(player, nursery, kill_grace)
        try:
            await handle.start()
        except Violation as v:
            violation = v
        process = handle.bot  # a program's (probe never starts a person's seat)
        await handle.quit()
    return Probe(None if violation else handle.hello, violation,
                 process.stderr_text() if process is not None else "")


async def probe_hello(player: Player, kill_grace: float = 1.0) -> m.BotHello | None:
    """`probe`'s hello: None when the bot gave none (it crashed, stayed silent or answered wrongly)."""
    return (await probe(player, kill_grace)).hello


def shown(item: Line | Eof | Broken) -> str:
    """The line as a termination records it: decoded leniently and capped."""
    return shown_raw(item.raw) if isinstance(item, Line) else ""


async def next_line(bot: BotProcess, session: ProtocolSession, deadline: float) -> Line:
    """The next line before the deadline, or the Violation that says why none came."""
    # (receive_until looks at the pipe once more before giving up: if we were late to wake, the reply may be
    # sitting there already, and that is our lag, not the bot's slowness)
    item = await bot.receive_until(deadline)
    if item is None:
        raise session.no_answer()
    if not isinstance(item, Line):
        raise _stream_violation(bot, session, item)
    return item


# A bot writes the same few dozen replies over and over (``play Th``...): each one's text and message are
# decoded once. Only replies: they are short, and their message depends on nothing but the bytes.
_REPLIES: dict[bytes, tuple[str, m.Reply]] = {}


def decode_line(bot: BotProcess, session: ProtocolSession, item: Line) -> m.BotMessage:
    """The message the line holds, the line added to the transcript first. Raises Violation."""
    known = _REPLIES.get(item.raw)
    if known is not None:
        bot.transcript.add("<", known[0], item.at)
        return known[1]
    raw = item.raw
    if raw.startswith(b"info") and not bot.transcript.keep_info(len(raw), item.at):
        try:  # past the match's share of commentary: read, not kept (docs/PROTOCOL.md, `info`)
            msg = decode_bot_bytes(raw)
        except BotProtocolError:
            pass
        else:
            if isinstance(msg, m.Info):
                return msg
    text = raw.decode("utf-8", "replace")
    bot.transcript.add("<", text, item.at)
    msg = session.decode(raw)
    if isinstance(msg, m.Reply) and len(item.raw) <= 32:
        if len(_REPLIES) >= 4096:
            _REPLIES.clear()
        _REPLIES[item.raw] = (text, msg)
    return msg


def line_now(bot: BotProcess, session: ProtocolSession) -> Line | None:
    """The next line if one has arrived (None if none has yet), without waiting: what `next_line` gives
    when it need not wait. Raises Violation when the stream ended or broke instead."""
    item = bot.poll()
    if item is None or isinstance(item, Line):
        return item
    raise _stream_violation(bot, session, item)


def reject_unasked(bot: BotProcess, session: ProtocolSession) -> None:
    """Take what arrived while nothing was asked: commentary (``info``) is kept, anything else is a
    Violation (the session says which)."""
    for item in bot.pending_now():
        if not isinstance(item, Line):
            raise _stream_violation(bot, session, item)
        session.receive(decode_line(bot, session, item), item.raw)


def _stream_violation(bot: BotProcess, session: ProtocolSession, item: Eof | Broken) -> Violation:
    """Why no line came: the bytes broke the protocol, the process exited, or it closed its stdout."""
    if isinstance(item, Broken):
        return Violation(Termination(item.error.code), str(item.error))
    return session.ended(item.exited, bot.exit_description() if item.exited else "")


async def not_sent(bot: BotProcess) -> NoReturn:
    """Raise the Violation that says why the bot could not take the lines written to it (its stdin is gone)."""
    await bot.wait_exit(0.5)  # a closed stdin is often an exit on its way: wait briefly to tell which
    if bot.alive:
        raise Violation(Termination.DISCONNECT, "the bot closed its stdin")
    raise Violation(Termination.CRASH, f"the bot {bot.exit_description()}")
