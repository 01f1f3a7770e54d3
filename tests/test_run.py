"""`arena run` end to end: real bots, a real SQLite file, interruption by SIGKILL, resume, config checks."""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOTS, ROOT, arena_run

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile


def write_config(path: Path, db: Path, extra: str = "", slow_ms: int = 20, gate: Path | None = None,
                 rounds: int = 2) -> Path:
    """Greedy, random and slow.py; with ``gate`` (a folder), tests/bots/gate.py instead of slow.py, with ten
    minutes a move: while ``gate``/hold exists the run stores matches but cannot finish, however fast the
    machine runs it and however late the test's signal comes."""
    third = f"{BOTS}/slow.py {slow_ms}"
    if gate is not None:
        third = f"{BOTS}/gate.py {gate}\n    time: {{move: 10m}}"
        extra += "\nsandbox: none"  # gate.py reads its folder under pytest's 0700 tmp
    path.write_text(f"""
name: resume-test
variant: {{preset: santase, match_target: 4}}  # short matches: these tests are about stopping and resuming
rounds: {rounds}
seed: 11
concurrency: 2
{extra}
time: {{move: 2s}}
bots:
  - name: greedy
    command: {ROOT}/bots/c/greedy
  - name: random
    command: {ROOT}/bots/c/random 4
  - name: slow
    command: {third}
output:
  database: {db}
  report: {db.parent / "report"}
""")
    return path


def held(tmp_path: Path) -> Path:
    """A folder for gate.py with its hold file: remove the file and the run can finish."""
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "hold").touch()
    return gate


def results(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        matches = con.execute(
            "SELECT id, status, seat0, seat1, winner, score0, score1, reason, deals FROM matches ORDER BY id"
        ).fetchall()
        deals = con.execute("SELECT match_id, idx, deck, actions, winner, game_points FROM deals "
                            "ORDER BY match_id, idx").fetchall()
    finally:
        con.close()
    return matches + deals


@pytest.mark.slow
def test_sigkill_then_resume_gives_the_uninterrupted_result(tmp_path):
    clean_db = tmp_path / "clean" / "arena.db"
    clean = arena_run(str(write_config(tmp_path / "clean.yaml", clean_db)))
    assert clean.returncode == 0, clean.stderr
    expected = results(clean_db)
    assert sum(1 for row in expected if row[1] == "done") == 12

    db = tmp_path / "killed" / "arena.db"
    gate = held(tmp_path)
    config = write_config(tmp_path / "killed.yaml", db, gate=gate)
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the runner logs a progress line (not a TTY) as soon as the first match is stored: kill it right there
    for line in proc.stderr:
        if line.startswith("[1/12]"):
            break
    else:
        pytest.fail("no progress line: " + proc.stdout.read())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    con = sqlite3.connect(db)
    done, pending = (con.execute(f"SELECT count(*) FROM matches WHERE status = '{s}'").fetchone()[0]
                     for s in ("done", "pending"))
    con.close()
    assert 1 <= done < 12 and done + pending == 12  # really interrupted in the middle

    (gate / "hold").unlink()
    resumed = arena_run(str(config))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{12 - done} to play" in resumed.stderr
    assert results(db) == expected


@pytest.mark.slow
def test_changed_config_is_refused_then_force_or_fresh(tmp_path):
    db = tmp_path / "arena.db"
    config = write_config(tmp_path / "t.yaml", db, slow_ms=0, rounds=1)
    assert arena_run(str(config)).returncode == 0
    write_config(config, db, extra="duplicate: false", slow_ms=0, rounds=1)
    refused = arena_run(str(config))
    assert refused.returncode == 2
    assert "different configuration" in refused.stderr and "--fresh" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert arena_run(str(config), "--force").returncode == 0
    fresh = arena_run(str(config), "--fresh")
    assert fresh.returncode == 0 and "6 to play" in fresh.stderr


@pytest.mark.slow
def test_run_prints_standings_and_workers_give_the_same_results(tmp_path):
    one_db = tmp_path / "one" / "arena.db"
    one = arena_run(str(write_config(tmp_path / "one.yaml", one_db, slow_ms=0)))
    assert one.returncode == 0, one.stderr
    assert "greedy" in one.stdout.splitlines()[1]  # the best bot tops the standings
    # the terminal's 95% intervals are the report's (the same resamples)
    rendered = subprocess.run([sys.executable, "-m", "arena", "report", str(one_db), "-o", str(tmp_path / "r")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert rendered.returncode == 0, rendered.stderr
    html = (tmp_path / "r" / "index.html").read_text().replace("\u2212", "-").replace("\u00b1", "+")
    intervals = [m[0] for m in (re.search(r"\[[+-]\d+, [+-]\d+\]", line) for line in one.stdout.splitlines()) if m]
    assert len(intervals) == 3 and all(i in html for i in intervals), (intervals, one.stdout)
    two_db = tmp_path / "two" / "arena.db"
    two = arena_run(str(write_config(tmp_path / "two.yaml", two_db, extra="workers: 2", slow_ms=0)))
    assert two.returncode == 0, two.stderr
    assert results(two_db) == results(one_db)


def test_bad_config_is_one_message_with_file_and_line(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\nrounds: two\nbots:\n  - name: a\n    command: ./missing-bot\n")
    result = arena_run(str(config))
    assert result.returncode == 2
    assert f"{config}:2: rounds" in result.stderr
    assert "Traceback" not in result.stderr


def test_ctrl_c_stops_cleanly_and_keeps_every_finished_match(tmp_path):
    db = tmp_path / "arena.db"
    gate = held(tmp_path)
    config = write_config(tmp_path / "t.yaml", db, gate=gate)
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        if line.startswith("[1/12]"):
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Run the same command again to resume" in err
    assert "Traceback" not in err
    con = sqlite3.connect(db)
    done = con.execute("SELECT count(*) FROM matches WHERE status = 'done'").fetchone()[0]
    deals = con.execute("SELECT count(DISTINCT match_id) FROM deals").fetchone()[0]
    con.close()
    assert done >= 1 and deals == done  # abandoned matches left nothing behind
    (gate / "hold").unlink()
    resumed = arena_run(str(config))
    assert resumed.returncode == 0 and f"{12 - done} to play" in resumed.stderr


def test_a_bot_program_changed_between_runs_is_refused_then_force(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    folder.chmod(0o755)  # a sandboxed bot runs as another user
    bot = folder / "bot.py"
    shutil.copy(ROOT / "bots" / "random.py", bot)
    db = tmp_path / "arena.db"
    config = tmp_path / "t.yaml"
    config.write_text(f"name: changed-bot\nrounds: 1\nseed: 5\nvariant: {{preset: santase, match_target: 1}}\n"
                      f"bots:\n  - {{name: mine, command: python {bot}}}\n"
                      f"  - {{name: random, command: python {ROOT}/bots/random.py}}\n"
                      f"output: {{database: {db}}}\n")
    assert arena_run(str(config)).returncode == 0
    with bot.open("a") as f:
        f.write("\n# a change between runs\n")
    refused = arena_run(str(config))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "the program of mine changed since tournament 'changed-bot' began" in refused.stderr
    assert arena_run(str(config), "--force").returncode == 0
