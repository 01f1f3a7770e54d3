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
import mmap
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GOOD, bot_copy, python_in_sandbox

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
CARDS = 24
REGION = 2 * CARDS * STRIDE
SIZE = STRIDE + 8 * REGION + STRIDE  # the spy's own file: 8 regions

pytestmark = [
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}"),
    pytest.mark.skipif(os.geteuid() != 0, reason="what a bot loads is reclaimed with its cgroup, made as root"),
]


@functools.lru_cache(maxsize=1)
def system_file() -> str | None:
    """The largest file under /usr/share, which every sandbox shows and nothing of the test suite reads (many
    regions: tests running at once rarely share one); None when none is large enough."""
    best: tuple[int, str] | None = None
    for root, _, names in os.walk("/usr/share"):
        for name in names:
            path = os.path.join(root, name)
            try:
                st = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o444 == 0o444 and (best is None or st.st_size > best[0]):
                best = (st.st_size, path)
    return best[1] if best is not None and best[0] >= SIZE else None


@pytest.fixture
def pagespy(tmp_path: Path) -> Path:
    spy = bot_copy(tmp_path / "spy-bot", "pagespy.py", "_common.py")
    with open(spy.parent / "pages.bin", "wb") as f:  # real data: a hole would read as fast cached or not
        f.write(os.urandom(SIZE))
        os.fsync(f.fileno())
    (spy.parent / "pages.bin").chmod(0o644)
    if system_file() is not None:
        (spy.parent / "system.txt").write_text(f"{system_file()}\n")
    (spy.parent / "nonce.txt").write_text(os.urandom(8).hex())
    for name in ("system.txt", "nonce.txt"):
        if (spy.parent / name).exists():
            (spy.parent / name).chmod(0o644)
    return spy


def targets(spy: Path) -> dict[str, str]:
    out = {"own": str(spy.parent / "pages.bin")}
    if system_file() is not None:
        out["system"] = str(system_file())
    return out


def cached_pages(path: str) -> tuple[int, int]:
    """How many of the pages the spy may use (every fourth page) are cached now, and how many there are,
    asked without loading any (``mincore``, which answers root for any file; an ``RWF_NOWAIT`` read that
    misses would start a read-ahead)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        assert address not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
        try:
            pages = ctypes.create_string_buffer(size // PAGE + 1)
            assert libc.mincore(address, size, pages) == 0, ctypes.get_errno()
            used = range(STRIDE, size - STRIDE, STRIDE)
            return sum(pages.raw[offset // PAGE] & 1 for offset in used), len(used)
        finally:
            libc.munmap(address, size)
    finally:
        os.close(fd)


def prepare(spy: Path, mode: str) -> None:
    """Every page the spy may use uncached (``load``: it writes by loading), or cached by this process, whose
    cgroup is not the bot's (``evict``: it writes by dropping)."""
    for path in targets(spy).values():
        fd = os.open(path, os.O_RDONLY)
        try:
            # Every page read first: a read waits for a read-ahead still on its way (an earlier spy's RWF_NOWAIT
            # misses start them), which would land after the drop. (The test's own calls: no filter here.)
            size = os.fstat(fd).st_size
            os.pread(fd, size, 0)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if mode == "evict":
                # each page the spy may use brought in alone, as a page of its own: a read brings in folios of
                # many pages, and advice to drop one page of a folio drops nothing (the kernel does not split it)
                m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
                m.madvise(mmap.MADV_RANDOM)
                for offset in range(STRIDE, size - STRIDE, STRIDE):
                    m[offset]
                m.close()
        finally:
            os.close(fd)
        cached, used = cached_pages(path)
        assert cached == (0 if mode == "load" else used), path


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


ATTEMPTS = 3


def attack_works(attempt: Callable[[], None]) -> None:
    """``attempt`` (play the attack, assert the spy learned the hand) passes once in ``ATTEMPTS`` tries.

    Only the tests of an attack with a measure switched off take the best of several tries: the page cache is
    the whole machine's, and on a busy one another process's reads or the kernel's reclaim can move a page
    between the two games (CI once saw the system file's channel disturbed). What they show, that the channel
    carries the hand, holds if it carries it once. The tests under the defaults try once and fail on any
    card learned."""
    for left in reversed(range(ATTEMPTS)):
        try:
            return attempt()
        except AssertionError:
            if not left:
                raise


def test_what_a_bot_loads_does_not_reach_its_twin(pagespy: Path) -> None:
    assert_learned_nothing(match_pair(pagespy, "load"), pagespy)


