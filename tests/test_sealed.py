"""Sealed sandboxes: no bot learns another bot's cards through a kernel object, a kept process, or its twin.

A spy bot (tests/bots/spy.py) publishes the hand it was dealt and looks for what its twin published: in the
other game of a duplicate pair, or from the other seat of a self-play match. Each test plays under the
defaults and asserts the spy learned nothing, then switches the one closing measure off and asserts that
the spy did learn its opponent's hand, exactly: so the test can fail, and the evidence is the attack's own.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import socket
import sys
import uuid
from pathlib import Path

import pytest
import trio
from conftest import GOOD, bot_copy, python_in_sandbox

from arena import api
from arena.errors import ConfigError
from arena.game import preset
from arena.referee import sandbox, syscalls
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.policy import ViolationPolicy
from arena.referee.pool import MatchPool
from arena.referee.process import BotSpec
from arena.referee.record import MatchSpec
from arena.referee.sandbox import bot_files, bwrap_problem
from arena.tournament import ConfigFileError, load_config, run_builds
from arena.tournament.build import BuildLimits, build_cpus
from arena.tournament.executors import LocalExecutor
from arena.tournament.runner import run_matches

TC = TimeControl(move_ms=10_000, handshake_ms=10_000, grace_ms=50)
ONE_DEAL = preset("santase").with_overrides({"match_target": 1})
SEED = 20261204

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")


@pytest.fixture
def spy(tmp_path: Path) -> Path:
    return bot_copy(tmp_path / "spy-bot", "spy.py", "_common.py")


def player(name: str, argv: tuple[str, ...], others: list[tuple[str, ...]]) -> Player:
    return Player(BotSpec(name, argv, sandbox="bwrap", files=bot_files(argv, None, others)), TC)


def said(rec, seat: int) -> list[str]:
    """The spy's reports in ``seat``: its ``info spy ...`` lines of the match's transcript, without ``info``."""
    return [line[len("info "):] for _, way, line in rec.transcripts[seat]
            if way == "<" and line.startswith("info spy ")]


def reports(rec, seat: int, key: str) -> list[str]:
    """What the spy in ``seat`` reported under ``key`` about this match."""
    return [line.split("=", 1)[1] for line in said(rec, seat) if f" {rec.match_id} {key}=" in line]


def dealt(rec, seat: int) -> str:
    """The hand ``seat`` held at its first turn of the match's first deal, from the record's transcript."""
    for _, way, line in rec.transcripts[seat]:
        if way == ">" and line.startswith("turn "):
            fields = dict(t.partition("=")[::2] for t in line.split()[1:])
            return fields["hand"]
    raise AssertionError(f"no turn for seat {seat}")


def without(*names: str):
    """A filter that refuses everything the bots' filter does but ``names``: the closing measure switched off."""
    refused = {k: v for k, v in syscalls.BOT_REFUSED.items() if k not in names}
    return lambda locks=True: syscalls.compile_filter(refused, fcntl_locks=locks and "fcntl" not in names,
                                                      shared_futexes=locks and "futex" not in names,
                                                      evictions=True, nowait=True)


async def duplicate_pair(spy_argv: tuple[str, ...], pair: str) -> list:
    """Both games of one duplicate pair, one after the other, the spy against good.py."""
    good = (sys.executable, str(GOOD))
    a, b = player("spy", spy_argv, [good]), player("good", good, [spy_argv])
    records = []
    with trio.fail_after(120):  # only stops a hang
        for game, seats in enumerate([(a, b), (b, a)]):
            records.append(await play_match(f"{pair}-g{game}", seats, ONE_DEAL, SEED, SEED))
    return records


def forget_keys(marker: str) -> None:
    """Invalidate the keys a spy left (only when the filter was switched off), so no later run finds them."""
    libc = ctypes.CDLL(None, use_errno=True)
    for line in Path("/proc/keys").read_text().splitlines():
        if marker in line:
            libc.syscall(250, 21, int(line.split()[0], 16))  # keyctl(KEYCTL_INVALIDATE, id)


