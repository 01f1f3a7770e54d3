"""The Dask executor end to end: `arena run` on a LocalCluster and on a real `dask scheduler` with `dask worker`
processes on 127.0.0.1, against the local executor's results for the same seed; a worker killed mid-match, a
scheduler that goes away, shipped bots, a bot a worker cannot start, the missing extra, config errors.

Marked `dask` (`pytest -m "not dask"` leaves them out). The cluster's workers run in a mount namespace of
their own (bubblewrap) where one folder of the test is an empty tmpfs: a bot kept there is on the
coordinator's disk but not on the workers', as on another machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import BOTS, ROOT, arena_run

from arena.tournament.config import ConfigFileError, parse_config

pytestmark = pytest.mark.dask


def needs_distributed() -> None:
    pytest.importorskip("distributed", reason="the Dask extra is not installed (pip install 'arena[dask]')")


def demo_config(path: Path, db: Path, extra: str = "") -> Path:
    """tournaments/demo.yaml cut to one round of its bots in four languages (the second Python bot and the C
    search bot ismcts left out): 12 matches."""
    text = (ROOT / "tournaments" / "demo.yaml").read_text()
    text = re.sub(r"(?m)^rounds: .*$", "rounds: 1", text).replace("../bots/", f"{ROOT}/bots/")
    text = re.sub(r"(?m)^  - name: random\n    command: .*\n", "", text)
    text = re.sub(r"(?m)^  - name: ismcts\n    command: .*\n    build: .*\n", "", text)
    assert text.count("- name:") == 4
    text = text.replace("concurrency: auto", "concurrency: 2")
    path.write_text(f"{text}\n{extra}\noutput:\n  database: {db}\n  report: {db.parent / 'report'}\n")
    return path


def small_config(path: Path, db: Path, bots: str, extra: str = "", rounds: int = 1) -> Path:
    path.write_text(f"""
name: dask-test
variant: {{preset: santase, match_target: 4}}
rounds: {rounds}
seed: 17
concurrency: 2
time: {{move: 5s, handshake: 20s}}
{extra}
bots:
{bots}
output:
  database: {db}
  report: {db.parent / "report"}
""")
    return path


def results(db: Path) -> list[tuple[object, ...]]:
    """Every row that a result is made of, without timings (started_at, think times, transcript clocks)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT id, status, seat0, seat1, deal_seed, match_seed, winner, winner_seat, score0, score1, reason, "
            "termination, terminated_bot, deals, substitutions0, substitutions1 FROM matches ORDER BY id").fetchall()
        rows += con.execute("SELECT * FROM deals ORDER BY match_id, idx").fetchall()
        rows += con.execute("SELECT match_id, kind, seat, bot, detail, line, deal FROM terminations "
                            "ORDER BY match_id, id").fetchall()
        rows += con.execute("SELECT match_id, seat, bot, decisions, hello FROM seats "
                            "ORDER BY match_id, seat").fetchall()
    finally:
        con.close()
    return rows