def test_what_a_bot_loads_reaches_its_twin_without_the_reclaim(pagespy: Path, monkeypatch) -> None:
    switch_off_the_reclaim(monkeypatch)
    attack_works(lambda: assert_learned_the_hand(match_pair(pagespy, "load"), pagespy))


STRAY = 2


def test_a_bots_own_files_are_cached_before_it_starts(pagespy: Path, monkeypatch) -> None:
    """By the referee (charged to it, not to the bot's cgroup): they stay cached from game to game, and say
    nothing; without the reclaim the spy's own file still tells nothing (it tells all 24 cards without the
    warming). At most STRAY cards: the machine's page cache is everyone's, and twice in a full suite one page
    was not cached when game 1 looked (known-own=1), once with the warming only advising the kernel, once
    with it reading every page. Under the defaults the reclaim drops what the spy loaded, so such a page says
    nothing there either. What the spy saw is the evidence; the cache after the pair is not asserted: a kernel
    may page out what it judges cold (this VM runs DAMON's pageout on pages it has not seen touched for 60 s,
    sampled by regions), and full suites found 381 and, on a busy machine, 377 of the 384 pages cached."""
    monkeypatch.setattr(sandbox, "RECLAIM", False)
    monkeypatch.setattr(sandbox, "seccomp_filter", without("nowait"))
    records = match_pair(pagespy, "load")
    read = spy_lines(records[1])
    assert said(read, "probe") == ["nowait"], read
    assert said(read, "learned-own") == [], read
    assert int(said(read, "known-own")[0]) <= STRAY, read


def test_a_bot_cannot_drop_pages_it_did_not_load(pagespy: Path) -> None:
    assert_learned_nothing(match_pair(pagespy, "evict"), pagespy)


def test_dropped_pages_reach_its_twin_without_the_filter(pagespy: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "seccomp_filter", without("evictions", "nowait"))  # the reclaim stays on
    monkeypatch.setattr(sandbox, "WARM_BYTES", 0)  # (its own file read ahead in large folios: one page drops none)
    attack_works(lambda: assert_learned_the_hand(match_pair(pagespy, "evict"), pagespy))


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
    """No reclaim, and the bot's own files not read by the referee first (`sandbox._warm`: its pages would all
    be cached whatever the bot did, which closes the channel for its own files by itself)."""
    monkeypatch.setattr(sandbox, "RECLAIM", False)
    monkeypatch.setattr(sandbox, "WARM_BYTES", 0)
    monkeypatch.setattr(sandbox, "seccomp_filter", without("nowait"))  # (an exact reading, not the measure)


def attempt_the_attack(closed: bool, attempt: Callable[[], None]) -> None:
    """Once under the defaults; without the measure, until it works (``attack_works``)."""
    attempt() if closed else attack_works(attempt)


@pytest.mark.parametrize("closed", [True, False], ids=["defaults", "without-the-reclaim"])
def test_arena_run_twins(pagespy: Path, tmp_path: Path, monkeypatch, closed: bool) -> None:
    if not closed:
        switch_off_the_reclaim(monkeypatch)
    tries = iter(range(ATTEMPTS))

    def attempt() -> None:
        db = tmp_path / f"run-{next(tries)}.db"
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

    attempt_the_attack(closed, attempt)


@pytest.mark.parametrize("closed", [True, False], ids=["defaults", "without-the-reclaim"])
def test_ladder_twins(pagespy: Path, tmp_path: Path, monkeypatch, closed: bool) -> None:
    from arena.store.ladder import LadderStore, LadderVersion
    from arena.tournament.ladder import LadderSettings, RunOptions, admit, init_ladder, register_version, run_ladder

    tries = iter(range(ATTEMPTS))

    def attempt() -> None:
        db = tmp_path / f"ladder-{next(tries)}.db"
        init_ladder(db, ONE_DEAL, LadderSettings(TC, pairs_in_flight=1), seed=SEED)
        with monkeypatch.context() as switched:
            with LadderStore(db) as store:
                for name, command in (("spy", f"{sys.executable} {pagespy} load"),
                                      ("good", f"{sys.executable} {GOOD}")):
                    version = register_version(store, name, command, sandbox="bwrap")
                    assert isinstance(version, LadderVersion)
                    assert admit(store, version, "bwrap").status == "admitted"
            if not closed:
                switch_off_the_reclaim(switched)
            prepare(pagespy, "load")  # (after the admissions, whose validation pairs the spy plays too)
            assert run_ladder(db, RunOptions(pairs=1, sandbox="bwrap")) == 1
        rated = {match_id: text for match_id, text in stored_spy_lines(db).items() if match_id.startswith("L")}
        assert_stored(rated, pagespy, closed)

    attempt_the_attack(closed, attempt)


