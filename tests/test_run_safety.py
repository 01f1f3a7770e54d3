"""`arena run` protects the user's own data: a random seed kept for the resume, one writer per database,
a --fresh that deletes only its own tournament's database, output paths checked before anything runs, a
full disk that stops with one line and resumes, and SIGHUP handled like Ctrl-C. Real subprocess runs."""

from __future__ import annotations

import hashlib
import os
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import BOTS, ROOT, arena, arena_run

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile



def write_config(path: Path, db: Path, *, seed: int | None = None, slow_ms: int | None = None, rounds: int = 1,
                 name: str = "safety", report: Path | None = None, gate: Path | None = None) -> Path:
    """Bots greedy and random, plus a slow one with ``slow_ms`` or a gated one (tests/bots/gate.py) with
    ``gate``, its folder: 2 or 6 matches per round."""
    third = ""
    if slow_ms is not None:
        third = f"  - name: slow\n    command: {BOTS}/slow.py {slow_ms}\n"
    if gate is not None:  # ten minutes a move: a held match holds the run, however busy the machine
        third = f"  - name: gate\n    command: {BOTS}/gate.py {gate}\n    time: {{move: 10m}}\n"
    path.write_text(
        f"name: {name}\n"
        f"rounds: {rounds}\n"
        "variant: {preset: santase, match_target: 4}\n"  # short matches: the tests are about the run, not play
        + (f"seed: {seed}\n" if seed is not None else "")
        + "concurrency: 2\n"
        + ("sandbox: none\n" if gate is not None else "")  # gate.py reads its folder under pytest's 0700 tmp
        + "time: {move: 2s}\n"
        "bots:\n"
        f"  - name: greedy\n    command: {ROOT}/bots/c/greedy\n"  # (C: these tests are about the run)
        f"  - name: random\n    command: {ROOT}/bots/c/random 4\n"
        + third
        + "output:\n"
        f"  database: {db}\n"
        f"  report: {report or db.parent / 'report'}\n"
    )
    return path


def held(tmp_path: Path) -> Path:
    """A folder for gate.py with its hold file: remove the file and the run can finish."""
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "hold").touch()
    return gate


def start_run(config: Path, out: Path | None = None) -> subprocess.Popen[str]:
    """A run in the background; its stderr is a pipe to read progress lines from, unless ``out`` is given."""
    if out is None:
        return subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with out.open("w") as err:  # the run writes into its own copy of the file descriptor
        return subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=err, text=True)


def wait_for_line(proc: subprocess.Popen[str], prefix: str) -> list[str]:
    """Read the run's stderr up to the line starting with ``prefix`` (the runner logs one line per stored
    match when stderr is not a terminal); returns the lines read."""
    assert proc.stderr is not None
    seen: list[str] = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith(prefix):
            return seen
    pytest.fail(f"no line {prefix!r} in the run's output:\n{''.join(seen)}")


def query(db: Path, sql: str) -> list[tuple]:
    """Read-only, so polling a database that does not exist yet does not create it."""
    con = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def done_count(db: Path) -> int:
    return query(db, "SELECT count(*) FROM matches WHERE status = 'done'")[0][0]


