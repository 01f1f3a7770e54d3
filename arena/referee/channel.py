"""A seat without a process: ChannelBot, an in-process stand-in for a BotProcess (arena serve's people).

The session (arena.referee.session) and the match loop (arena.referee.match) use a small surface of a bot
process: ``send`` (lines out), ``receive``/``poll``/``pending_now`` (lines, end of stream or a broken stream
in), ``alive``, ``wait_exit``, ``stop``, ``take_stderr``, ``exit_description`` and a ``transcript``. A
ChannelBot offers exactly that surface, so a person in a browser is one more seat of the unchanged referee:
same rules, same clocks, same named terminations. Whatever plays the seat (arena.serve.seat) is handed the
referee's lines through ``on_lines`` and answers with ``put``: a ``Line`` for a reply, or a ``Broken`` /
``Eof`` when the person is gone, which the session turns into a named termination like any bot's.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence

import trio

from arena.protocol.codec import BotProtocolError
from arena.referee.process import Broken, Eof, Incoming, Line, Transcript
from arena.referee.record import Termination

__all__ = ["ChannelBot", "left"]


class ChannelBot:
    """One seat's two directions, in memory. ``on_lines`` sees every batch the referee writes, in order,
    from the referee's task: it must not block (it decodes and queues; it never awaits)."""

    def __init__(self, name: str, on_lines: Callable[[Sequence[str]], None]) -> None:
        self.name = name
        self.on_lines = on_lines
        self.transcript = Transcript()
        self._inbox: deque[Incoming] = deque()
        self._arrived = trio.Event()
        self.exited = trio.Event()
        self._closed = False  # the seat's side will take no more lines (it left, or the session ended)
        self.sent_at = 0.0  # trio time of the last batch handed over: the clock of a decision starts there

    # -- the seat's side
    def put(self, item: Incoming) -> None:
        """What the seat says: a reply line, or the end of its stream."""
        self._inbox.append(item)
        self._arrived.set()

    def reply(self, text: str) -> None:
        self.put(Line(text.encode(), trio.current_time()))

    def exit(self) -> None:
        """The seat is done (after ``quit``): the referee's wait for the exit ends at once."""
        self._closed = True
        self.exited.set()
        self._arrived.set()

    # -- the referee's side (BotProcess's surface)
    async def send(self, lines: Sequence[str]) -> bool:
        return self.send_now(lines) is not None

    def send_now(self, lines: Sequence[str]) -> bytes | None:
        """Hand the lines over at once: b"" (nothing left to send), or None when the seat is gone."""
        if not lines:
            return b""
        if self._closed:
            return None
        self.sent_at = now = trio.current_time()
        self.transcript.add_lines(">", lines, now)
        self.on_lines(lines)
        return b""

    async def send_rest(self, rest: bytes) -> bool:
        return not self._closed  # send_now never leaves a remainder

    def poll(self) -> Incoming | None:
        return self._inbox.popleft() if self._inbox else None

    def waiting_lines(self) -> int:
        return len(self._inbox)

    def pending_now(self) -> list[Incoming]:
        out = list(self._inbox)
        self._inbox.clear()
        return out

    async def receive(self) -> Incoming:
        item = await self.receive_until(math.inf)
        assert item is not None
        return item

    async def receive_until(self, deadline: float) -> Incoming | None:
        """`receive`, or None when the trio clock reaches ``deadline`` first."""
        while True:
            item = self.poll()
            if item is not None:
                return item
            if self.exited.is_set():
                return Eof(trio.current_time(), True, 0)
            if trio.current_time() >= deadline:
                return None
            self._arrived = trio.Event()
            with trio.move_on_at(deadline):
                await self._arrived.wait()

    @property
    def alive(self) -> bool:
        return not self.exited.is_set()

    async def wait_exit(self, seconds: float) -> bool:
        with trio.move_on_after(seconds):
            await self.exited.wait()
        return self.exited.is_set()

    async def stop(self) -> None:
        self.exit()

    def take_stderr(self) -> str:
        return ""

    def drain_stderr(self) -> None:
        """A person's seat writes no stderr."""

    def exit_description(self) -> str:
        return "left the table" if self.exited.is_set() else "still running"


def left(detail: str) -> Broken:
    """The item a seat puts in its channel when its person is gone for good: the referee records a
    ``disconnect`` termination with ``detail``."""
    return Broken(BotProtocolError(str(Termination.DISCONNECT), detail), trio.current_time())
