"""Twins share nothing: no bot carries its hand from the first game of a duplicate pair to the second through
the page cache, in `arena match`, `arena run` and the ladder.

A spy bot (tests/bots/pagespy.py) writes the hand it was dealt in game 0 as which pages of a file are cached,
a file in its own folder and a system file every sandbox shows, and reads them back in game 1, where that
hand is its opponent's. Two ways to write: loading pages into a region nobody had cached (what a bot loads is
reclaimed with its cgroup before its twin starts), and dropping pages someone else had cached (the filter
answers the advice without acting). Each is played under the defaults, where the spy learns nothing, and with
its closing measure switched off, where it learns its opponent's hand exactly; the reading then uses the exact
probe (``preadv2`` with ``RWF_NOWAIT``, refused by default) so that it does not rest on timing.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD, bot_copy

from arena import api
from arena.game import preset
from arena.referee import sandbox, syscalls
from arena.referee.clock import TimeControl
from arena.referee.sandbox import bwrap_problem

TC = TimeControl(move_ms=10_000, handshake_ms=10_000, grace_ms=50)
ONE_DEAL = preset("santase").with_overrides({"match_target": 1})
SEED = 20261205
PAGE = 4096
STRIDE = 4 * PAGE  # as tests/bots/pagespy.py lays its pages out
REGIONS, CARDS = 8, 24
SIZE = STRIDE + REGIONS * 2 * CARDS * STRIDE + STRIDE

pytestmark = [
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}"),
    pytest.mark.skipif(os.geteuid() != 0, reason="a bot's loads are reclaimed with its cgroup: arena makes them as root"),
]


@functools.lru_cache(maxsize=1)
def system_file() -> str | None:
    """A large file every sandbox shows (under /usr/share) that nothing of the test suite reads."""
    for root, dirs, names in os.walk("/usr/share"):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            try:
                st = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if st.st_size >= SIZE and st.st_mode & 0o444 == 0o444 and os.path.isfile(path) \
                    and not os.path.islink(path):
                return path
    return None


@pytest.fixture
def pagespy(tmp_path: Path) -> Path:
    spy = bot_copy(tmp_path / "spy-bot", "pagespy.py", "_common.py")
    with open(spy.parent / "pages.bin", "wb") as f:  # real data: a hole would read as fast cached or not
        f.write(os.urandom(SIZE))
        os.fsync(f.fileno())
    (spy.parent / "pages.bin").chmod(0o644)
    if system_file() is not None:
        (spy.parent / "system.txt").write_text(system_file() + "\n")
        (spy.parent / "system.txt").chmod(0o644)
    return spy


def targets(spy: Path) -> dict[str, str]:
    out = {"own": str(spy.parent / "pages.bin")}
    if system_file() is not None:
        out["system"] = str(system_file())
    return out


def cached_pages(path: str) -> int:
    """How many of the pages the spy may use are cached now, asked without loading any (``mincore``, which
    answers root for any file; an ``RWF_NOWAIT`` read that misses would start a read-ahead)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, SIZE, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        assert address not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
        try:
            pages = ctypes.create_string_buffer(SIZE // PAGE + 1)
            assert libc.mincore(address, SIZE, pages) == 0, ctypes.get_errno()
            return sum(pages.raw[offset // PAGE] & 1 for offset in range(STRIDE, SIZE - STRIDE, STRIDE))
        finally:
            libc.munmap(address, SIZE)
    finally:
        os.close(fd)


def prepare(spy: Path, mode: str) -> None:
    """Every page the spy may use uncached (``load``: it writes by loading), or cached by this process, whose
    cgroup is not the bot's (``evict``: it writes by dropping)."""
    for path in targets(spy).values():
        fd = os.open(path, os.O_RDONLY)
        try:
            # Every page read first: a read waits for a read-ahead still on its way (an earlier spy's RWF_NOWAIT
            # misses start them), which would land after the drop. Dropped also in evict mode, so that every
            # page is one a read brought in: pages the test's write left may keep buffers no advice can drop.
            # (The test's own calls: no filter here.)
            os.pread(fd, SIZE, 0)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if mode == "evict":
                for offset in range(STRIDE, SIZE - STRIDE, STRIDE):
                    os.pread(fd, 1, offset)
        finally:
            os.close(fd)
        assert cached_pages(path) == (0 if mode == "load" else (SIZE - 2 * STRIDE) // STRIDE), path


def said(lines: str, key: str) -> list[str]:
    """The values the spy reported under ``key`` on its stderr (``spy pages <match> key=value``)."""
    return [line.split("=", 1)[1] for line in lines.splitlines()
            if line.startswith("spy pages ") and line.split()[3].split("=", 1)[0] == key]


def dealt(rec, seat: int) -> str:
    for _, way, line in rec.transcripts[seat]:
        if way == ">" and line.startswith("turn "):
            return dict(t.partition("=")[::2] for t in line.split()[1:])["hand"]
    raise AssertionError(f"no turn for seat {seat}")


def without(*parts: str):
    """The bots' filter with ``parts`` of its page-cache rules switched off (``evictions``, ``nowait``)."""
    return lambda locks=True: syscalls.compile_filter(
        syscalls.BOT_REFUSED, fcntl_locks=locks, shared_futexes=locks, evictions="evictions" not in parts,
        nowait="nowait" not in parts)


def match_pair(spy: Path, mode: str) -> list:
    """`arena match`: one duplicate pair, the spy against good.py; the two records, game 0 first."""
    prepare(spy, mode)
    records: list = []
    api.play_match(f"{sys.executable} {spy} {mode}", f"{sys.executable} {GOOD}", matches=2, seed=SEED,
                   names=("spy", "good"), sandbox="bwrap", rules=ONE_DEAL, time_control=TC, concurrency=2,
                   on_record=lambda spec, rec: records.append(rec))
    records.sort(key=lambda r: r.match_id)
    assert [r.match_id[-3:] for r in records] == ["-g0", "-g1"]
    return records


def spy_lines(rec) -> str:
    return rec.stderr[rec.bots.index("spy")]


def assert_learned_nothing(records: list, spy: Path) -> None:
    marked, read = spy_lines(records[0]), spy_lines(records[1])
    for where in targets(spy):
        assert said(marked, f"marked-{where}") == ["ok"], marked
        assert said(read, f"learned-{where}") == [], read
        assert int(said(read, f"known-{where}")[0]) < CARDS, read
    assert said(read, "probe") == ["timing"], read  # RWF_NOWAIT refused: the spy had to time its reads


def assert_learned_the_hand(records: list, spy: Path) -> None:
    rec = records[1]
    spy_seat = rec.bots.index("spy")
    hand = dealt(rec, 1 - spy_seat)  # the opponent's hand now: what the spy was dealt in game 0
    assert hand == dealt(records[0], records[0].bots.index("spy"))
    read = spy_lines(rec)
    assert said(read, "probe") == ["nowait"], read
    for where in targets(spy):
        assert said(read, f"learned-{where}") == [hand], read


def test_what_a_bot_loads_does_not_reach_its_twin(pagespy: Path) -> None:
    assert_learned_nothing(match_pair(pagespy, "load"), pagespy)


def test_what_a_bot_loads_reaches_its_twin_without_the_reclaim(pagespy: Path, monkeypatch) -> None:
    switch_off_the_reclaim(monkeypatch)
    assert_learned_the_hand(match_pair(pagespy, "load"), pagespy)


def test_a_bot_cannot_drop_pages_it_did_not_load(pagespy: Path) -> None:
    assert_learned_nothing(match_pair(pagespy, "evict"), pagespy)


def test_dropped_pages_reach_its_twin_without_the_filter(pagespy: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "seccomp_filter", without("evictions", "nowait"))  # the reclaim stays on
    assert_learned_the_hand(match_pair(pagespy, "evict"), pagespy)


def stored_spy_lines(db: Path) -> dict[str, str]:
    """match id -> the spy's stderr, from a database of `arena run` or the ladder."""
    from arena.store import Store

    with Store(db) as store:
        ids = [row[0] for row in store.db.conn.execute("SELECT id FROM matches WHERE status = 'done'")]
        return {match_id: "\n".join(seat.stderr for seat in store.seats(match_id, referee_lines=False)
                                    if seat.stderr and "spy pages" in seat.stderr) for match_id in ids}


def assert_stored(lines: dict[str, str], spy: Path, closed: bool) -> None:
    """Under the defaults (``closed``) the spy learned nothing in any match; without the measure, in game 1
    of the pair it learned from each file the hand it was dealt in game 0, its opponent's now."""
    spied = {match_id[-2:]: text for match_id, text in lines.items() if text}
    assert set(spied) == {"g0", "g1"}, lines
    marked, read = spied["g0"], spied["g1"]
    for where in targets(spy):
        assert said(marked, f"marked-{where}") == ["ok"], marked
        if closed:
            assert said(read, f"learned-{where}") == [], read
            assert int(said(read, f"known-{where}")[0]) < CARDS, read
        else:
            assert said(read, f"learned-{where}") == said(marked, "hand"), (marked, read)


def switch_off_the_reclaim(monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "RECLAIM", False)
    monkeypatch.setattr(sandbox, "seccomp_filter", without("nowait"))  # (an exact reading, not the measure)


@pytest.mark.parametrize("closed", [True, False], ids=["defaults", "without-the-reclaim"])
def test_arena_run_twins(pagespy: Path, tmp_path: Path, monkeypatch, closed: bool) -> None:
    if not closed:
        switch_off_the_reclaim(monkeypatch)
    db = tmp_path / "run.db"
    config = tmp_path / "t.yaml"
    config.write_text(f"""
name: twins
variant: {{preset: santase, match_target: 1}}
rounds: 1
seed: {SEED}
concurrency: 2
sandbox: bwrap
time: {{move: 10s}}
bots:
  - name: spy
    command: {sys.executable} {pagespy} load
  - name: good
    command: {sys.executable} {GOOD}
output:
  database: {db}
""")
    prepare(pagespy, "load")
    api.run_tournament(config, report=False)
    assert_stored(stored_spy_lines(db), pagespy, closed)


@pytest.mark.parametrize("closed", [True, False], ids=["defaults", "without-the-reclaim"])
def test_ladder_twins(pagespy: Path, tmp_path: Path, monkeypatch, closed: bool) -> None:
    from arena.store.ladder import LadderStore, LadderVersion
    from arena.tournament.ladder import LadderSettings, RunOptions, admit, init_ladder, register_version, run_ladder

    db = tmp_path / "ladder.db"
    init_ladder(db, ONE_DEAL, LadderSettings(TC, pairs_in_flight=1), seed=SEED)
    with LadderStore(db) as store:
        for name, command in (("spy", f"{sys.executable} {pagespy} load"), ("good", f"{sys.executable} {GOOD}")):
            version = register_version(store, name, command, sandbox="bwrap")
            assert isinstance(version, LadderVersion)
            assert admit(store, version, "bwrap").status == "admitted"
    if not closed:
        switch_off_the_reclaim(monkeypatch)
    prepare(pagespy, "load")  # (after the admissions, whose validation pairs the spy plays too)
    assert run_ladder(db, RunOptions(pairs=1, sandbox="bwrap")) == 1
    rated = {match_id: text for match_id, text in stored_spy_lines(db).items() if match_id.startswith("L")}
    assert_stored(rated, pagespy, closed)


# --------------------------------------------------------------------------------------------- counters

COUNTERS = r"""
for path in ("/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state", "/proc/vmstat"):
    try:
        with open(path) as f:
            print(path, "read", len(f.read()) > 0)
    except OSError as e:
        print(path, type(e).__name__)
"""


def test_the_kernels_file_and_memory_counters_are_not_shown() -> None:
    """Open files, inodes, dentries (/proc/sys/fs) and the memory manager's events (/proc/vmstat) of the whole
    machine: one bot moves them, another reads them."""
    plan = sandbox.plan_sandbox([sys.executable, "-c", COUNTERS], None, (), None, None, None, None, {})
    try:
        run = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec,
                             pass_fds=sandbox.PASS_FDS, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=60)
    finally:
        plan.release()
    assert run.stdout.splitlines() == [
        "/proc/sys/fs/file-nr FileNotFoundError", "/proc/sys/fs/inode-nr FileNotFoundError",
        "/proc/sys/fs/dentry-state FileNotFoundError", "/proc/vmstat PermissionError"], run.stderr