async def reused_pair(spy: Path) -> list:
    """One duplicate pair with ``reuse_bots``, as `arena run` plays it: bot processes kept across matches."""
    import trio

    from arena.referee.match import Player
    from arena.referee.policy import ViolationPolicy
    from arena.referee.pool import MatchPool
    from arena.referee.process import BotSpec
    from arena.referee.record import MatchSpec
    from arena.referee.sandbox import bot_files
    from arena.tournament.executors import LocalExecutor
    from arena.tournament.runner import run_matches

    argv, good = (sys.executable, str(spy), "load"), (sys.executable, str(GOOD))
    players = {"spy": Player(BotSpec("spy", argv, sandbox="bwrap", files=bot_files(argv, None, [good])), TC),
               "good": Player(BotSpec("good", good, sandbox="bwrap", files=bot_files(good, None, [argv])), TC)}
    specs = [MatchSpec(f"spy-vs-good-p0-g{g}", ("spy", "good"), 0, g, *seats, SEED, SEED, g)
             for g, seats in enumerate([("spy", "good"), ("good", "spy")])]
    records: list = []
    prepare(spy, "load")
    with trio.fail_after(120):  # only stops a hang
        async with trio.open_nursery() as nursery:
            pool = MatchPool(nursery, reuse=True)
            try:
                executor = LocalExecutor(pool, players, ONE_DEAL, ViolationPolicy.LOSE_MATCH)
                await run_matches(specs, executor, 2, on_record=lambda spec, rec: records.append(rec))
            finally:
                await pool.close()
    records.sort(key=lambda r: r.match_id)
    return records


def info_lines(rec) -> str:
    """The spy's reports in a match, from its ``info`` lines (a kept process's stderr may go with another)."""
    seat = rec.bots.index("spy")
    return "\n".join(line[len("info "):] for _, way, line in rec.transcripts[seat]
                     if way == "<" and line.startswith("info spy pages "))


async def test_a_kept_process_is_not_alive_while_its_twin_plays(pagespy: Path) -> None:
    """With ``reuse_bots`` the process that played game 0 would be kept, alive, with what it loaded still
    charged to it, while game 1 plays: it is ended (and its cgroup reclaimed) before game 1 starts."""
    records = await reused_pair(pagespy)
    assert_stored({r.match_id: info_lines(r) for r in records}, pagespy, closed=True)


def test_a_kept_process_passes_the_hand_to_its_twin_without_the_rule(pagespy: Path, monkeypatch) -> None:
    import trio

    from arena.referee.pool import MatchPool

    async def keep(self, deal_seed: int) -> None:  # the pool as it was: kept processes stay
        pass

    monkeypatch.setattr(MatchPool, "retire", keep)
    monkeypatch.setattr(sandbox, "WARM_BYTES", 0)  # (see switch_off_the_reclaim)
    monkeypatch.setattr(sandbox, "seccomp_filter", without("nowait"))  # (an exact reading, not the measure)

    def attempt() -> None:
        records = trio.run(reused_pair, pagespy)
        assert_stored({r.match_id: info_lines(r) for r in records}, pagespy, closed=False)

    attack_works(attempt)


# --------------------------------------------------------------------------------------------- counters

COUNTERS = r"""
import os
for path in ("/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state", "/proc/vmstat",
             "/proc/interrupts", "/proc/softirqs", "/proc/diskstats", "/proc/schedstat", "/proc/pressure/cpu"):
    try:
        with open(path) as f:
            print(path, "read", len(f.read()) > 0)
    except OSError as e:
        print(path, type(e).__name__)
stat = dict(line.split(None, 1) for line in open("/proc/stat"))
print("stat", stat["processes"].strip(), stat["ctxt"].strip(), set(stat["intr"].split()), len(os.sched_getaffinity(0)))
"""


def test_the_kernels_counters_are_not_shown() -> None:
    """Open files, inodes, dentries (/proc/sys/fs), the memory manager's events (/proc/vmstat), forks, context
    switches and interrupts (/proc/stat and others), disk reads: one bot moves them, another reads them, and
    those that only grow are still there for a twin. /proc/stat keeps its CPU lines, with every counter 0."""
    run = python_in_sandbox(COUNTERS)
    cpus = len(os.sched_getaffinity(0))
    *hidden, stat = run.stdout.splitlines() or [run.stderr]
    assert len(hidden) == 9 and all(line.endswith(("FileNotFoundError", "PermissionError")) for line in hidden), hidden
    assert stat == f"stat 0 0 {{'0'}} {cpus}", run.stderr
