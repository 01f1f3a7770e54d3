"""The referee's cheap paths keep its promises: a transcript recorded flat reads back as before, and a wait
for a reply without a cancel scope of its own still ends at its deadline, or when the bot exits.

Real processes and pipes (``sandbox: none``: these are not about the sandbox); the timeouts around the
waits only stop a hang, each many times the deadline it guards.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio
import trio.testing
from conftest import BOTS

from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import BotHandle, Player, play_match
from arena.referee.process import TRANSCRIPT_LINE_CAP, BotProcess, BotSpec, Eof, Line, Transcript, start_bot
from arena.referee.record import Termination


async def test_a_transcript_reads_back_every_line_with_its_time_and_capped():
    t = Transcript()
    long = "x" * (TRANSCRIPT_LINE_CAP + 5)
    at = t.start + 1.0001234
    t.add_lines(">", ["deal 0 dealer=1", "turn seat=0 ...", long], at)
    t.add("<", "play 9c", at + 0.25)
    t.add("!", "y" * TRANSCRIPT_LINE_CAP, at + 0.5)
    first = list(t.entries)
    assert first == [
        (1000.123, ">", "deal 0 dealer=1"),
        (1000.123, ">", "turn seat=0 ..."),
        (1000.123, ">", "x" * TRANSCRIPT_LINE_CAP + f"... [{TRANSCRIPT_LINE_CAP + 5} characters]"),
        (1250.123, "<", "play 9c"),
        (1500.123, "!", "y" * TRANSCRIPT_LINE_CAP),  # at the cap: kept whole
    ]
    t.add("<", "play Th", at + 1)
    assert t.entries == [*first, (2000.123, "<", "play Th")]  # read again: what came since is added
    t.entries = []
    t.add_lines(">", ["quit"], at)
    assert t.entries == [(1000.123, ">", "quit")]


def silent_bot(tmp_path: Path, script: str) -> BotSpec:
    path = tmp_path / "bot.py"
    path.write_text(script)
    return BotSpec("silent", (sys.executable, str(path)), sandbox="none")


async def started(spec: BotSpec, nursery: trio.Nursery) -> BotProcess:
    bot = await start_bot(spec, nursery, kill_grace=0.2)
    await trio.testing.wait_all_tasks_blocked()  # its pipe readers, its exit watcher and its alarm are up
    return bot


async def test_a_wait_ends_at_its_deadline_even_after_a_longer_one(tmp_path):
    """The alarm keeps one deadline for every wait of a bot: a wait with an earlier deadline than the last
    one's (a turn after the 60 s handshake) must move it, or a silent bot would get the longer time."""
    spec = silent_bot(tmp_path, "import time\ntime.sleep(60)\n")
    async with trio.open_nursery() as nursery:
        bot = await started(spec, nursery)
        with trio.move_on_after(0.2):  # a wait given 60 s, given up by its caller
            await bot.receive_until(trio.current_time() + 60)
        with trio.fail_after(20):  # only stops a hang: the deadline is 0.3 s
            assert await bot.receive_until(trio.current_time() + 0.3) is None
        await bot.stop()


async def test_a_wait_ends_when_the_bot_exits(tmp_path):
    """Even when a child it forked holds its stdout open: the exit, not the pipe, ends the wait."""
    spec = silent_bot(tmp_path, "import os, sys, time\nprint('hello', flush=True)\n"
                                "if os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n"
                                "time.sleep(0.3)\nsys.exit(3)\n")
    async with trio.open_nursery() as nursery:
        bot = await started(spec, nursery)
        with trio.fail_after(20):  # only stops a hang: the deadline is 60 s, the bot exits after 0.3 s
            first = await bot.receive_until(trio.current_time() + 60)
            assert isinstance(first, Line) and first.raw == b"hello"
            end = await bot.receive_until(trio.current_time() + 60)
        assert isinstance(end, Eof) and end.exited and end.returncode == 3
        await bot.stop()


async def test_a_bot_that_stops_answering_mid_match_times_out_at_its_turn(tmp_path):
    """Several quick replies, then silence: the seat ends in a timeout at that turn, with a think time for
    every reply it gave, and the other seat's process is not held up by it."""
    (tmp_path / "_common.py").write_text((BOTS / "_common.py").read_text())
    (tmp_path / "stops.py").write_text(
        "import time\nimport _common\n_common.handshake('stops')\n"
        "for n, turn in enumerate(_common.turns()):\n"
        "    if n == 5:\n        time.sleep(60)\n"
        "    _common.send(_common.first_legal(turn))\n"
    )
    # A second a move: no busy machine holds a ready reply that long, and the silent turn costs only that.
    tc = TimeControl(move_ms=1000, handshake_ms=60_000, grace_ms=50)
    generous = TimeControl(move_ms=20_000, handshake_ms=60_000, grace_ms=50)  # the other seat is not under test
    stops = Player(BotSpec("stops", (sys.executable, str(tmp_path / "stops.py")), cwd=tmp_path, sandbox="none"), tc)
    good = Player(BotSpec("good", (sys.executable, str(BOTS / "good.py")), cwd=BOTS, sandbox="none"), generous)
    async with trio.open_nursery() as nursery:
        handles = (BotHandle(stops, nursery, kill_grace=0.2), BotHandle(good, nursery, kill_grace=0.2))
        with trio.fail_after(60):  # only stops a hang: the turn's limit is 1.05 s
            rec = await play_match("m", (stops, good), preset("santase"), 3, 3, handles=handles)
        for h in handles:
            await h.quit()
    assert rec.reason == Termination.TIMEOUT and rec.winner == 1
    assert [(t.kind, t.seat) for t in rec.terminations] == [(Termination.TIMEOUT, 0)]
    assert len(rec.think_ms[0]) == 5 and all(t < 1050 for t in rec.think_ms[0])
    replies = [text for _, direction, text in rec.transcripts[0] if direction == "<"]
    assert replies[0].startswith("bot ") and len(replies) == 6  # the hello and the five replies