async def test_keyring_twin_learns_nothing_and_leaves_no_key(spy: Path) -> None:
    pair = f"spy-vs-good-{uuid.uuid4().hex[:8]}-p0"
    records = await duplicate_pair((sys.executable, str(spy), "keyring"), pair)
    spy_seats = [(records[0], 0), (records[1], 1)]
    assert [reports(r, seat, "published") for r, seat in spy_seats] == [["EPERM"], ["EPERM"]]
    assert [reports(r, seat, "learned") for r, seat in spy_seats] == [[], []]
    assert pair not in Path("/proc/keys").read_text()  # nothing left behind either: no key, no cgroup
    from arena.referee.sandbox import _CGROUPS

    assert [e for root, _ in _CGROUPS._find() for e in os.listdir(root) if e.startswith("bot-")] == []


# An arena process SIGKILLed with a bot's cgroup made: its bots die with it, its cgroup folders stay behind.
KILLED_WITH_A_CGROUP = r"""
import json, os
import arena.referee.sandbox as S
plan = S.plan_sandbox(["/usr/bin/true"], None, (), 1 << 30, None, None, None, {})
print(json.dumps(plan.cgroup.dirs if plan.cgroup is not None else []), flush=True)
os.kill(os.getpid(), 9)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="arena makes cgroups for its bots only as root")
def test_the_cgroups_of_a_killed_arena_process_are_swept_by_the_next_one() -> None:
    """They were left for good (hundreds here), and a later process given the same pid could not make its
    bots' cgroups of those names: such a bot ran with no memory, process or CPU limit of its whole."""
    import subprocess

    killed = subprocess.run([sys.executable, "-c", KILLED_WITH_A_CGROUP], capture_output=True, text=True, timeout=60)
    left = json.loads(killed.stdout or "[]")
    if not left:
        pytest.skip(f"no cgroups for the bots here ({killed.stderr.strip()[-200:]})")
    assert killed.returncode == -9 and all(os.path.isdir(d) for d in left)
    subprocess.run([sys.executable, "-c", "import arena.referee.sandbox as S; S._CGROUPS._find()"], check=True,
                   timeout=60)
    assert [d for d in left if os.path.exists(d) or os.path.exists(os.path.dirname(d))] == []


async def test_keyring_twin_learns_the_opponents_hand_without_the_filter(spy: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "seccomp_filter", without("add_key", "keyctl", "request_key"))
    pair = f"spy-vs-good-{uuid.uuid4().hex[:8]}-p0"
    try:
        records = await duplicate_pair((sys.executable, str(spy), "keyring"), pair)
    finally:
        forget_keys(pair)
    # in game 1 the spy sits in seat 1, and its opponent holds what the spy was dealt in game 0
    assert reports(records[1], 1, "learned") == [dealt(records[1], 0)] == [dealt(records[0], 0)]


async def self_play_with_locks(spy: Path) -> object:
    argv = (sys.executable, str(spy), "locks")
    with trio.fail_after(120):
        return await play_match("spy-vs-spy-p0-g0", (player("spy", argv, []), player("spy2", argv, [])),
                                ONE_DEAL, SEED, SEED)


async def test_locks_in_self_play_carry_nothing(spy: Path) -> None:
    rec = await self_play_with_locks(spy)
    assert reports(rec, 1, "published") == ["ENOLCK"]
    assert reports(rec, 0, "learned") == []


async def test_locks_in_self_play_carry_the_hand_without_the_filter(spy: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "seccomp_filter", without("flock", "fcntl"))
    rec = await self_play_with_locks(spy)
    assert reports(rec, 1, "published") == ["ok"]
    assert reports(rec, 0, "learned") == [dealt(rec, 1)]


async def self_play(spy: Path, channel: str) -> object:
    """One self-play match of the spy through ``channel``, its two processes sandboxed and playing at once."""
    argv = (sys.executable, str(spy), channel)
    with trio.fail_after(120):
        return await play_match(f"spy-vs-spy-{uuid.uuid4().hex[:8]}-p0-g0",
                                (player("spy", argv, []), player("spy2", argv, [])), ONE_DEAL, SEED, SEED)


