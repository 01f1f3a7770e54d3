"""Cheating bots against the sandbox: each plays legal moves and tries one attack (tests/bots/hostile.py).

Every test asserts the attack's own evidence (what the bot saw, what it managed to change) and the state of
the world after it, not just the match result. The hostile bot lives in a folder of its own (a copy, with
the _common.py it imports), the victim is tests/bots/good.py, as two bots of different authors would be.
The last tests run the same attacks without a sandbox and document which of them succeed there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import trio
from conftest import BOTS, GOOD, ROOT, bot_copy

from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.process import BotSpec, Limits
from arena.referee.sandbox import bot_files, bwrap_problem

# A long move limit: some attacks (memory, fork bomb) take a while before the bot answers its first turn.
TC = TimeControl(move_ms=20_000, handshake_ms=10_000, grace_ms=50)
ONE_DEAL = preset("santase").with_overrides({"match_target": 1})

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """hostile.py in a folder of its own, as another author's bot would be."""
    return bot_copy(tmp_path / "hostile-bot", "hostile.py", "_common.py")


async def duel(hostile: Path, *attack: str, sandbox: str = "bwrap", limits: Limits | None = None):
    """One match, the hostile bot in seat 0; returns the record."""
    limits = limits or Limits()
    argv = (sys.executable, str(hostile), *attack)
    victim = (sys.executable, str(GOOD))
    a = Player(BotSpec("hostile", argv, sandbox=sandbox, limits=limits, files=bot_files(argv, None, [victim])), TC)
    b = Player(BotSpec("good", victim, sandbox=sandbox, files=bot_files(victim, None, [argv]) + (str(BOTS),)), TC)
    with trio.fail_after(120):  # only stops a hang
        return await play_match("m", (a, b), ONE_DEAL, 5, 5)


def evidence(rec, key: str) -> list[str]:
    prefix = f"evidence {rec_attack(rec)} {key}="
    return [line[len(prefix):] for line in rec.stderr[0].splitlines() if line.startswith(prefix)]


def rec_attack(rec) -> str:
    for line in rec.stderr[0].splitlines():
        if line.startswith("evidence "):
            return line.split()[1]
    raise AssertionError(f"the hostile bot reported nothing; its stderr: {rec.stderr[0]!r}")


def assert_clean(rec) -> None:
    """The match was played to its end with no termination: the victim was not harmed."""
    assert rec.terminations == [] and rec.reason == "target", (rec.terminations, rec.stderr)