def match_rows(db: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, status, reason, terminated_bot FROM matches ORDER BY id").fetchall()
    finally:
        con.close()


# ------------------------------------------------------------------------------------- without a cluster
@pytest.mark.parametrize("value, message", [
    ("dask", "'dask' is not an executor (write {dask: local} or {dask: tcp://HOST:PORT})"),
    ("remote", "'remote' is not an executor"),
    ("{dask: udp://10.0.0.1:8786}", "the scheme udp:// is not one Dask's scheduler listens on"),
    ("{dask: 'tcp://host:70000'}", "the port 70000 is not between 1 and 65535"),
    ("{dask: tcp://host:8786, workers: 2}", "workers is only for dask: local"),
    ("{dask: local, workers: 0}", "0 is too small; expected an integer >= 1 or auto, at most 64"),
    ("{dask: local, threads: 2}", "unknown key"),
    ("{workers: 2}", "executor.dask: missing"),
])
def test_a_bad_executor_is_one_line_with_file_and_line(tmp_path, value, message):
    text = (f"name: t\nseed: 1\nexecutor: {value}\nbots:\n"
            "  - {name: a, command: sh x.sh}\n  - {name: b, command: sh y.sh}\n")
    for script in ("x.sh", "y.sh"):
        (tmp_path / script).write_text("exit 0\n")
    with pytest.raises(ConfigFileError) as e:
        parse_config(text, tmp_path / "t.yaml")
    assert len(e.value.problems) == 1
    assert str(e.value).startswith(f"{tmp_path / 't.yaml'}:3: executor")
    assert message in str(e.value)


def test_good_executors_and_ship_values_parse(tmp_path):
    (tmp_path / "x.sh").write_text("exit 0\n")
    bots = "bots:\n  - {name: a, command: sh x.sh, ship: true}\n  - {name: b, command: sh x.sh, ship: [x.sh]}\n"
    config = parse_config(f"name: t\nexecutor: {{dask: tcp://127.0.0.1:8786}}\n{bots}", tmp_path / "t.yaml")
    assert (config.executor.kind, config.executor.address) == ("dask", "tcp://127.0.0.1:8786")
    assert config.bots[0].ship is True and config.bots[1].ship == (tmp_path / "x.sh",)
    local = parse_config(f"name: t\nexecutor: {{dask: local, workers: 3}}\n{bots}", tmp_path / "t.yaml")
    assert (local.executor.address, local.executor.workers) == (None, 3)
    # where matches are played never changes a result: the same tournament, the same database
    assert parse_config(f"name: t\nexecutor: local\n{bots}", tmp_path / "t.yaml").hash == config.hash == local.hash
    with pytest.raises(ConfigFileError, match=r"t.yaml:3: bots\[0\].ship: 'maybe' is not true, false or a list"):
        parse_config("name: t\nbots:\n  - {name: a, command: sh x.sh, ship: maybe}\n  - {name: b, command: sh x.sh}\n",
                     tmp_path / "t.yaml")


def test_bad_executor_options_are_one_line(tmp_path):
    config = small_config(tmp_path / "t.yaml", tmp_path / "t.db",
                          f"  - {{name: a, command: {BOTS}/good.py}}\n  - {{name: b, command: {BOTS}/good.py}}")
    bad = arena_run(str(config), "--executor", "dask")
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("arena: --executor: 'dask' is not an executor (did you mean dask:local?); "
                                  "expected local, dask:local or dask:tcp://HOST:PORT")
    both = arena_run(str(config), "--executor", "dask:tcp://127.0.0.1:9", "--workers", "2")
    assert both.returncode == 2
    assert both.stderr.strip().splitlines() == [
        "arena: --workers: the Dask scheduler at tcp://127.0.0.1:9 plays on its own workers (start more with dask "
        "worker); expected no --workers, or --executor local or dask:local"]
    assert not (tmp_path / "t.db").exists()


def test_files_to_ship_that_are_not_there_are_one_line_before_any_match(tmp_path):
    needs_distributed()
    config = small_config(tmp_path / "t.yaml", tmp_path / "t.db",
                          f"  - {{name: a, command: {BOTS}/good.py, ship: [{BOTS}/good.py, gone.txt]}}\n"
                          f"  - {{name: b, command: {BOTS}/good.py}}",
                          extra="executor: {dask: tcp://127.0.0.1:9}")  # nothing listens there: never reached
    out = arena_run(str(config))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == (
        f"arena: {config}:10: bots[0].ship: {tmp_path / 'gone.txt'} not found; expected files and folders of the "
        "bot (relative to the config's directory)")
    assert "cannot reach" not in out.stderr


def test_without_the_extra_dask_says_what_to_install(tmp_path):
    stub = tmp_path / "stub" / "distributed"  # an import of distributed fails as it does where it is missing
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError(\"No module named 'distributed'\")\n")
    config = small_config(tmp_path / "t.yaml", tmp_path / "t.db",
                          f"  - {{name: a, command: {BOTS}/good.py}}\n  - {{name: b, command: {BOTS}/good.py}}",
                          extra="executor: {dask: local, workers: 2}")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "stub")}
    out = arena_run(str(config), env=env)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"arena: {config}:8: executor: the Dask executor needs the distributed package, which cannot be imported "
        "(No module named 'distributed'); install it with pip install 'arena[dask]'"]
    cli = arena_run(str(config), "--executor", "dask:tcp://127.0.0.1:8786", env=env)
    assert cli.returncode == 2 and "install it with pip install 'arena[dask]'" in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1
    # the local executor never imports distributed
    local = arena_run(str(config), "--executor", "local", "--sandbox", "none", env=env)
    assert local.returncode == 0, local.stderr