async def test_futexes_in_self_play_carry_nothing(spy: Path) -> None:
    """A shared futex wait answers at once in the sandbox, and a wake wakes nobody: no wait queue is shared."""
    rec = await self_play(spy, "futex")
    assert reports(rec, 0, "listening") == ["EAGAIN"]
    woke = reports(rec, 1, "woke")
    assert woke and set(woke) == {"0"}
    assert reports(rec, 0, "learned") == []


async def test_futexes_in_self_play_carry_the_hand_without_the_filter(spy: Path, monkeypatch) -> None:
    """The best of three matches: on a busy machine a wake can come before the thread of its card waits (a
    full suite on three workers once learned 5 of the 6 cards). That the channel carries the hand holds if it
    carries it once; the test under the defaults plays once and fails on any card learned."""
    monkeypatch.setattr(sandbox, "seccomp_filter", without("futex"))
    for left in reversed(range(3)):
        rec = await self_play(spy, "futex")
        assert reports(rec, 0, "listening") == ["ok"]
        learned = reports(rec, 0, "learned")
        carried = bool(learned) and set(learned[-1].split(",")) == set(dealt(rec, 1).split(","))
        if carried or not left:
            break
    assert carried, (learned, dealt(rec, 1))


def self_play_with_a_pipe(spy: Path) -> list:
    """One self-play match of the spy (`arena match` through the api), whose folder holds a named pipe."""
    os.mkfifo(spy.parent / "pipe", 0o666)
    os.chmod(spy.parent / "pipe", 0o666)  # (whatever the umask: the author ships it writable by all)
    command = f"{sys.executable} {spy} pipe"
    records: list = []
    api.play_match(command, command, matches=1, seed=SEED, duplicate=False, names=("spy", "spy2"), sandbox="bwrap",
                   rules=ONE_DEAL, time_control=TC, on_record=lambda spec, rec: records.append(rec))
    return records


def test_a_named_pipe_among_a_bots_files_is_refused_before_any_match(spy: Path) -> None:
    with pytest.raises(ConfigError) as info:
        self_play_with_a_pipe(spy)
    assert str(info.value) == (f"bot spy: {spy.parent / 'pipe'} is a named pipe; in the sandbox it would be a channel "
                               "between two of the bot's processes playing at once (docs/SECURITY.md), so it is "
                               "refused: delete it")


def test_a_named_pipe_carries_the_hand_between_sandboxes_without_the_check(spy: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "_check_no_pipes", lambda name, files: None)
    [rec] = self_play_with_a_pipe(spy)
    assert reports(rec, 1, "published") == ["ok"]
    assert reports(rec, 0, "learned") == [dealt(rec, 1)]


async def test_named_ipc_objects_and_abstract_sockets_carry_nothing_between_sandboxes(spy: Path) -> None:
    """A SysV segment, a POSIX queue and an abstract socket are found by name, by anyone in the same IPC or
    network namespace: each sandbox has its own."""
    rec = await self_play(spy, "ipc")
    assert sorted(reports(rec, 1, "published")) == ["mq:ok", "shm:ok", "sock:ECONNREFUSED"]  # (in its own)
    assert reports(rec, 0, "learned") == []


async def test_named_ipc_objects_and_abstract_sockets_carry_the_hand_without_the_namespaces(spy: Path,
                                                                                          monkeypatch) -> None:
    prefix = sandbox._bwrap_prefix
    monkeypatch.setattr(sandbox, "_bwrap_prefix", lambda *a, **k: [arg for arg in prefix(*a, **k)
                                                                   if arg not in ("--unshare-ipc", "--unshare-net")])
    rec = await self_play(spy, "ipc")
    try:
        assert "sock:ok" in reports(rec, 1, "published")
        hand = dealt(rec, 1)
        assert sorted(reports(rec, 0, "learned")) == [f"mq:{hand}", f"shm:{hand}", f"sock:{hand}"]
    finally:  # what the spies made lives on in the machine's own namespaces: removed
        libc = ctypes.CDLL(None, use_errno=True)
        import zlib

        key = 0x53500000 | (zlib.crc32(rec.match_id.encode()) & 0xFFFFF)
        segment = libc.shmget(key, 0, 0)
        if segment >= 0:
            libc.shmctl(segment, 0, None)  # IPC_RMID
        libc.syscall(241, f"arena-spy-{rec.match_id}".encode())  # mq_unlink