def wait_for_stored_match(db: Path, proc: subprocess.Popen[str], deadline_s: float = 120.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            if done_count(db) >= 1:
                return
        except sqlite3.Error:  # not created yet, or its tables not yet
            pass
        assert proc.poll() is None, "the first run ended before storing a match"
        time.sleep(0.05)  # a polling interval, not a guess at how long anything takes
    pytest.fail(f"no match stored in {db} within {deadline_s} s")


def results(db: Path) -> list[tuple]:
    return query(db, "SELECT id, status, seat0, seat1, deal_seed, winner, score0, score1, reason, deals "
                     "FROM matches ORDER BY id") \
        + query(db, "SELECT match_id, idx, deck, actions, winner, game_points FROM deals ORDER BY match_id, idx")


def stored_seed(db: Path) -> int:
    return query(db, "SELECT seed FROM tournaments")[0][0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------------- the seed


@pytest.mark.slow
def test_random_seed_is_printed_stored_and_reused_by_the_resume(tmp_path: Path) -> None:
    db = tmp_path / "killed" / "arena.db"
    gate = held(tmp_path)  # the run cannot finish before the kill, however late it comes
    config = write_config(tmp_path / "t.yaml", db, gate=gate)  # no seed: a random one
    proc = start_run(config)
    lines = wait_for_line(proc, "[1/6]")
    proc.send_signal(signal.SIGKILL)  # right after the first stored match
    proc.wait(timeout=60)
    assert proc.stderr is not None
    proc.stderr.close()
    found = [re.fullmatch(r"arena: seed (\d+) \(random; a config with seed: (\d+) and a new database plays these "
                          r"deals again\)\n", line)
             for line in lines]
    seeds = [m for m in found if m]
    assert len(seeds) == 1 and seeds[0][1] == seeds[0][2], lines
    seed = int(seeds[0][1])
    assert 0 <= seed < 2**63
    assert stored_seed(db) == seed
    done = done_count(db)
    assert 1 <= done < 6
    assert Path(f"{db}.lock").exists()  # left behind by SIGKILL, but the kernel released its lock

    (gate / "hold").unlink()
    resumed = arena_run(str(config))
    assert resumed.returncode == 0, resumed.stderr
    assert f"arena: seed {seed} (random, kept in the database" in resumed.stderr
    assert f"{6 - done} to play" in resumed.stderr
    assert stored_seed(db) == seed
    assert not Path(f"{db}.lock").exists()  # a run that ends removes its lock file

    # The same seed written in the config replays the tournament exactly, without a random seed line.
    clean_db = tmp_path / "clean" / "arena.db"
    clean = arena_run(str(write_config(tmp_path / "clean.yaml", clean_db, seed=seed, gate=gate)))
    assert clean.returncode == 0, clean.stderr
    assert "arena: seed" not in clean.stderr
    assert results(db) == results(clean_db)

    fresh = arena_run(str(config), "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert f"arena: --fresh: removed {db}\n" in fresh.stderr
    new_seed = int(re.search(r"arena: seed (\d+) \(random; a config", fresh.stderr)[1])  # type: ignore[index]
    assert new_seed != seed and stored_seed(db) == new_seed


# --------------------------------------------------------------------------------------------- one writer


@pytest.mark.slow
def test_a_second_run_on_the_same_database_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    """The first run stores a match and then cannot finish: one of its bots never answers a turn it has ten
    minutes for (tests/bots/gate.py), so the second run meets it running, however slow the machine."""
    db = tmp_path / "arena.db"
    gate = held(tmp_path)
    config = write_config(tmp_path / "t.yaml", db, seed=2, gate=gate)
    first = start_run(config, out=tmp_path / "first.err")
    try:
        wait_for_stored_match(db, first)
        second = arena_run(str(config))
        assert second.returncode == 2, second.stderr
        # (as root, sandbox: none adds its warning line first: tests/test_security_warnings.py is about that)
        said = [line for line in second.stderr.splitlines() if "WARNING: bots run as root" not in line]
        assert said == [f"arena: {db} is in use by another arena run (pid {first.pid}); wait for it to finish or "
                        "stop it, then run again"], second.stderr
        fresh = arena_run(str(config), "--fresh")  # nor may --fresh delete what the first run writes
        assert fresh.returncode == 2 and "in use by another arena run" in fresh.stderr
        assert done_count(db) >= 1
        # reading is not blocked
        report = arena("report", str(db), "-o", str(tmp_path / "r"))
        assert report.returncode == 0, report.stderr
        assert first.poll() is None, "the first run ended while a match of it was held"
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=120)
    assert first.returncode == 130, (tmp_path / "first.err").read_text()
    (gate / "hold").unlink()  # gate.py plays every turn from here on
    after = arena_run(str(config))  # the lock went with the first run
    assert after.returncode == 0, after.stderr
    assert done_count(db) == 6


# --------------------------------------------------------------------------------------------- --fresh


def _foreign_text(path: Path, tmp_path: Path) -> None:
    path.write_text("my notes, not a database\n")


def _foreign_sqlite(path: Path, tmp_path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE tournaments (name TEXT)")  # one name in common is not enough
    con.execute("INSERT INTO tournaments VALUES ('safety')")
    con.commit()
    con.close()


def _other_tournament(path: Path, tmp_path: Path) -> None:
    other = arena_run(str(write_config(tmp_path / "other.yaml", path, seed=1, name="other")))
    assert other.returncode == 0, other.stderr


@pytest.mark.parametrize("make, why", [
    (_foreign_text, "not an SQLite database"),
    (_foreign_sqlite, "no arena tables"),
    (_other_tournament, "it holds tournament 'other'"),
])
def test_fresh_deletes_nothing_but_this_tournaments_database(tmp_path: Path, make, why) -> None:
    target = tmp_path / "data" / "precious.db"
    target.parent.mkdir()
    make(target, tmp_path)
    before = digest(target)
    listing = sorted(p.name for p in target.parent.iterdir())
    config = write_config(tmp_path / "t.yaml", target, seed=1)
    refused = arena_run(str(config), "--fresh")
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"arena: --fresh: {target} is not a database of tournament 'safety' ({why}")
    assert "nothing was deleted" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert digest(target) == before
    assert sorted(p.name for p in target.parent.iterdir()) == listing  # not even a -wal or -shm left over


def test_fresh_removes_its_own_database_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    config = write_config(tmp_path / "t.yaml", db, seed=1)
    assert arena_run(str(config)).returncode == 0
    fresh = arena_run(str(config), "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert f"arena: --fresh: removed {db}\n" in fresh.stderr and "2 to play" in fresh.stderr


# --------------------------------------------------------------------------------------------- output paths


@pytest.mark.parametrize("where", ["directory", "/proc/self/arena.db", "/dev/null", "under-a-file"])
def test_an_unusable_database_path_is_one_line_before_anything_runs(tmp_path: Path, where: str) -> None:
    db = {"directory": tmp_path, "under-a-file": tmp_path / "t.yaml" / "arena.db"}.get(where, Path(where))
    config = write_config(tmp_path / "t.yaml", db, seed=1)
    line = next(i for i, text in enumerate(config.read_text().splitlines(), 1) if "database:" in text)
    result = arena_run(str(config))
    assert result.returncode == 2
    assert result.stderr.startswith(f"arena: {config}:{line}: output.database: {db} ")
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_report_path_that_is_a_file_is_refused_before_anything_runs(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.yaml", tmp_path / "results" / "arena.db", seed=1, report=tmp_path / "t.yaml")
    result = arena_run(str(config), report=True)
    assert result.returncode == 2
    assert f"output.report: {tmp_path / 't.yaml'} is not a directory" in result.stderr
    assert not (tmp_path / "results").exists()  # not even the database's folder was made


# --------------------------------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 500 KiB tmpfs, and a function that makes it bigger; needs root."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=500k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")

    def grow() -> None:
        subprocess.run(["mount", "-o", "remount,size=64m", str(mount)], check=True)

    try:
        yield mount, grow
    finally:
        if subprocess.run(["umount", str(mount)]).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)])


@pytest.mark.slow
def test_a_full_disk_stops_the_run_with_one_line_and_a_later_run_resumes(tmp_path: Path, small_disk) -> None:
    mount, grow = small_disk
    db = mount / "arena.db"
    config = write_config(tmp_path / "t.yaml", db, seed=5, rounds=5)  # 10 matches: more than 500 KiB
    full = arena_run(str(config))
    assert full.returncode == 2, full.stderr
    last = full.stderr.splitlines()[-1]
    assert last == (f"arena: the disk is full: cannot write {db} (database or disk is full). Every finished "
                    "match is kept in the database; free some space, then run the same command again to resume.")
    assert "Traceback" not in full.stderr
    done = done_count(db)
    assert 1 <= done < 10  # the matches stored before the disk filled are kept

    grow()
    resumed = arena_run(str(config))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{10 - done} to play" in resumed.stderr
    clean_db = tmp_path / "clean" / "arena.db"
    assert arena_run(str(write_config(tmp_path / "clean.yaml", clean_db, seed=5, rounds=5))).returncode == 0
    assert results(db) == results(clean_db)


def test_a_full_disk_under_the_report_is_one_line_and_the_results_are_kept(tmp_path: Path, small_disk) -> None:
    mount, _ = small_disk
    filler = mount / "filler"
    with filler.open("wb") as f:  # leave the report about 40 KiB: less than its first pages
        f.write(b"\0" * (460 * 1024))
    db = tmp_path / "arena.db"
    config = write_config(tmp_path / "t.yaml", db, seed=5, report=mount / "report")
    result = arena_run(str(config), report=True)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"arena: the disk is full: cannot write {mount / 'report'} (")
    assert "Traceback" not in result.stderr
    assert done_count(db) >= 1


