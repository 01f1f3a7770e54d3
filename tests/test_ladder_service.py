"""`arena ladder DB serve`: the competition in one command. Started on a real ladder, an upload through the
form is admitted and placed by the pairs the same process tree plays; a SIGKILL of the command leaves
nothing playing, the same command resumes, and every rated pair is played once; SIGTERM stops it cleanly."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import HANG_S
from test_ladder import new_ladder
from test_ladder_serve import form_part, post_parts
from test_serve import Server, spawn_server

from arena.referee.sandbox import bwrap_problem
from arena.store.ladder import LadderStore
from arena.tournament.ladder import new_token

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")]


def start(db: Path) -> Server:
    server = spawn_server(db, db.parent, "ladder", str(db), "serve", "--port", "0")
    assert "playing its pairs" in server.first_line
    return server


def rated(db: Path) -> list[tuple[int, str, str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT seq, first, second, status FROM ladder_pairs WHERE kind = 'rated' "
                            "ORDER BY seq").fetchall()


def wait_for(what: str, ready: object, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_S  # anti-hang only
    while time.monotonic() < deadline and proc.poll() is None:
        if ready():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"never: {what} (exit status {proc.poll()})")


def children_of(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out


def gone(pid: int) -> bool:
    """No such process, or a zombie (dead, not yet reaped by its new parent)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_one_command_serves_admits_plays_and_resumes(tmp_path: Path, c_bots: Path) -> None:
    db = tmp_path / "l.db"
    new_ladder(db, ("random", f"{c_bots}/random 1"), ("greedy", f"{c_bots}/greedy"))
    with LadderStore(db) as store:
        token = new_token(store, "Ana")
    server = start(db)
    try:
        status, body = post_parts(server, [form_part("name", b"upload"), form_part("command", b"./random 5"),
                                           form_part("files", (c_bots / "random").read_bytes(), "random")], token)
        assert status == 202, body
        wait_for("the upload plays a rated pair", lambda: any(
            "upload." in (a + b) and s == "done" for _, a, b, s in rated(db)), server.proc)
        run = children_of(server.proc.pid)
        assert run, "the ladder run is a child of the command"
        server.proc.kill()  # SIGKILL: the run, and its bots, die with it
        server.proc.communicate(timeout=HANG_S)
        deadline = time.monotonic() + HANG_S  # anti-hang only
        while time.monotonic() < deadline and not all(gone(p) for p in run):
            time.sleep(0.1)
        assert all(gone(p) for p in run), "the run outlived a SIGKILLed server"
        before = len(rated(db))
        server = start(db)
        wait_for("more pairs after the restart", lambda: sum(s == "done" for *_, s in rated(db)) >= before + 3,
                 server.proc)
        server.proc.send_signal(signal.SIGTERM)
        _, err = server.proc.communicate(timeout=HANG_S)
        assert server.proc.returncode == 0, err
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.communicate(timeout=HANG_S)
    pairs = rated(db)
    assert [seq for seq, *_ in pairs] == list(range(len(pairs)))  # each seq once
    with sqlite3.connect(db) as conn:
        counts = conn.execute(
            "SELECT p.seq, count(*) FROM ladder_pairs p JOIN ladder_matches lm ON lm.pair_id = p.id "
            "JOIN matches m ON m.id = lm.match_id WHERE p.kind = 'rated' AND p.status = 'done' AND lm.void = 0 "
            "AND m.status = 'done' GROUP BY p.seq").fetchall()
    assert counts and all(n == 2 for _, n in counts), counts  # every finished pair: its two matches, once