# A watcher: inotify on the shared read-only /etc/ld.so.cache (a neighbour's opening it is an event), then
# fanotify (root-only anyway) and dnotify; what each answered.
WATCHER = r"""
import ctypes, errno, fcntl, os
libc = ctypes.CDLL(None, use_errno=True)
def name(result):
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
fd = libc.inotify_init1(0)
print("inotify", name(fd), name(libc.inotify_add_watch(fd, b"/etc/ld.so.cache", 0x20)) if fd >= 0 else "-")
print("fanotify", name(libc.syscall(300, 0, 0)))
folder = os.open("/etc", os.O_RDONLY)
try:
    fcntl.fcntl(folder, 1026, 0x1)  # F_NOTIFY, DN_ACCESS
    print("dnotify ok")
except OSError as e:
    print("dnotify", errno.errorcode[e.errno])
"""


def watch_in_sandbox() -> list[str]:

    run = python_in_sandbox(WATCHER)
    return run.stdout.splitlines() or [run.stderr]


def test_file_watches_are_refused(monkeypatch) -> None:
    assert watch_in_sandbox() == ["inotify ENOSYS -", "fanotify ENOSYS", "dnotify ENOLCK"]
    monkeypatch.setattr(sandbox, "seccomp_filter", without("inotify_init", "inotify_init1", "fcntl"))
    assert watch_in_sandbox()[0] == "inotify ok ok"  # the watch on a file every sandbox shows


def pair_specs(n_pairs: int) -> list[MatchSpec]:
    return [MatchSpec(f"spy-vs-good-p{p}-g{g}", ("spy", "good"), p, g, *(("spy", "good") if g == 0 else
                                                                          ("good", "spy")),
                      SEED + p, SEED + p, 2 * p + g) for p in range(n_pairs) for g in (0, 1)]


async def reused_pairs(spy: Path) -> list:
    """Three duplicate pairs with reuse_bots, as `arena run` schedules them."""
    argv, good = (sys.executable, str(spy), "memory"), (sys.executable, str(GOOD))
    players = {"spy": player("spy", argv, [good]), "good": player("good", good, [argv])}
    records = []
    with trio.fail_after(180):
        async with trio.open_nursery() as nursery:
            pool = MatchPool(nursery, reuse=True)
            try:
                executor = LocalExecutor(pool, players, ONE_DEAL, ViolationPolicy.LOSE_MATCH)
                # one at a time, so that which process plays which match is the same on every run
                await run_matches(pair_specs(3), executor, 1,
                                  on_record=lambda spec, rec: records.append(rec))
            finally:
                await pool.close()
    return records


async def test_a_kept_process_never_plays_both_games_of_a_pair(spy: Path) -> None:
    records = await reused_pairs(spy)
    assert len(records) == 6
    assert not any(" learned=" in line for r in records for line in said(r, r.bots.index("spy")))
    # and a kept process's stderr goes with the match it wrote it in, though the match never waited for it
    assert [r.stderr[r.bots.index("spy")].splitlines() for r in records] == [
        [f"spy memory {r.match_id} published=ok"] for r in records]


async def test_a_kept_process_would_see_the_twin_deal_without_the_rule(spy: Path, monkeypatch) -> None:
    def take_any(self, player, deal_seed):  # the pool as it was: the first idle process of the bot
        idle = self.idle.get(player.spec.name)
        from arena.referee.session import BotHandle

        return idle.pop() if idle else BotHandle(player, self.nursery)

    monkeypatch.setattr(MatchPool, "take", take_any)
    records = await reused_pairs(spy)
    learned = [(r, reports(r, r.bots.index("spy"), "learned")) for r in records]
    assert [r.match_id for r, found in learned if found] == [f"spy-vs-good-p{p}-g1" for p in range(3)]
    for rec, found in learned:
        if found:  # exactly the opponent's dealt hand
            assert found == [dealt(rec, 1 - rec.bots.index("spy"))]