def test_a_worker_runs_python_bots_with_its_own_interpreter_and_still_checks_their_files(tmp_path):
    """`python` in a command is the interpreter that runs arena, which on a worker may live at another path:
    the worker swaps in its own, and keeps the coordinator's fingerprint check for everything else."""
    from arena.botspec import fingerprint
    from arena.tournament.dask_executor import _on_this_worker

    script = tmp_path / "bot.py"
    script.write_text("print('bot 1 x')\n")
    coordinator_python = "/opt/elsewhere/bin/python"  # where the coordinator's interpreter is
    player = {"name": "x", "argv": [coordinator_python, str(script)], "cwd": None, "fingerprint": "0" * 16,
              "files": [coordinator_python, str(script), str(tmp_path)],
              "fingerprint_rest": fingerprint(["<python>", str(script)])}
    here = _on_this_worker(player, {"python": coordinator_python})
    assert here["argv"] == [sys.executable, str(script)]
    assert here["files"] == [sys.executable, str(script), str(tmp_path)]
    assert here["fingerprint"] == fingerprint([sys.executable, str(script)])  # the same script: it starts
    script.write_text("print('bot 1 someone else')\n")
    assert _on_this_worker(player, {"python": coordinator_python})["fingerprint"] == "0" * 16  # -> tampered
    script.unlink()
    assert _on_this_worker(player, {"python": coordinator_python})["fingerprint"] is None  # -> crash at start


# ------------------------------------------------------------------------------------- a LocalCluster
@pytest.mark.slow
def test_the_demo_on_a_local_cluster_gives_the_local_executors_rows(tmp_path):
    needs_distributed()
    local_db = tmp_path / "local" / "arena.db"
    local = arena_run(str(demo_config(tmp_path / "local.yaml", local_db)))
    assert local.returncode == 0, local.stderr
    dask_db = tmp_path / "dask" / "arena.db"
    dask = arena_run(str(demo_config(tmp_path / "dask.yaml", dask_db, "executor: {dask: local, workers: 2}")))
    assert dask.returncode == 0, dask.stderr
    expected = results(local_db)
    assert sum(1 for row in expected if row[1] == "done") == 12
    assert results(dask_db) == expected
    assert "Traceback" not in dask.stderr and "distributed" not in dask.stderr


