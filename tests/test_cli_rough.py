"""Rough edges a new user hit (issue 13), each through the real command line: `python -m arena ...` as a
subprocess, real bot processes (tests/bots, or a bot written here), real SQLite files.

Bots run without the sandbox (--sandbox none, sandbox: none) where the test is not about the sandbox.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import BOTS
from conftest import arena as arena_cli

import arena
from arena.referee.sandbox import bwrap_problem

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile


# ------------------------------------------------------------------ --version, bare `arena`, rules --help
def test_version_prints_the_package_version():
    result = arena_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"arena {arena.__version__}"


def test_bare_arena_prints_the_whole_help_and_exits_2_as_git_does():
    result = arena_cli()
    assert result.returncode == 2
    # the help itself (not only a usage line and an error): every command, and where to go next
    assert result.stdout.startswith("usage: arena")
    for command in ("match", "run", "report", "rules"):
        assert re.search(rf"^\s+{command}\s+\S", result.stdout, re.M), (command, result.stdout)
    assert "exit codes:" in result.stdout
    assert "error" not in result.stderr


def test_rules_help_describes_the_command():
    result = arena_cli("rules", "--help")
    assert result.returncode == 0, result.stderr
    # a description between the usage and the arguments, which says what is printed and how to override
    description = result.stdout.split("\n\n")[1]
    assert not description.startswith(("positional arguments", "options")), result.stdout
    assert "rule parameter" in description and "--set" in description


# ------------------------------------------------------------------ --sprt before the bots
def test_sprt_before_the_bots_leaves_them_to_bot_a_and_bot_b():
    for sprt in (["elo0=0", "elo1=200", "alpha=0.1", "beta=0.1"], ["elo0=0,elo1=200,alpha=0.1,beta=0.1"]):
        result = arena_cli("match", "--sprt", *sprt, "bots/c/greedy", "bots/c/random 3",
                           "--matches", "2", "--seed", "4", "--sandbox", "none", "--json")
        assert result.returncode == 0, (sprt, result.stderr)
        summary = json.loads(result.stdout)
        assert summary["bots"] == ["greedy-c", "random-c"]
        assert summary["sprt"]["elo1"] == 200 and summary["sprt"]["alpha"] == 0.1, summary["sprt"]
    # and between the bots
    result = arena_cli("match", "bots/c/greedy", "--sprt", "elo0=0", "elo1=200", "bots/c/random 3",
                       "--matches", "2", "--seed", "4", "--sandbox", "none", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bots"] == ["greedy-c", "random-c"]


# ------------------------------------------------------------------ --set typos
def test_set_typo_gets_did_you_mean_before_any_bot_starts():
    for args in (["match", "python bots/greedy.py", "./no-such-bot", "--set", "match_targt=7"],
                 ["rules", "santase", "--set", "match-targt=7"]):
        result = arena_cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        assert "unknown rule parameter" in lines[0] and "(did you mean 'match_target'?)" in lines[0], lines


# ------------------------------------------------------------------ a crash says why
TRACEBACK_END = "RuntimeError: crash_turn: deliberate crash at the first turn"
START_TRACEBACK_END = "RuntimeError: crash_start: deliberate crash before the handshake"


def test_match_summary_shows_the_end_of_a_crashed_bots_stderr():
    result = arena_cli("match", "tests/bots/crash_turn.py", "tests/bots/good.py", "--matches", "2", "--seed", "1",
                       "--sandbox", "none")
    assert result.returncode == 0, result.stderr
    summary = result.stdout
    assert "terminations: crash 2" in summary
    # under the summary: which match, the referee's reason, and the traceback's last line (not only "(crash)")
    assert "crash_turn: crash (the first of 2 terminations) in match crash_turn-vs-good-p0-g0:" in summary
    assert "exited with status 1 while the referee waited for the turn" in summary
    assert f"| {TRACEBACK_END}" in summary
    # the per-match progress line says why too
    assert "(crash by crash_turn: the bot exited with status 1" in result.stderr
    as_json = arena_cli("match", "tests/bots/crash_turn.py", "tests/bots/good.py", "--matches", "2", "--seed", "1",
                        "--sandbox", "none", "--json")
    first = json.loads(as_json.stdout)["first_termination"]
    assert first["good"] is None
    assert first["crash_turn"]["kind"] == "crash" and first["crash_turn"]["stderr_tail"][-1] == TRACEBACK_END


def test_run_progress_and_standings_show_the_end_of_a_crashed_bots_stderr(tmp_path: Path):
    config = tmp_path / "t.yaml"
    config.write_text(f"""