async def test_the_games_of_a_pair_never_run_at_once_and_slots_stay_busy(autojump_clock) -> None:
    """Scheduling alone (no bots): with two slots, the second game of a pair waits for the first while the
    other slot plays the next pair, and every match is played once."""
    playing: dict[int, int] = {}
    overlap, most, played = [], 0, []

    class Timed:
        async def play(self, spec: MatchSpec):
            nonlocal most
            playing[spec.deal_seed] = playing.get(spec.deal_seed, 0) + 1
            overlap.append(playing[spec.deal_seed] > 1)
            most = max(most, sum(playing.values()))
            await trio.sleep(1 + spec.order % 3)
            playing[spec.deal_seed] -= 1
            played.append(spec.match_id)
            return None

    specs = pair_specs(5)
    await run_matches(specs, Timed(), 2)
    assert not any(overlap) and most == 2
    assert sorted(played) == sorted(s.match_id for s in specs)


def cpu_cgroup() -> bool:
    """Whether bots get a CPU quota here (as root, with a cpu cgroup controller)."""
    from arena.referee.sandbox import _CGROUPS

    return any(controller in ("cpu", "v2") for _, controller in _CGROUPS._find())


@pytest.mark.skipif(not cpu_cgroup(), reason="no CPU cgroup for the bots here (as root, cgroup cpu controller)")
async def test_a_cpu_hog_does_not_make_its_opponent_time_out(tmp_path: Path) -> None:
    hog = bot_copy(tmp_path / "hog-bot", "cpu_hog.py", "_common.py")
    argv, good = (sys.executable, str(hog), "56"), (sys.executable, str(GOOD))
    fast = TimeControl(move_ms=100, handshake_ms=10_000, grace_ms=0)
    # the hog's own replies wait behind its 56 spinning processes, in its own quota: it has time for that
    a = Player(BotSpec("hog", argv, sandbox="bwrap", files=bot_files(argv, None, [good])), TC)
    b = Player(BotSpec("good", good, sandbox="bwrap", files=bot_files(good, None, [argv])), fast)
    with trio.fail_after(300):  # only stops a hang
        rec = await play_match("hog-vs-good-p0-g0", (a, b), preset("santase"), SEED, SEED)
    assert "hog started=56" in rec.stderr[0]
    assert [t for t in rec.terminations if t.bot == "good"] == [], rec.terminations
    assert rec.reason == "target" and len(rec.deals) >= 2


# --------------------------------------------------------------------------------------------- builds