def processes_with(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if marker in cmd and "pytest" not in cmd:
                found.append(f"{entry}: {cmd}")
    return found


def parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return int(stat[stat.rfind(b")") + 2:].split()[1])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------ the opponent


@pytest.mark.parametrize("attack", ["kill-opponent", "stop-opponent"])
async def test_the_opponent_cannot_be_seen_killed_or_frozen(hostile, attack):
    rec = await duel(hostile, attack)
    assert [json.loads(v) for v in evidence(rec, "visible")] == [[]], rec.stderr[0]
    assert evidence(rec, "signalled") == ["0"]
    assert_clean(rec)


@pytest.mark.parametrize("attack", ["inject-opponent", "steal-replies"])
async def test_the_opponents_pipes_cannot_be_opened(hostile, attack):
    rec = await duel(hostile, attack)
    assert evidence(rec, "opened") == ["0"]
    assert_clean(rec)


async def test_neither_program_can_be_rewritten(hostile):
    before = digest(hostile), digest(GOOD)
    rec = await duel(hostile, "rewrite", str(hostile), str(GOOD))
    refused = evidence(rec, "refused")
    assert evidence(rec, "rewrote") == [] and len(refused) == 2, rec.stderr[0]
    # its own file is there, but neither its to write (root's file, or a read-only mount: EROFS)
    assert refused[0] in (f"{hostile}:PermissionError", f"{hostile}:OSError")
    assert refused[1] == f"{GOOD}:FileNotFoundError"  # the victim's program is not in its view at all
    assert (digest(hostile), digest(GOOD)) == before
    assert_clean(rec)


# ------------------------------------------------------------------------------------------ secrets


async def test_secrets_and_other_peoples_files_cannot_be_read(hostile, tmp_path):
    config = tmp_path / "tournament.yaml"
    config.write_text("name: secret\nseed: 8675309\n")
    database = tmp_path / "arena.db"
    database.write_bytes(b"SQLite format 3\0")
    home = Path(os.path.expanduser("~"))
    targets = [config, database, GOOD, home / ".ssh", Path("/etc/shadow"), ROOT / "tournaments", ROOT / "reports"]
    rec = await duel(hostile, "read", *map(str, targets))
    assert evidence(rec, "read") == [], rec.stderr[0]
    refused = dict(item.rsplit(":", 1) for item in evidence(rec, "refused"))
    assert set(refused) == {str(t) for t in targets}
    # GOOD lies outside every folder the hostile bot may see; the rest do not exist in its view at all
    assert set(refused.values()) <= {"FileNotFoundError", "PermissionError"}, refused
    assert_clean(rec)


def test_the_seed_is_nowhere_a_bot_can_look(hostile):
    """`arena match --seed S`: S is in the referee's command line, which no sandboxed bot can read."""
    secret = "8675309123"
    result = arena_match(hostile, "find-secret", secret, extra=["--seed", secret])
    assert result.returncode == 0, result.stderr
    stderr = transcript_stderr(hostile)
    assert "evidence find-secret found=none" in stderr, stderr
    assert "evidence find-secret searched=" in stderr


# ------------------------------------------------------------------------------------------ escape


async def test_no_network(hostile):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        rec = await duel(hostile, "connect", str(server.getsockname()[1]))
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
    [connected] = evidence(rec, "connected")
    assert connected.startswith("no:"), connected
    assert_clean(rec)


async def test_a_listening_bot_cannot_be_reached(hostile):
    """The bot listens (in its own network namespace, so it may); nothing on the host reaches it."""
    with socket.socket() as probe:  # a port that is free on the host now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reached = 0
    async with trio.open_nursery() as nursery:

        async def knock() -> None:  # for as long as the match runs (the bot listens for 3 s of its turn)
            nonlocal reached
            while True:
                try:
                    stream = await trio.open_tcp_stream("127.0.0.1", port)
                    reached += 1
                    await stream.aclose()
                except OSError:
                    pass
                await trio.sleep(0.05)

        nursery.start_soon(knock)
        rec = await duel(hostile, "listen", str(port))
        nursery.cancel_scope.cancel()
    assert evidence(rec, "listening") == ["yes"] and evidence(rec, "accepted") == ["no"], rec.stderr[0]
    assert reached == 0
    assert_clean(rec)


async def test_a_setsid_child_dies_with_the_sandbox(hostile):
    marker = f"escapee-{uuid.uuid4().hex}"
    rec = await duel(hostile, "escape", marker)
    assert evidence(rec, "forked") == ["yes"]
    assert_clean(rec)
    assert await gone(marker), processes_with(marker)


async def test_a_fork_bomb_stops_at_the_process_limit(hostile):
    rec = await duel(hostile, "fork-bomb", limits=Limits(processes=16))
    [children] = evidence(rec, "children")
    assert 0 < int(children) < 16, rec.stderr[0]
    assert evidence(rec, "stopped") == ["BlockingIOError"]  # EAGAIN from fork
    assert_clean(rec)


async def test_memory_is_limited_for_the_whole_bot_not_per_process(hostile):
    """Four children of 150 MiB each against 400 MiB for the bot: each alone is within the limit, all
    together are not. At most two can hold their memory at once."""
    rec = await duel(hostile, "memory", "150", "4", limits=Limits(memory_bytes=400 * 1024**2))
    assert evidence(rec, "children") == ["4"], rec.stderr[0]
    [alive] = evidence(rec, "alive")
    assert 1 <= int(alive) <= 2, rec.stderr[0]  # the others were OOM-killed as the whole bot hit its limit


def test_nothing_outlives_arena_match_after_sigkill(hostile):
    marker = f"escapee-{uuid.uuid4().hex}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", f"python {hostile} escape {marker}", f"python {GOOD}",
         "--matches", "50", "--concurrency", "1"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        assert trio.run(wait_for, lambda: bool(processes_with(marker)), 60), "the escapee never started"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert trio.run(gone, marker), processes_with(marker)


def test_nothing_outlives_arena_run_with_workers_after_sigkill(hostile, tmp_path):
    """workers: 2 puts the referee in child processes: they, and every bot, must die with `arena run`."""
    marker = f"escapee-{uuid.uuid4().hex}"
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: workers-die\nrounds: 50\nseed: 3\nworkers: 2\nconcurrency: 2\n"
        f"output: {{database: {tmp_path / 'arena.db'}, report: {tmp_path / 'report'}}}\n"
        "bots:\n"
        f"  - name: hostile\n    command: python {hostile} escape {marker}\n"
        # slow: a match in flight lasts far longer than the bound below, so a worker left to finish it
        # (rather than killed with its parent) would be seen
        f"  - name: slow\n    command: python {BOTS / 'slow.py'} 400\n    cwd: {BOTS}\n"
    )
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert trio.run(wait_for, lambda: bool(processes_with(marker)), 60), "the escapee never started"
        # this run's workers (the machine may run other tournaments' workers at the same time)
        workers = [p for p in processes_with("arena.tournament.worker") if parent(int(p.split(":")[0])) == proc.pid]
        assert workers, "no referee worker is running"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert trio.run(gone, marker), processes_with(marker)
    assert trio.run(wait_for, lambda: not set(workers) & set(processes_with("arena.tournament.worker")), 10), workers