# --------------------------------------------------------------------------------------------- SIGHUP


def test_sighup_stops_cleanly_and_keeps_every_finished_match(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    gate = held(tmp_path)
    config = write_config(tmp_path / "t.yaml", db, seed=3, gate=gate)
    proc = start_run(config)
    wait_for_line(proc, "[1/6]")
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Run the same command again to resume" in err
    assert "Traceback" not in err
    done = done_count(db)
    assert done >= 1 and query(db, "SELECT count(DISTINCT match_id) FROM deals")[0][0] == done
    (gate / "hold").unlink()
    resumed = arena_run(str(config))
    assert resumed.returncode == 0 and f"{6 - done} to play" in resumed.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_arena_match_interrupted_says_so_and_leaves_no_bot(sig: signal.Signals) -> None:
    """Ctrl-C (or a closed terminal, or SIGTERM) in `arena match`: the summary of what was played, one line
    saying it was interrupted, exit 130, no traceback, and no bot left running."""
    marker = f"{os.getpid()}{sig.value}{time.monotonic_ns()}"  # an argument slow.py ignores, to find its processes
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", f"python {ROOT}/bots/greedy.py", f"{BOTS}/slow.py 20 {marker}",
         "--matches", "1000", "--concurrency", "2", "--set", "match_target=1", "--seed", "5"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_line(proc, "  match ")  # one match played
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    last = err.splitlines()[-1]
    assert re.fullmatch(r"arena: interrupted after (\d+) of 1000 matches", last), err
    played = int(last.split()[3])
    assert played >= 1 and out.startswith(f"greedy vs slow: {played} matches of santase")
    left = [p for p in os.listdir("/proc") if p.isdigit() and marker in _cmdline(p)]
    assert left == []


def test_arena_match_stops_on_sigterm_while_a_bot_floods_info_lines(tmp_path: Path) -> None:
    """A bot that writes `info` lines without end, with ten minutes to answer: SIGTERM still stops `arena
    match` at once (the referee lets trio run between the lines it reads), with the usual last line."""
    flooding = tmp_path / "flooding"
    os.mkfifo(flooding)
    fd = os.open(flooding, os.O_RDONLY | os.O_NONBLOCK)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "match", f"{BOTS}/chatter.py turn {flooding}", f"{BOTS}/good.py",
             "--matches", "2", "--move-time", "10m", "--seed", "5", "--sandbox", "none"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert select.select([fd], [], [], 60)[0], "the bot never began its flood"
    finally:
        os.close(fd)
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("SIGTERM did not stop arena match during the flood")
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.splitlines()[-1] == "arena: interrupted after 0 of 2 matches", err


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