def build_config(tmp_path: Path, build: str, *extra: str) -> Path:
    """A config whose bot lives in bot/ (the folder its build may write), beside the config."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "a.sh").write_text("echo hi\n")
    lines = ["name: t", "bots:", "  - {name: b, command: sh bot/a.sh}",
             "  - name: a", "    command: sh bot/a.sh", f"    build: {json.dumps(build)}", *extra]
    path = tmp_path / "t.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_build_writes_its_own_folder_only(tmp_path: Path) -> None:
    path = build_config(tmp_path, "echo made > bot/made.txt && echo x > outside.txt")
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path))
    assert "Read-only file system" in str(info.value)
    assert (tmp_path / "bot" / "made.txt").read_text() == "made\n"
    assert not (tmp_path / "outside.txt").exists()


def test_a_build_cannot_rewrite_another_bot_beside_its_own(tmp_path: Path) -> None:
    """Bots in one folder (the config's): a's build may write that folder, but not b's script beside it nor
    c's folder below it; what a's build makes of its own is written."""
    (tmp_path / "c").mkdir()
    for name, text in (("a.sh", "echo a\n"), ("b.sh", "echo b\n"), ("c/c.sh", "echo c\n")):
        (tmp_path / name).write_text(text)
    build = "echo made > a.out; echo evil >> b.sh; echo evil >> c/c.sh; echo evil > c/new.sh"
    (tmp_path / "t.yaml").write_text(f"name: t\nbots:\n  - {{name: a, command: sh a.sh, build: {json.dumps(build)}}}\n"
                                     "  - {name: b, command: sh b.sh}\n  - {name: c, command: sh c/c.sh}\n")
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(tmp_path / "t.yaml"))
    assert str(info.value).count("Read-only file system") == 3, str(info.value)
    assert [(tmp_path / n).read_text() for n in ("a.out", "b.sh", "c/c.sh")] == ["made\n", "echo b\n", "echo c\n"]
    assert not (tmp_path / "c" / "new.sh").exists()


def test_a_build_is_told_what_its_sandbox_lacks_and_sees_its_bots_sandbox_paths(tmp_path: Path, monkeypatch) -> None:
    """A toolchain outside /usr on PATH (rustup's cargo in ~/.cargo/bin) is not in the build's sandbox: the
    failure says so and names it; the bot's sandbox_paths, which its runtime needs anyway, are shown to its
    build too."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "cc-tool").write_text("#!/bin/sh\necho compiled\n")
    (tools / "cc-tool").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")  # (the build's PATH is the referee's)
    config = tmp_path / "cfg"
    config.mkdir()
    path = build_config(config, "cc-tool")
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path), timeout=300)
    assert (f"failed with exit status 127 in the sandbox; {tools / 'cc-tool'} exists on this machine but not in the "
            "bot's sandbox: add what it needs to the bot's sandbox_paths") in str(info.value), str(info.value)
    path.write_text(path.read_text() + f"    sandbox_paths: [{tools}]\n")
    assert run_builds(load_config(path), timeout=300)["a"].output == "compiled\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="a build's memory is a cgroup's, which arena makes only as root")
def test_a_build_that_takes_too_much_memory_is_stopped_and_told_why(tmp_path: Path) -> None:
    """The build writes 600 MiB (touched, not merely reserved): under a 256 MiB limit the kernel kills it before
    it can say so, and the failure names the memory; under 1 GiB the same build finishes."""
    path = build_config(tmp_path, f"{sys.executable} -c \"x = b'x' * (600 << 20); print('allocated', len(x) >> 20)\"")
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path), limits=BuildLimits(memory_bytes=256 << 20))
    assert "ran out of memory: a build's processes may hold 256 MiB together" in str(info.value), str(info.value)
    assert "its output:\n    Killed" in str(info.value) and "allocated 600" not in str(info.value)
    assert run_builds(load_config(path), limits=BuildLimits(memory_bytes=1 << 30))["a"].output == "allocated 600\n"


def test_a_build_that_would_fill_the_disk_is_stopped(tmp_path: Path) -> None:
    """The build writes 128 files of 8 MiB, a few a second: it is stopped once it has taken 64 MiB of the
    disk (give or take what it writes between two looks, and what other programs write meanwhile), before
    it is done, and the failure says why."""
    build = "i=0; while [ $i -lt 128 ]; do head -c 8388608 /dev/zero > bot/f$i; i=$((i+1)); sleep 0.05; done"
    path = build_config(tmp_path, build)
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path), limits=BuildLimits(disk_bytes=64 << 20))
    said = str(info.value)
    assert f"wrote more than 64 MiB to the disk of {tmp_path / 'bot'}; it was stopped" in said, said
    assert len(list((tmp_path / "bot").glob("f*"))) < 128


def test_a_build_that_makes_files_without_end_is_stopped(tmp_path: Path) -> None:
    path = build_config(tmp_path, "mkdir bot/many && cd bot/many && i=0; while [ $i -lt 20000 ]; do : > $i; "
                                  "i=$((i+1)); done")
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path), limits=BuildLimits(disk_files=2000))
    assert "made more than 2,000 files and folders on the disk of" in str(info.value), str(info.value)
    assert len(os.listdir(tmp_path / "bot" / "many")) > 2000