# ------------------------------------------------------------------------------------- a real cluster
class Cluster:
    """`dask scheduler` and two `dask worker` processes (each with its nanny) on 127.0.0.1. The workers see
    ``hidden`` as an empty folder."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.hidden = base / "hidden"
        self.hidden.mkdir()
        self.procs: list[subprocess.Popen[str]] = []
        self.drains: list[threading.Thread] = []
        self.address = ""
        self.client = None

    def start_scheduler(self) -> subprocess.Popen[str]:
        found = threading.Event()
        address: list[str] = []

        def watch(line: str) -> None:
            m = re.search(r"Scheduler at:\s+(tcp://\S+)", line)
            if m and not found.is_set():
                address.append(m[1])
                found.set()

        scheduler = self.spawn([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                "--port", "0", "--no-dashboard"], "scheduler", watch)
        assert found.wait(timeout=120), "the scheduler printed no address"
        self.address = address[0]
        return scheduler

    def start(self) -> None:
        self.start_scheduler()
        for i in range(2):
            self.spawn(["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(self.hidden), "--die-with-parent", "--",
                        sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1",
                        "--no-dashboard", "--name", f"w{i}", "--local-directory", str(self.base / f"w{i}")],
                       f"worker{i}")
        from distributed import Client

        self.client = Client(self.address, timeout="60s")
        self.client.wait_for_workers(2, timeout=120)

    def spawn(self, argv: list[str], name: str, watch=None) -> subprocess.Popen[str]:
        """A process whose log (stderr) is copied to ``<name>.log`` as it comes, each line shown to ``watch``."""
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=self.base)
        self.procs.append(proc)

        def drain() -> None:
            assert proc.stderr is not None
            with open(self.base / f"{name}.log", "w") as log:
                for line in proc.stderr:
                    log.write(line)
                    if watch is not None:
                        watch(line)

        thread = threading.Thread(target=drain, daemon=True)
        thread.start()
        self.drains.append(thread)
        return proc

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        for proc in self.procs:
            proc.kill()
            proc.wait(timeout=60)
        for thread in self.drains:
            thread.join(timeout=60)
        for proc in self.procs:
            assert proc.stderr is not None
            proc.stderr.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    needs_distributed()
    if shutil.which("bwrap") is None or subprocess.run(["bwrap", "--dev-bind", "/", "/", "true"]).returncode:
        pytest.skip("bubblewrap cannot make the workers' mount namespace here")
    base = tmp_path_factory.mktemp("cluster")
    os.chmod(base, 0o755)
    c = Cluster(base)
    try:
        c.start()
        yield c
    finally:
        c.stop()


SHIPPED_BOT = """\
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common
_common.log("playing from " + os.path.dirname(os.path.abspath(__file__)))
_common.handshake("shipped")
for turn in _common.turns():
    _common.send(_common.first_legal(turn))
