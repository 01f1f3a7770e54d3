"""No zombies under the referee: a sandbox's init, re-parented to the referee (a child subreaper) when
bubblewrap's monitor exits first, is reaped when its bot is stopped; an exit status somebody waits for is
never taken away from them. Real bubblewrap sandboxes, real matches, the process table read from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from conftest import BOTS, ROOT, bot_copy

from arena.referee.process import DirectProcess
from arena.referee.sandbox import bwrap_problem, reap_orphaned_inits

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")

# Run in a process of its own, so what it finds under itself is what arena left there: probes (the handshake
# of `arena check`), matches, and a bot that forks a setsid child, all sandboxed, then its zombie children.
SCRIPT = r"""
import json, os, sys, trio
from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.process import BotSpec
from arena.referee.session import probe_hello

bots, hostile = sys.argv[1], sys.argv[2]
tc = TimeControl(move_ms=20_000, handshake_ms=10_000, grace_ms=50)
good = (sys.executable, f"{bots}/good.py")
escape = (sys.executable, hostile, "escape", "zombie-test")

def zombies():
    out = []
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/children") as f:
            for pid in f.read().split():
                try:
                    with open(f"/proc/{pid}/stat") as s:
                        stat = s.read()
                except OSError:
                    continue
                name, state = stat[stat.find("(") + 1:stat.rfind(")")], stat[stat.rfind(")") + 2:].split()[0]
                if state == "Z":
                    out.append(f"{pid}:{name}")
    return out

async def main():
    for _ in range(3):
        hello = await probe_hello(Player(BotSpec("p", good, sandbox="bwrap"), tc))
        assert hello is not None
    for i in range(3):
        a = Player(BotSpec("a", good if i < 2 else escape, sandbox="bwrap"), tc)
        b = Player(BotSpec("b", good, sandbox="bwrap"), tc)
        rec = await play_match(f"m{i}", (a, b), preset("santase").with_overrides({"match_target": 1}), i, i)
        assert rec.reason == "target", rec.terminations

trio.run(main)
print(json.dumps(zombies()))
"""


def test_no_zombie_is_left_after_probes_and_matches(tmp_path: Path) -> None:
    hostile = bot_copy(tmp_path / "hostile", "hostile.py", "_common.py")
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(BOTS), str(hostile)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == []


async def test_an_exit_status_waited_for_is_not_taken(tmp_path: Path) -> None:
    """A child of ours called bwrap that its own code waits for (a user's bot that is bwrap itself, run with
    sandbox none; a sandbox's monitor) keeps its exit status, even when it is a zombie as the reaper looks."""
    child = DirectProcess.spawn(["bwrap", "--dev-bind", "/", "/", "/bin/sh", "-c", "exit 5"], None, None, None)
    try:
        # a zombie now, not reaped: waitid with WNOWAIT leaves it as it is
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        # (it may reap others: inits still dying when their own bot's stop looked, in this test process)
        assert child.pid not in await reap_orphaned_inits(0.1)
        with trio.fail_after(30):
            assert await child.wait() == 5
    finally:
        if child.returncode is None:  # (the test failed before its wait)
            child.kill()
            with trio.fail_after(30):
                await child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                await stream.aclose()