SPIN = """
import os, resource, sys, time
end = time.monotonic() + 1.5
for _ in range(3):
    if os.fork() == 0:
        while time.monotonic() < end:
            pass
        os._exit(0)
start = time.monotonic()
for _ in range(3):
    os.wait()
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"cpus {(used.ru_utime + used.ru_stime) / (time.monotonic() - start):.2f}")
"""


@pytest.mark.skipif(not cpu_cgroup(), reason="no CPU cgroup here (as root, cgroup cpu controller)")
def test_a_build_keeps_at_most_all_cpus_but_one_busy(tmp_path: Path) -> None:
    """Three processes spin for 1.5 s: together they get no more CPU time than the build's quota (all CPUs but
    one, at least one; on a quiet machine with two CPUs or more they would get two or more without it)."""
    path = build_config(tmp_path, f"{sys.executable} bot/spin.py")
    (tmp_path / "bot" / "spin.py").write_text(SPIN)
    output = run_builds(load_config(path))["a"].output
    assert output.startswith("cpus "), output
    assert float(output.split()[1]) <= build_cpus() + 0.25, (output, build_cpus())


def listener() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    return server


CONNECT = (f"{sys.executable} -c \"import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 5)"
           ".sendall(b'from the build')\" {port}")


def test_a_build_has_no_network_unless_the_config_says_so(tmp_path: Path) -> None:
    with listener() as server:
        path = build_config(tmp_path, CONNECT.format(port=server.getsockname()[1]))
        with pytest.raises(ConfigFileError) as info:
            run_builds(load_config(path))
        assert "failed with exit status 1" in str(info.value)
        assert "Network is unreachable" in str(info.value) or "Connection refused" in str(info.value)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody came


def test_build_network_true_lets_it_connect(tmp_path: Path) -> None:
    with listener() as server:
        path = build_config(tmp_path, CONNECT.format(port=server.getsockname()[1]), "    build_network: true")
        assert run_builds(load_config(path))["a"].ok
        conn, _ = server.accept()
        with conn:
            conn.settimeout(60)
            assert conn.recv(100) == b"from the build"


def test_what_a_sandboxed_build_leaves_running_dies_with_it(tmp_path: Path) -> None:
    marker = f"{uuid.uuid4().int % 10**6 + 10**6}"
    path = build_config(tmp_path, f"sleep {marker} & echo built")
    assert run_builds(load_config(path))["a"].output == "built\n"
    for pid in [pid for pid, cmd in _cmdlines() if cmd == f"sleep\0{marker}\0"]:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:  # readable once it has exited: the kernel kills a PID namespace's processes a moment after
            assert select.select([fd], [], [], 60)[0], f"the build's sleep {marker} is still running"
        finally:
            os.close(fd)


def _cmdlines() -> list[tuple[int, str]]:
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            out.append((int(pid), Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")))
        except OSError:
            pass
    return out


async def test_the_sandboxes_init_shows_no_host_path(tmp_path: Path) -> None:
    """pid 1 inside is bubblewrap's init: its command line held every path shown or masked (a database's
    name beside the bot), until the options came on a descriptor."""
    hostile = bot_copy(tmp_path / "hostile-bot", "hostile.py", "_common.py")
    marker = f"secret-{uuid.uuid4().hex[:12]}"
    (hostile.parent / f"{marker}.db").write_text("results\n")
    argv, good = (sys.executable, str(hostile), "find-secret", marker), (sys.executable, str(GOOD))
    files = bot_files(argv, None, [good], [hostile.parent / f"{marker}.db"])
    assert f"!{hostile.parent / marker}.db" in files  # masked, so bubblewrap is told its path
    a = Player(BotSpec("hostile", argv, sandbox="bwrap", files=files), TC)
    b = player("good", good, [argv])
    with trio.fail_after(120):
        rec = await play_match("hostile-vs-good-p0-g0", (a, b), ONE_DEAL, SEED, SEED)
    assert "evidence find-secret found=none" in rec.stderr[0], rec.stderr[0]
    assert "evidence find-secret searched=" in rec.stderr[0]
