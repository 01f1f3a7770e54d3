"""What the test files share: where the repository and the test bots are, `arena` run as a user runs it (a
real subprocess), a copy of a test bot that a sandboxed uid may read, and the bots that make builds.

Test files import the names (`from conftest import ROOT, arena`); pytest puts tests/ on sys.path, as it does
for harness.py, the synchronous protocol referee (a library of its own, kept apart from these helpers).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
GOOD = BOTS / "good.py"
ARENA = (sys.executable, "-m", "arena")

# Every subprocess timeout here only stops a hang, so that a hung case fails instead of holding the suite
# until CI's limit; nothing a test waits for takes anywhere near it, on any machine.
HANG_S = 600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with the most `slow` tests first, the rest in their usual order. `make test` gives pytest-xdist
    whole files in this order (--dist loadfile --no-loadscope-reorder), so the long files start early and the
    short ones fill the end, instead of a 20-second file starting last while the other worker has nothing
    left to do (xdist's own order, by the number of tests, puts the one-test tutorial last)."""
    slow_tests = {(item.path, getattr(item, "originalname", item.name)) for item in items
                  if item.get_closest_marker("slow")}  # (a parametrized test counts once)
    slow = Counter(path for path, _ in slow_tests)
    first_seen = {path: i for i, path in enumerate(dict.fromkeys(item.path for item in items))}
    items.sort(key=lambda item: (-slow[item.path], first_seen[item.path]))


@pytest.fixture(autouse=True)
def _readable_tmp_path(request: pytest.FixtureRequest) -> None:
    """pytest makes a test's tmp_path 0700; as root, arena runs each bot and each build as a uid of its own,
    which must enter the folders it is shown (a config's folder, beside the bots it builds), as an
    organiser's folders are (docs/SECURITY.md). Tests of an unreadable folder make one of their own."""
    if "tmp_path" in request.fixturenames:
        request.getfixturevalue("tmp_path").chmod(0o755)


def arena(*args: str, cwd: Path = ROOT, input: str | None = None, env: Mapping[str, str] | None = None,
          timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    """`python -m arena ARGS` in ``cwd`` (the repository unless given), its output captured as text."""
    return subprocess.run([*ARENA, *args], cwd=cwd, capture_output=True, text=True, input=input, env=env,
                          timeout=timeout)


def arena_run(*args: str, report: bool = False, env: Mapping[str, str] | None = None,
              timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    """`arena run ARGS`, with --no-report unless ``report``: most tests are about the run, not its pages."""
    return arena("run", *args, *([] if report else ["--no-report"]), env=env, timeout=timeout)


def bot_copy(folder: Path, *names: str) -> Path:
    """tests/bots/<names> copied into ``folder`` (made), as another author's bot in a folder of its own, which
    a sandboxed bot's uid may read (pytest's tmp folders are 0700); the first file's path."""
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(BOTS / name, folder / name)
    folder.chmod(0o755)
    return folder / names[0]


def make_bots(*folders: str) -> None:
    """`make -C bots/<folder>` for each, one at a time across pytest-xdist workers (a lock on its Makefile):
    two makes writing the same binary at once could leave a half-written one for a test to run. After
    `make bots` (which `make test` runs first) each is a no-op."""
    for folder in folders:
        makefile = ROOT / "bots" / folder / "Makefile"
        fd = os.open(makefile, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            subprocess.run(["make", "-s", "-C", str(makefile.parent)], check=True, capture_output=True,
                           timeout=HANG_S)
        finally:
            os.close(fd)


@pytest.fixture(scope="session")
def c_bots() -> Path:
    """bots/c built (random and greedy); the folder."""
    make_bots("c")
    return ROOT / "bots" / "c"


@pytest.fixture(scope="session")
def ismcts_bot() -> Path:
    """bots/ismcts built, and bots/c beside it; the executable."""
    make_bots("c", "ismcts")
    return ROOT / "bots" / "ismcts" / "ismcts"


def python_in_sandbox(code: str, file_size: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c CODE`` in a bot's sandbox (arena.referee.sandbox, with ``file_size`` its /tmp's cap), its
    output captured as text."""
    from arena.referee.sandbox import PASS_FDS, plan_sandbox

    plan = plan_sandbox([sys.executable, "-c", code], None, (), None, None, None, file_size, {})
    try:
        return subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec, pass_fds=PASS_FDS,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HANG_S)
    finally:
        plan.release()