def test_results_cannot_be_rewritten_now_or_after_the_run(hostile, tmp_path):
    database = tmp_path / "out" / "arena.db"
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: hostile-db\nrounds: 2\nseed: 3\nconcurrency: 1\n"
        "variant: {preset: santase, match_target: 1}\n"
        "time: {move: 20s, handshake: 10s}\n"
        f"output: {{database: {database}, report: {tmp_path / 'report'}}}\n"
        "bots:\n"
        f"  - name: hostile\n    command: python {hostile} rewrite-db {database}\n"
        f"  - name: good\n    command: python {GOOD}\n    cwd: {BOTS}\n"
    )
    result = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert trio.run(gone, "rewrite-db"), processes_with("rewrite-db")
    import sqlite3
    import zlib

    with sqlite3.connect(database) as db:
        winners = [w for (w,) in db.execute("SELECT winner FROM matches ORDER BY ord")]
        stderr = "".join(zlib.decompress(e).decode() for (e,) in db.execute(
            "SELECT stderr FROM transcripts WHERE bot = 'hostile' AND stderr IS NOT NULL"))
    assert "evidence rewrite-db now=refused:" in stderr and "now=rewritten" not in stderr, stderr
    assert len(winners) == 4 and set(winners) != {"hostile"}, winners  # duplicate pairs split 1-1