"""


def hidden_bot(cluster: Cluster, name: str) -> Path:
    """A bot only the coordinator can see: on the workers its folder is empty."""
    folder = cluster.hidden / name
    folder.mkdir()
    (folder / "bot.py").write_text(SHIPPED_BOT)
    shutil.copy(BOTS / "_common.py", folder / "_common.py")
    return folder / "bot.py"


def test_a_shipped_bot_plays_from_the_workers_copy(cluster, tmp_path):
    bot = hidden_bot(cluster, "shipped")
    config = small_config(tmp_path / "t.yaml", tmp_path / "t.db", f"""\
  - {{name: greedy, command: python {ROOT}/bots/greedy.py}}
  - {{name: shipped, command: python {bot}, ship: true}}""")
    out = arena_run(str(config), "--executor", f"dask:{cluster.address}")
    assert out.returncode == 0, out.stderr
    assert match_rows(tmp_path / "t.db") == [
        ("greedy-vs-shipped-p0-g0", "done", "target", None), ("greedy-vs-shipped-p0-g1", "done", "target", None)]
    con = sqlite3.connect(tmp_path / "t.db")
    try:
        hellos = con.execute("SELECT hello FROM seats WHERE bot = 'shipped'").fetchall()
    finally:
        con.close()
    assert [json.loads(h[0])["name"] for h in hellos] == ["shipped", "shipped"]
    from arena.store import Store

    store = Store.open_existing(tmp_path / "t.db")
    try:
        stderr = [s.stderr for s in store.seats("greedy-vs-shipped-p0-g0") if s.bot == "shipped"][0]
    finally:
        store.close()
    # from a folder in a worker's local directory, not from where the coordinator keeps it
    assert "playing from " + str(cluster.base) in stderr and "/arena-ship/shipped-" in stderr, stderr
    assert str(bot.parent) not in stderr
    # the run's end removes the copies from the workers
    assert not list(cluster.base.glob("w*/**/arena-ship/shipped-*/bot.py"))


def test_a_bot_a_worker_cannot_start_ends_in_crash_not_a_hang(cluster, tmp_path):
    bot = hidden_bot(cluster, "unshipped")
    config = small_config(tmp_path / "t.yaml", tmp_path / "t.db", f"""\
  - {{name: greedy, command: python {ROOT}/bots/greedy.py}}
  - {{name: unshipped, command: python {bot}}}""", extra="sandbox: none")
    out = arena_run(str(config), "--executor", f"dask:{cluster.address}")
    assert out.returncode == 0, out.stderr
    assert match_rows(tmp_path / "t.db") == [("greedy-vs-unshipped-p0-g0", "done", "crash", "unshipped"),
                                             ("greedy-vs-unshipped-p0-g1", "done", "crash", "unshipped")]
    assert "can't open file" in out.stderr and str(bot) in out.stderr  # the bot's stderr, shown once


def slow_bots() -> str:
    return f"""\
  - {{name: greedy, command: python {ROOT}/bots/greedy.py}}
  - {{name: random, command: python {ROOT}/bots/random.py --seed 4}}
  - {{name: slow, command: {BOTS}/slow.py 20}}"""


@pytest.mark.slow
def test_a_worker_killed_mid_match_costs_nothing(cluster, tmp_path):
    local_db = tmp_path / "local.db"
    local = arena_run(str(small_config(tmp_path / "local.yaml", local_db, slow_bots(), "sandbox: none")))
    assert local.returncode == 0, local.stderr

    db = tmp_path / "dask.db"
    config = small_config(tmp_path / "dask.yaml", db, slow_bots(), "sandbox: none")
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report", "--executor",
                             f"dask:{cluster.address}"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None and proc.stdout is not None
    try:
        seen = []
        for line in proc.stderr:  # the first match is stored: the workers are in the middle of the next ones
            seen.append(line)
            if line.startswith("["):
                break
        # Ask the scheduler (each question is a round trip) until a worker holds a match. Progress lines come
        # at most once a second, too seldom to ask only then: the matches may all be done by the next one.
        keys: list[str] = []
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            busy = sorted((worker, keys) for worker, keys in cluster.client.processing().items() if keys)
            if busy:
                victim, keys = busy[0]
                pid = cluster.client.run(os.getpid, workers=[victim])[victim]
                os.kill(pid, signal.SIGKILL)
                break
        else:
            pytest.fail(f"no worker was found playing a match: {''.join(seen)}")
        rest = proc.stderr.read()
        assert proc.wait(timeout=300) == 0, rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    # the matches the dead worker was playing were played again elsewhere: every match once, as the local run
    killed = {key.rsplit("-", 1)[0].removeprefix("arena-") for key in keys}
    assert killed and all(row[1] == "done" for row in match_rows(db) if row[0] in killed)
    assert results(db) == results(local_db)
    cluster.client.wait_for_workers(2, timeout=120)  # the nanny restarts the worker for the next test


@pytest.mark.slow
def test_a_scheduler_that_goes_away_stops_the_run_and_a_later_run_resumes(tmp_path):
    needs_distributed()
    os.chmod(tmp_path, 0o755)
    own = Cluster(tmp_path)  # its own scheduler: this test kills it
    try:
        scheduler = own.start_scheduler()
        own.spawn([sys.executable, "-m", "distributed.cli.dask_worker", own.address, "--nthreads", "2",
                   "--no-dashboard"], "worker")
        db = tmp_path / "t.db"
        config = small_config(tmp_path / "t.yaml", db, slow_bots(), "sandbox: none")
        proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report", "--executor",
                                 f"dask:{own.address}"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("[1/6]"):
                break
        else:
            pytest.fail(f"no progress line: {''.join(seen)}")
        scheduler.kill()
        rest = proc.stderr.read()
        assert proc.wait(timeout=120) == 2, rest
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()
    finally:
        own.stop()
    lines = [line for line in rest.splitlines() if line.startswith("arena:")]
    assert len(lines) == 1 and "Traceback" not in rest, rest
    assert re.fullmatch(rf"arena: the Dask scheduler at {own.address} is gone \(.+\) while "
                        r"match \S+ was in flight; finished matches are stored: run the same command again to resume "
                        r"once the scheduler is back", lines[0]), lines[0]
    done = [row for row in match_rows(db) if row[1] == "done"]
    assert 1 <= len(done) < 6
    resumed = arena_run(str(config), "--executor", "local")  # the executor is not in the hash: the same tournament
    assert resumed.returncode == 0, resumed.stderr
    assert f"{6 - len(done)} to play" in resumed.stderr
    assert all(row[1] == "done" for row in match_rows(db))
