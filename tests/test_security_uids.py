"""Sandboxed bots of two arena processes never share a uid (as root, each bot runs as a uid of its own).

Each referee process holds a block of uids under an flock for its whole life; a second process that would
start at the same block (their pids were once equal modulo 2048, and then their bots shared uids and could
signal each other) takes the next free one. Real processes, real locks, real sandboxes reporting `id -u`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from arena.referee.sandbox import UID_BASE, UIDS_PER_REFEREE, bwrap_problem

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="bots get uids of their own only when arena runs as root")

# A referee process that takes a uid, as its first sandboxed bot would, and runs `id -u` in a real sandbox with
# it; it prints both, then holds its block until its stdin closes. Every such process here starts at block 7,
# as two processes whose pids are equal modulo 2048 did.
HOLDER = r"""
import subprocess, sys
import arena.referee.sandbox as S
S.UID_LOCK_DIRS = tuple(sys.argv[1:])
S._first_block = lambda: 7
plan = S.plan_sandbox(["/usr/bin/id", "-u"], None, (), None, None, None, None, {})
if S.shutil.which("bwrap"):
    run = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec, pass_fds=S.PASS_FDS,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    inside = run.stdout.strip() or run.stderr.strip().replace(" ", "_") or "-"
else:
    inside = "-"
print(plan.uid, S._UIDS.block, inside, flush=True)
plan.release()
sys.stdin.read()
"""


class Holder:
    def __init__(self, *lock_dirs: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, *map(str, lock_dirs)], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.stop()
        uid, block, inside = line.split()
        self.uid, self.block, self.inside = int(uid), int(block), inside

    def stop(self) -> str:
        _, err = self.proc.communicate("", timeout=60)
        assert self.proc.returncode == 0, err
        return err


@pytest.fixture
def lock_dir(tmp_path: Path) -> Path:
    path = tmp_path / "uid-locks"
    path.mkdir(mode=0o700)
    return path


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")
def test_two_arena_processes_that_would_collide_give_their_bots_different_uids(lock_dir: Path) -> None:
    first = Holder(lock_dir)
    try:
        second = Holder(lock_dir)
        try:
            assert (first.block, second.block) == (7, 8)
            # what a bot in the sandbox is, not only what arena meant it to be
            assert int(first.inside) == first.uid and int(second.inside) == second.uid
            assert first.uid in range(UID_BASE + 7 * UIDS_PER_REFEREE, UID_BASE + 8 * UIDS_PER_REFEREE)
            assert second.uid in range(UID_BASE + 8 * UIDS_PER_REFEREE, UID_BASE + 9 * UIDS_PER_REFEREE)
        finally:
            second.stop()
    finally:
        first.stop()
    # the kernel dropped the first one's lock with it: its block is free again
    third = Holder(lock_dir)
    assert third.block == 7
    third.stop()


def test_a_lock_directory_that_others_could_write_or_that_is_a_symlink_is_not_used(tmp_path: Path,
                                                                                 lock_dir: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)  # (mkdir's mode is masked by the umask)
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    holder = Holder(shared, link, lock_dir)
    holder.stop()
    assert os.listdir(shared) == [] and os.listdir(target) == []
    assert os.listdir(lock_dir) == ["block-7"]


def test_a_lock_file_that_is_a_symlink_is_not_followed_and_its_block_is_skipped(tmp_path: Path,
                                                                              lock_dir: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (lock_dir / "block-7").symlink_to(victim)
    holder = Holder(lock_dir)
    holder.stop()
    assert holder.block == 8
    assert victim.read_text() == "precious\n"


def test_without_a_safe_lock_directory_arena_warns(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    holder = Holder(shared)
    err = holder.stop()
    assert "no safe directory for arena's uid locks" in err
    assert holder.block == 7