def test_a_bot_in_the_projects_own_folder_sees_no_config_database_report_or_opponent(hostile, tmp_path):
    """The organizer gives a bot the whole project folder as its cwd (a bot next to its tournament file):
    the config, the database, the report and the other bot's program are hidden in it all the same."""
    project = tmp_path / "project"
    (project / "victim").mkdir(parents=True)
    for name in ("hostile.py", "_common.py"):
        shutil.copy(hostile.parent / name, project / name)
    shutil.copy(GOOD, project / "victim" / "good.py")
    shutil.copy(BOTS / "_common.py", project / "victim" / "_common.py")
    for folder in (tmp_path, project, project / "victim"):
        folder.chmod(0o755)
    config = project / "t.yaml"
    database = project / "reports" / "t" / "arena.db"
    report = project / "reports" / "t"
    targets = [config, database, report, project / "victim" / "good.py"]
    config.write_text(
        "name: t\nrounds: 1\nseed: 3\nconcurrency: 1\nvariant: {preset: santase, match_target: 1}\n"
        "bots:\n"
        f"  - {{name: hostile, command: python hostile.py read {' '.join(map(str, targets))}, cwd: .}}\n"
        "  - {name: good, command: python victim/good.py}\n"
    )
    result = subprocess.run([sys.executable, "-m", "arena", "run", "t.yaml"], cwd=project, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    import sqlite3
    import zlib

    with sqlite3.connect(database) as db:
        stderr = "".join(zlib.decompress(e).decode() for (e,) in db.execute(
            "SELECT stderr FROM transcripts WHERE bot = 'hostile' AND stderr IS NOT NULL"))
    read = [line.split("=", 1)[1] for line in stderr.splitlines() if line.startswith("evidence read read=")]
    refused = [line.split("=", 1)[1] for line in stderr.splitlines() if line.startswith("evidence read refused=")]
    # (both matches' transcripts) an empty folder in place of the report and the database in it, and unreadable
    # files in place of the config and the other bot's program
    assert set(read) == {f"{report}:0 entries"}, stderr
    assert set(refused) == {f"{config}:PermissionError", f"{database}:FileNotFoundError",
                            f"{project / 'victim' / 'good.py'}:PermissionError"}, stderr


def test_a_folder_holding_other_bots_folders_is_not_shown(tmp_path):
    """A bot script at a project's root, with the other bot in a subfolder: only its script is shown; with
    the other bot beside it (a folder of reference bots), the folder is shown and the other bot hidden."""
    mine, below, beside = tmp_path / "mine.py", tmp_path / "bots" / "x" / "theirs.py", tmp_path / "theirs.py"
    below.parent.mkdir(parents=True)
    for path in (mine, below, beside):
        path.write_text("")
    python = "/usr/bin/python3"
    assert bot_files((python, str(mine)), None, [(python, str(below))]) == (python, str(mine))
    assert bot_files((python, str(mine)), None, [(python, str(beside))]) == (python, str(mine), str(tmp_path),
                                                                             f"!{beside}")


def test_a_script_lying_in_tmp_keeps_the_sandboxes_own_tmp() -> None:
    """`python /tmp/mybot.py`: /tmp was shown as the script's folder, the host's whole /tmp (what other runs and
    users keep there) read-only in place of the bot's own, which it could then not write."""
    from arena.referee.sandbox import PASS_FDS, plan_sandbox

    script = Path("/tmp") / f"arena-test-{uuid.uuid4().hex[:12]}.py"
    script.write_text("import os\nopen('/tmp/mine', 'w').write('x')\nprint(sorted(os.listdir('/tmp')))\n")
    script.chmod(0o644)
    try:
        argv = (sys.executable, str(script))
        assert bot_files(argv, None) == argv
        plan = plan_sandbox(argv, None, bot_files(argv, None), None, None, None, None, {})
        try:
            run = subprocess.run(plan.argv, env={"PATH": "/usr/bin:/bin"}, preexec_fn=plan.preexec, pass_fds=PASS_FDS,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        finally:
            plan.release()
        # (a Python under /tmp, as in a checkout there, is shown too: its folder appears in the bot's /tmp)
        shown = [Path(sys.executable).parts[2]] if Path(sys.executable).parts[1] == "tmp" else []
        assert run.stdout == f"{sorted([script.name, 'mine', *shown])}\n", run.stderr
    finally:
        script.unlink()


# ------------------------------------------------------------------------------------------ no sandbox


async def test_without_a_sandbox_these_attacks_succeed(hostile, tmp_path):
    """What `sandbox: none` leaves open (docs/SECURITY.md lists it): the bot sees the other processes,
    reads files it was never given, and reaches the network."""
    rec = await duel(hostile, "look", sandbox="none")
    # processes that are not its own, with their command lines (usually the opponent; where the CI host's
    # /proc leaves this job's processes out, still the host's: the sandboxed `look` sees none at all)
    [visible] = evidence(rec, "visible")
    seen = [cmd for _pid, cmd in json.loads(visible)]  # JSON: a `;` or a newline in a command line is just text
    assert any(seen), seen
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with trio.open_nursery() as nursery:

        async def knock() -> None:  # until the listening bot accepts (it listens for 3 s)
            while True:
                try:
                    await (await trio.open_tcp_stream("127.0.0.1", port)).aclose()
                    return
                except OSError:
                    await trio.sleep(0.05)

        nursery.start_soon(knock)
        rec = await duel(hostile, "listen", str(port), sandbox="none")
        nursery.cancel_scope.cancel()
    assert evidence(rec, "accepted") == ["yes"], rec.stderr[0]
    secret = tmp_path / "tournament.yaml"
    secret.write_text("seed: 1\n")
    rec = await duel(hostile, "read", str(secret), str(GOOD), sandbox="none")
    assert len(evidence(rec, "read")) == 2
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        rec = await duel(hostile, "connect", str(server.getsockname()[1]), sandbox="none")
        assert evidence(rec, "connected") == ["yes"]
    # memory: only per process (address space), so four children hold 600 MiB against a 400 MiB limit
    rec = await duel(hostile, "memory", "150", "4", limits=Limits(memory_bytes=400 * 1024**2), sandbox="none")
    assert evidence(rec, "alive") == ["4"], rec.stderr[0]


async def test_the_evidence_of_what_a_bot_sees_is_not_split_by_what_it_sees(hostile):
    """A process on the machine whose command line holds `;`, `:` and a newline (any user's may): the `look`
    evidence still lists it as one command line, intact (it was once split on `;`, and the test above flaked)."""
    odd = f"odd;{uuid.uuid4().hex}:x\ny\"z"
    with subprocess.Popen(["/bin/sh", "-c", "read line", odd], stdin=subprocess.PIPE) as other:
        try:
            rec = await duel(hostile, "look", odd, sandbox="none")
        finally:
            other.communicate(b"\n", timeout=30)
    [visible] = evidence(rec, "visible")
    assert [cmd for _pid, cmd in json.loads(visible)] == [f"/bin/sh -c read line {odd}"], visible


# ------------------------------------------------------------------------------------------ helpers


def arena_match(hostile: Path, *attack: str, extra: list[str]) -> subprocess.CompletedProcess[str]:
    out = hostile.parent.parent / "transcripts"
    return subprocess.run(
        [sys.executable, "-m", "arena", "match", f"python {hostile} {' '.join(attack)}", f"python {GOOD}",
         "--matches", "1", "--set", "match_target=1", "--move-time", "20s", "--transcripts", str(out), *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )


def transcript_stderr(hostile: Path) -> str:
    """The hostile bot's transcripts and stderr, as `arena match --transcripts` wrote them."""
    return "".join(p.read_text() for p in sorted((hostile.parent.parent / "transcripts").glob("*hostile*.log")))


async def wait_for(condition, seconds: float) -> bool:
    """Poll a condition of the process table until it holds (or the bound passes): the kernel kills a
    namespace's processes asynchronously, so there is no event to wait on."""
    with trio.move_on_after(seconds):
        while not condition():
            await trio.sleep(0.02)
        return True
    return False


async def gone(marker: str) -> bool:
    return await wait_for(lambda: not processes_with(marker), 10)


async def test_without_a_sandbox_a_rewritten_program_ends_in_tampered(hostile):
    """A bot that rewrites its own program (or its opponent's) between matches is caught before the next."""
    from arena.botspec import fingerprint

    argv = (sys.executable, str(hostile), "rewrite", str(hostile))
    victim = (sys.executable, str(GOOD))
    a = Player(BotSpec("hostile", argv, sandbox="none", fingerprint=fingerprint(argv)), TC)
    b = Player(BotSpec("good", victim, sandbox="none", fingerprint=fingerprint(victim)), TC)
    with trio.fail_after(120):
        first = await play_match("m1", (a, b), ONE_DEAL, 5, 5)
        assert evidence(first, "rewrote") == [str(hostile)]  # no sandbox: the rewrite succeeds...
        second = await play_match("m2", (a, b), ONE_DEAL, 6, 6)
    # ...and the changed program is not started again
    assert [(t.kind, t.bot) for t in second.terminations] == [("tampered", "hostile")]
    assert second.winner == 1 and second.reason == "tampered"