name: crashers
seed: 3
rounds: 1
sandbox: none
concurrency: 1
variant: {{preset: santase, match_target: 2}}
bots:
  - name: crash_turn
    command: {BOTS}/crash_turn.py
  - name: good
    command: {BOTS}/good.py
output:
  database: {tmp_path / "arena.db"}
""")
    result = arena_cli("run", str(config), "--no-report")
    assert result.returncode == 0, result.stderr
    # progress (stderr, not a terminal): the first termination of the bot, at once, with its stderr
    assert "arena: crash_turn: crash in match crash_turn-vs-good-p0-g0:" in result.stderr
    assert f"| {TRACEBACK_END}" in result.stderr
    # standings: the column counts them, and the note under the table says why
    assert re.search(r"crash_turn .* crash 2$", result.stdout, re.M), result.stdout
    assert "crash_turn: crash (the first of 2 terminations) in match crash_turn-vs-good-p0-g0:" in result.stdout
    assert f"| {TRACEBACK_END}" in result.stdout


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_a_bot_that_cannot_start_stops_run_and_match_before_any_match(tmp_path: Path, sandbox: str):
    """A bot that crashes before its handshake would lose every match the same way: `arena run` and `arena
    match` start each bot once first, and stop with one message (exit 2) naming the bot, the termination,
    the end of its stderr; nothing is played or stored."""
    if sandbox == "bwrap" and bwrap_problem() is not None:
        pytest.skip(f"no sandbox here: {bwrap_problem()}")
    config = tmp_path / "t.yaml"
    database = tmp_path / "db" / "arena.db"
    config.write_text(f"name: crashers\nseed: 3\nrounds: 6\nsandbox: {sandbox}\nbots:\n"
                      f"  - {{name: good, command: {BOTS}/good.py}}\n"
                      f"  - {{name: crash_start, command: {BOTS}/crash_start.py}}\n"
                      f"output: {{database: {database}}}\n")
    run = arena_cli("run", str(config), "--no-report")
    match = arena_cli("match", "tests/bots/crash_start.py", "tests/bots/good.py", "--matches", "4", "--seed", "1",
                      "--sandbox", sandbox, "--db", str(tmp_path / "m.db"))
    for result, where in ((run, f"{config}:7: bots[1]: bot crash_start"),
                          (match, f"{BOTS}/crash_start.py: bot crash_start")):
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr.split("|")[0] and "match 1/" not in result.stderr, result.stderr
        said = "".join(line for line in result.stderr.splitlines(True) if not line.startswith("arena: WARNING"))
        assert said.startswith("arena: a bot could not start and complete the handshake, so no match was "
                               "played:\n"), result.stderr
        assert f"{where} did not complete its handshake (crash):" in result.stderr
        assert "exited with status 1 while the referee waited for the handshake" in result.stderr
        assert f"| {START_TRACEBACK_END}" in result.stderr
        assert "good" not in result.stderr.replace(str(BOTS / "good.py"), "")
    assert not database.exists() and not (tmp_path / "m.db").exists()


# ------------------------------------------------------------------ stderr after match-end and quit is kept
LATE_BOT = '''#!/usr/bin/env python3
"""Plays the first legal action; writes to stderr after match-end and after quit, each after a pause, as a
bot that flushes its logs on the way out would."""
import sys
import time


def send(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        send("bot 1 late")
    elif words[0] == "turn":
        legal = next(w for w in words if w.startswith("legal="))[len("legal="):].split(",")
        send(legal[0].replace(":", " "))
    elif words[0] == "match-end":
        time.sleep(0.05)
        sys.stderr.write("late: summary written after match-end\\n")
        sys.stderr.flush()
    elif words[0] == "quit":
        time.sleep(0.05)
        sys.stderr.write("late: goodbye written after quit\\n")
        sys.stderr.flush()
        sys.exit(0)
'''


def test_stderr_written_after_match_end_and_quit_is_in_the_transcript(tmp_path: Path):
    folder = tmp_path / "bot"
    folder.mkdir()
    bot = folder / "late.py"
    bot.write_text(LATE_BOT)
    bot.chmod(0o755)
    out = tmp_path / "transcripts"
    result = arena_cli("match", str(bot), "tests/bots/good.py", "--matches", "2", "--seed", "6",
                       "--set", "match_target=2", "--sandbox", "none", "--transcripts", str(out), "--db",
                       str(tmp_path / "m.db"))
    assert result.returncode == 0, result.stderr
    logs = sorted(out.glob("*-late.log"))
    assert len(logs) == 2, sorted(p.name for p in out.iterdir())
    for log in logs:
        text = log.read_text()
        stderr = text.split("--- stderr ---", 1)[1]
        assert "late: summary written after match-end" in stderr, text
        assert "late: goodbye written after quit" in stderr, text
    # the same in the database that `arena report` renders
    import sqlite3
    import zlib

    con = sqlite3.connect(tmp_path / "m.db")
    try:
        # stored compressed (docs/DATABASE.md): one zlib.decompress reads it back
        kept = [zlib.decompress(row[0]).decode() for row in con.execute(
            "SELECT stderr FROM transcripts WHERE bot = 'late'")]
    finally:
        con.close()
    assert len(kept) == 2 and all("goodbye written after quit" in s for s in kept), kept


# ------------------------------------------------------------------ the SPRT line
@pytest.mark.slow
def test_sprt_line_counts_matches_and_says_what_the_test_decided():
    result = arena_cli("match", "bots/c/greedy", "bots/c/random 3", "--names", "greedy", "random", "--matches", "200",
                       "--seed", "2", "--sprt", "elo0=0", "elo1=100", "--sandbox", "none")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    sprt = text[text.index("  SPRT: "):]
    m = re.match(r"  SPRT: H1 accepted after (\d+) matches \((\d+) duplicate pairs\): LLR ([+-][\d.]+) reached the "
                 r"H1 bound \+2\.944 \(H0 bound -2\.944\)", sprt)
    assert m, sprt
    assert 0 < int(m[1]) < 200 and int(m[1]) == 2 * int(m[2]) and float(m[3]) >= 2.944
    assert " games" not in sprt
    flat = " ".join(sprt.split())
    assert "H0: greedy is +0 Elo against random; H1: greedy is +100 Elo against random." in flat
    assert "it does not measure the difference" in flat
    assert "about +100" not in flat  # no claim that the difference is elo1
    # no verdict: said so, and the JSON counts matches under both names
    undecided = arena_cli("match", "bots/c/greedy", "bots/c/random 3", "--matches", "2", "--seed", "2",
                          "--sprt", "elo0=0", "elo1=100", "--sandbox", "none", "--json")
    sp = json.loads(undecided.stdout)["sprt"]
    assert sp["verdict"] is None and sp["matches"] == sp["games"] == 2


# ------------------------------------------------------------------ exit codes in --help
def test_help_lists_the_exit_codes_the_commands_use(tmp_path: Path):
    result = arena_cli("--help")
    assert result.returncode == 0, result.stderr
    epilog = result.stdout[result.stdout.index("exit codes:"):]
    listed = dict(re.findall(r"^\s+(\d+)\s+(\S.*)$", epilog, re.M))
    assert set(listed) == {"0", "1", "2", "130"}, epilog
    assert "interrupted" in listed["130"] and "bad input" in listed["2"]
    # the listed codes are the ones a user meets
    assert arena_cli("rules", "santase").returncode == 0
    assert arena_cli("rules", "santase", "--set", "colour=red").returncode == 2


# ------------------------------------------------------------------ what a killed run leaves in /tmp
def test_the_bot_folders_a_killed_run_left_are_removed_by_the_next_run():
    """An unsandboxed bot works in a folder of its own in /tmp, named with its referee's pid. A SIGKILLed
    referee cannot remove it; the next run removes those whose referee is gone, and leaves a running one's."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    base = Path(tempfile.gettempdir())
    dead, alive = (base / f"arena-greedy-p{pid}-{secrets.token_hex(4)}" for pid in (gone.pid, 1))
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "state").write_text("left behind\n")
    try:
        result = arena_cli("match", "python bots/greedy.py", "python bots/random.py", "--matches", "1", "--seed", "4",
                           "--sandbox", "none")
        assert result.returncode == 0, result.stderr
        assert not dead.exists() and (alive / "state").exists()
    finally:
        shutil.rmtree(dead, ignore_errors=True)
        shutil.rmtree(alive, ignore_errors=True)
