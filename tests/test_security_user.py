"""The sandbox when arena runs as an ordinary user (not root): bubblewrap makes a user namespace, the bot runs
as your own uid there, and there are no cgroups of arena's. Its process limit still holds for the whole bot
(RLIMIT_NPROC set inside its user namespace counts that namespace only, Linux 5.14+), however many processes
you have elsewhere; it still sees no other process and none of your files it was not given.

The test runs arena as user ``nobody`` (so it needs root to start, and a bubblewrap that works unprivileged).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import BOTS, ROOT

from arena.referee.sandbox import _nproc_per_user_namespace

NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
PYTHON = "/usr/bin/python3"  # the bots' interpreter: one user nobody can read (arena's may lie under /root)


def _unprivileged_bwrap() -> str | None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None or shutil.which("bwrap") is None:
        return "needs root (to run arena as user nobody), setpriv and bubblewrap"
    if not os.access(PYTHON, os.X_OK):
        return f"needs {PYTHON}"
    probe = subprocess.run([*NOBODY, "bwrap", "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "true"],
                           capture_output=True, timeout=60)
    if probe.returncode != 0:
        return f"bubblewrap cannot make a user namespace here: {probe.stderr.decode(errors='replace').strip()}"
    if subprocess.run([*NOBODY, sys.executable, "-c", "import arena, trio"], cwd=ROOT, capture_output=True,
                      timeout=60).returncode != 0:
        return "user nobody cannot run arena's Python"
    return None


pytestmark = pytest.mark.skipif(_unprivileged_bwrap() is not None, reason=str(_unprivileged_bwrap()))

# One match as user nobody: the hostile bot (in its own folder) against good.py, both sandboxed; prints the
# hostile bot's stderr.
MATCH = r"""
import sys, trio
from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.process import BotSpec, Limits
from arena.referee.sandbox import bot_files

python, hostile, good, processes, *attack = sys.argv[1:]
tc = TimeControl(move_ms=20_000, handshake_ms=10_000, grace_ms=50)
argv, victim = (python, hostile, *attack), (python, good)
a = Player(BotSpec("hostile", argv, sandbox="bwrap", limits=Limits(processes=int(processes)),
                   files=bot_files(argv, None, [victim])), tc)
b = Player(BotSpec("good", victim, sandbox="bwrap", files=bot_files(victim, None, [argv])), tc)
rec = trio.run(play_match, "m", (a, b), preset("santase").with_overrides({"match_target": 1}), 5, 5)
assert rec.terminations == [] and rec.reason == "target", rec.terminations
print(rec.stderr[0])
"""


@pytest.fixture
def folders() -> Iterator[tuple[Path, Path]]:
    """hostile.py and good.py in folders of their own that user nobody may read (pytest's tmp is 0700)."""
    base = Path(tempfile.mkdtemp(prefix="arena-user-test-"))
    try:
        for name, files in (("hostile", ("hostile.py", "_common.py")), ("good", ("good.py", "_common.py"))):
            (base / name).mkdir()
            for file in files:
                shutil.copy(BOTS / file, base / name / file)
        for path in (base, *base.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield base / "hostile" / "hostile.py", base / "good" / "good.py"
    finally:
        shutil.rmtree(base)


def as_nobody(hostile: Path, good: Path, processes: int, *attack: str) -> dict[str, list[str]]:
    result = subprocess.run([*NOBODY, sys.executable, "-c", MATCH, PYTHON, str(hostile), str(good), str(processes),
                             *attack], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    found: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("evidence "):
            key, _, value = line.split(" ", 2)[2].partition("=")
            found.setdefault(key, []).append(value)
    return found


@pytest.mark.skipif(not _nproc_per_user_namespace(), reason="RLIMIT_NPROC counts per user namespace from Linux 5.14")
def test_a_fork_bomb_stops_at_the_limit_whatever_else_the_user_runs(folders: tuple[Path, Path]) -> None:
    hostile, good = folders
    # 40 processes of user nobody outside the sandbox: were they counted, the bot could not fork at all
    others = [subprocess.Popen([*NOBODY, "sleep", "600"]) for _ in range(40)]
    try:
        found = as_nobody(hostile, good, 16, "fork-bomb")
    finally:
        for proc in others:
            proc.kill()
            proc.wait()
    assert found["stopped"] == ["BlockingIOError"], found  # EAGAIN from fork
    assert 8 < int(found["children"][0]) < 16, found


def test_as_an_ordinary_user_a_bot_sees_no_other_process_and_not_your_files(folders: tuple[Path, Path]) -> None:
    hostile, good = folders
    secret = hostile.parent.parent / "secret.txt"  # readable by user nobody, but not the bot's
    secret.write_text("the seed\n")
    secret.chmod(0o644)
    found = as_nobody(hostile, good, 64, "look")
    assert [json.loads(v) for v in found["visible"]] == [[]], found
    found = as_nobody(hostile, good, 64, "read", str(secret), str(good))
    assert found.get("read") is None, found
    assert sorted(found["refused"]) == sorted([f"{secret}:FileNotFoundError", f"{good}:FileNotFoundError"])


def test_as_an_ordinary_user_a_bot_cannot_make_a_user_namespace_of_its_own(folders: tuple[Path, Path]) -> None:
    """Inside one it would be root: it could mount a tmpfs with no cap, and an ordinary user's bot has no
    memory cgroup that would count it. (bubblewrap 0.8+: --disable-userns.)"""
    hostile, good = folders
    found = as_nobody(hostile, good, 64, "userns")
    assert [c.split(":")[0] for c in found["created"]] == ["no"], found
