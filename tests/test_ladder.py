"""`arena ladder`: real bots in the sandbox, a real SQLite file, real processes killed with SIGKILL."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import ARENA, BOTS, HANG_S, ROOT, arena

from arena.game.variants import PRESETS
from arena.referee.clock import TimeControl
from arena.serve.ladder import LadderSite
from arena.stats.ladder import Entrant, PairResult, ladder_ratings
from arena.store.ladder import LadderStore, LadderVersion
from arena.tournament.ladder import (
    LadderSettings,
    RunOptions,
    admit,
    anchored,
    init_ladder,
    register_version,
    run_ladder,
)
from arena.tournament.ladder import standings as ladder_standings

PAIRS = 6


def ladder(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena("ladder", str(db), *args)


def rated_pairs(db: Path) -> list[tuple[int, str, str, float]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT seq, first, second, score FROM ladder_pairs WHERE kind = 'rated' "
                            "AND status = 'done' ORDER BY seq").fetchall()


def played_matches(db: Path) -> list[tuple[str, str]]:
    """Every finished rated match that counts, with its result: each must be there once."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT m.id, m.winner FROM matches m JOIN ladder_matches lm ON lm.match_id = m.id "
                            "WHERE m.status = 'done' AND lm.void = 0 AND m.id LIKE 'L%' ORDER BY m.id").fetchall()


def standings(db: Path) -> dict:
    out = ladder(db, "standings", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def new_ladder(db: Path, *bots: tuple[str, str]) -> None:
    """A ladder with these bots admitted, made through the library (the CLI's own tests are below): each
    `arena` process costs a second of start-up on a busy machine."""
    with LadderStore(lad_init(db)) as store:
        for name, command in bots:
            version = register_version(store, name, command)
            assert isinstance(version, LadderVersion)
            assert admit(store, version).status == "admitted"


def lad_init(db: Path) -> Path:
    init_ladder(db, PRESETS["santase"], LadderSettings(TimeControl(move_ms=5000), pairs_in_flight=2), seed=11)
    return db


def copy_db(src: Path, dst: Path) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


@pytest.mark.slow
def test_killed_three_times_and_resumed_ends_as_a_ladder_never_killed(tmp_path, c_bots):
    start = tmp_path / "start.db"
    new_ladder(start, ("random", f"{c_bots}/random 1"), ("chance", f"{c_bots}/random 2"),
               ("greedy", f"{c_bots}/greedy"))
    whole, killed = tmp_path / "whole.db", tmp_path / "killed.db"
    copy_db(start, whole)
    copy_db(start, killed)

    for kill_after in (1, 1, 2):  # rated pairs this run reports before it is killed
        # (no --pairs bound it could reach first: a fast machine finishes pairs in flight before the kill lands)
        proc = subprocess.Popen([*ARENA, "ladder", str(killed), "run", "--pairs", "1000"], cwd=ROOT,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        seen = 0
        for line in proc.stderr:
            seen += line.startswith("arena: rated pair ")
            if seen == kill_after:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=HANG_S)
        proc.stderr.close()
        assert seen == kill_after, "the run ended before it could be killed"
    pairs = len(rated_pairs(killed)) + 2  # the resumed run has pairs of its own to play
    assert len(rated_pairs(killed)) < pairs
    out = ladder(killed, "run", "--pairs", str(pairs))
    assert out.returncode == 0, out.stderr
    out = ladder(whole, "run", "--pairs", str(pairs))  # the same ladder, never killed
    assert out.returncode == 0, out.stderr

    assert len(rated_pairs(whole)) == pairs
    assert rated_pairs(killed) == rated_pairs(whole)
    assert played_matches(killed) == played_matches(whole)
    assert len(played_matches(killed)) == 2 * pairs  # every result once
    assert standings(killed)["standings"] == standings(whole)["standings"]
    assert_standings_are_the_replay_of_every_pair(whole)


def assert_standings_are_the_replay_of_every_pair(db: Path) -> None:
    """The standings read from each version's last rating point are what replaying every applied pair from
    the start gives (arena.stats.ladder.ladder_ratings)."""
    with LadderStore(db) as store:
        now = ladder_standings(store)
        entrants = [Entrant(v.key, v.program, v.status == "admitted") for v in store.versions()
                    if v.since_pair is not None]
        replayed = ladder_ratings(entrants, [PairResult(p.first, p.second, p.score) for p in store.pairs("rated")
                                             if p.applied and p.score is not None])
    assert [(r.key, r.rank, r.rank_low, r.rank_high, r.provisional, r.pairs) for r in now] == \
        [(r.key, r.rank, r.rank_low, r.rank_high, r.provisional, r.pairs) for r in replayed]
    assert all(abs(a.rating - b.rating) < 1e-6 and abs(a.low - b.low) < 1e-6
               for a, b in zip(now, replayed, strict=True))


@pytest.mark.slow
def test_a_version_added_while_the_ladder_runs_is_placed_and_a_broken_one_refused(tmp_path, c_bots):
    db = tmp_path / "l.db"
    new_ladder(db, ("random", f"{c_bots}/random 1"))
    # with one bot the run waits for a second; it ends by itself once it has played its pairs
    proc = subprocess.Popen([*ARENA, "ladder", str(db), "run", "--pairs", "3"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out = ladder(db, "add", "greedy", f"{c_bots}/greedy", "--author", "Ana")
        assert out.returncode == 0 and "admitted" in out.stdout, out.stdout + out.stderr
        broken = ladder(db, "add", "broken", f"python3 {BOTS}/crash_turn.py")
        assert broken.returncode == 1
        assert "refused" in broken.stdout and "crash" in broken.stdout, broken.stdout
        same = ladder(db, "add", "greedy", f"{c_bots}/greedy")
        assert same.returncode == 0 and "nothing added" in same.stdout and "greedy." in same.stdout
        stdout, stderr = proc.communicate(timeout=HANG_S)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    got = standings(db)
    rows = {r["name"]: r for r in got["standings"]}
    assert set(rows) == {"random", "greedy"}  # the broken bot costs no rating and plays no pair
    assert rows["greedy"]["pairs"] == 3 and rows["greedy"]["author"] == "Ana"
    assert rows["greedy"]["rank"] in (1, 2) and rows["greedy"]["rank_low"] <= rows["greedy"]["rank_high"]
    refused = [w for w in got["not_rated"] if w["key"].startswith("broken.")]
    assert refused and refused[0]["status"] == "refused" and "crash" in refused[0]["reason"]
    # ladder matches are a tournament's matches to the rest of arena
    with sqlite3.connect(db) as conn:
        (match_id,) = conn.execute("SELECT id FROM matches WHERE status = 'done' LIMIT 1").fetchone()
    shown = arena("transcript", str(db), match_id)
    assert shown.returncode == 0 and "> match " in shown.stdout


@pytest.mark.slow
def test_a_new_version_retires_the_old_and_challenges_are_never_rated(tmp_path, c_bots):
    db = tmp_path / "l.db"
    mine = tmp_path / "mine"
    mine.mkdir()
    mine.chmod(0o755)
    tmp_path.chmod(0o755)
    shutil.copy(c_bots / "random", mine / "bot")
    new_ladder(db, ("mine", f"{mine}/bot 1"), ("greedy", f"{c_bots}/greedy"))
    assert ladder(db, "run", "--pairs", "2").returncode == 0
    shutil.copy(c_bots / "greedy", mine / "bot")  # a new program under the same name
    out = ladder(db, "add", "mine", f"{mine}/bot --seed 2")  # (greedy takes options only)
    assert out.returncode == 0 and "admitted" in out.stdout, out.stdout + out.stderr
    assert ladder(db, "challenge", "mine", "greedy", "--pairs", "1").returncode == 0
    assert ladder(db, "run", "--pairs", "4").returncode == 0
    rows = standings(db)["standings"]
    versions = [r for r in rows if r["name"] == "mine"]
    assert len(versions) == 2 and sorted(r["active"] for r in versions) == [False, True]
    old = next(r for r in versions if not r["active"])
    assert old["pairs"] == 2  # retired after its two pairs: it keeps its rating and plays no more
    assert sum(r["pairs"] for r in rows) == 2 * 4  # the challenge is stored but not rated
    names = [r["name"] for r in rows]  # the retired version just below its name's current one
    assert rows[names.index("mine")]["active"] and rows[names.index("mine") + 1]["key"] == old["key"]
    from arena.report import context as ctx
    from arena.store import Store

    with Store.open_existing(db) as store:
        data = ctx.load(store, bootstrap=0)
    assert len(data.done) == 2 * 4 + 2 and len(data.results) == 2 * 4  # the report rates no challenge either
    before = rated_pairs(db)
    assert len(before) == 4

    # a machine's results voided: the ratings forget them, and the next run plays those pairs again
    void = ladder(db, "void", "--worker", socket.gethostname())
    assert void.returncode == 0 and "4 pairs" in void.stdout, void.stdout + void.stderr
    assert all(r["pairs"] == 0 for r in standings(db)["standings"])
    assert ladder(db, "run", "--pairs", "4").returncode == 0
    after = rated_pairs(db)
    assert [(seq, a, b) for seq, a, b, _ in after] == [(seq, a, b) for seq, a, b, _ in before]
    with sqlite3.connect(db) as conn:
        assert {a for (a,) in conn.execute("SELECT attempt FROM ladder_pairs WHERE kind = 'rated'")} == {1}


def test_bad_input_is_one_line_and_a_token_is_kept_only_as_its_hash(tmp_path):
    db = tmp_path / "l.db"
    out = ladder(db, "run")
    assert out.returncode == 2 and "no such ladder" in out.stderr and "Traceback" not in out.stderr
    assert ladder(db, "init", "--move-time", "fast").returncode == 2
    assert ladder(db, "init").returncode == 0
    soon = ladder(db, "run", "--for", "soon")
    assert soon.returncode == 2 and "--for" in soon.stderr and "Traceback" not in soon.stderr
    idle = ladder(db, "run", "--for", "1s")  # no bots: it waits, and stops when the time is up
    assert idle.returncode == 0 and "0 pairs played" in idle.stdout
    again = ladder(db, "init")
    assert again.returncode == 2 and "already holds a ladder" in again.stderr
    bad = ladder(db, "add", "-x", "true")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    nowhere = ladder(db, "add", "x", "true", "--cwd", str(tmp_path / "nowhere"))
    assert nowhere.returncode == 2 and nowhere.stderr.strip() == f"arena: --cwd: {tmp_path / 'nowhere'}: no such folder"
    nobody = ladder(db, "challenge", "a", "b")
    assert nobody.returncode == 2 and "no admitted bot" in nobody.stderr
    out = ladder(db, "token", "Ana")
    token = out.stdout.strip()
    assert out.returncode == 0 and len(token) >= 24
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT hash, author FROM ladder_tokens").fetchall()
    assert len(rows) == 1 and rows[0][1] == "Ana" and token not in rows[0][0]


def test_an_admission_whose_process_died_is_taken_up_by_the_next_add_or_server(tmp_path):
    db = tmp_path / "l.db"
    init_ladder(db, PRESETS["santase"], LadderSettings(TimeControl(move_ms=600_000)), seed=3)
    gate = tmp_path / "gate"
    gate.mkdir()
    (gate / "hold").touch()
    (gate / "passed").touch()  # every process of it is held at its first turn: no admission can end
    commands = {"added": f"{BOTS}/gate.py {gate}", "uploaded": f"{BOTS}/gate.py {gate} another-program"}
    pids = {}
    for name, command in commands.items():
        add = [*ARENA, "ladder", str(db), "add", name, command, "--sandbox", "none"]
        proc = subprocess.Popen(add, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().endswith(": checking (arena check, then a validation pair against itself) ...\n")
        proc.kill()  # as a closed terminal or a crash would: nothing of arena's runs after it
        proc.communicate(timeout=HANG_S)
        pids[name] = proc.pid
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT program, status, reason FROM ladder_versions ORDER BY program").fetchall()
    assert rows == [(name, "pending", f"being admitted by pid {pids[name]} on {socket.gethostname()}")
                    for name in sorted(commands)]
    (gate / "hold").unlink()
    again = ladder(db, "add", "added", commands["added"], "--sandbox", "none")  # the same program again
    assert again.returncode == 0 and again.stdout.splitlines()[-1].endswith(
        f" admitted; the next `arena ladder {db} run` places it")
    LadderSite(db, "none").resume_admissions()  # what `arena serve --ladder` does as it starts
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT program, status FROM ladder_versions ORDER BY program").fetchall() == [
            ("added", "admitted"), ("uploaded", "admitted")]


def test_a_versions_build_output_is_kept_through_its_admission(tmp_path):
    with LadderStore(lad_init(tmp_path / "l.db")) as store:
        version = LadderVersion("b.0123abcd", "b", "", "./b", ("./b",), None, "make", "0123abcd", "pending", "",
                                "2026-12-04T00:00:00+00:00", None, None)
        store.add_version(version, "cc -o b b.c\n")
        store.decide_version(version.key, True)
        assert [(b.name, b.build_output) for b in store.bots("ladder")] == [(version.key, "cc -o b b.c\n")]


def test_a_versions_page_reads_a_thinned_history_and_its_latest_matches(tmp_path, c_bots):
    """A semester's history is drawn from about HISTORY_POINTS points, its last among them, and the latest
    matches come from the seats' indexes, as the full reads give them."""
    db = tmp_path / "l.db"
    new_ladder(db, ("random", f"{c_bots}/random 1"), ("greedy", f"{c_bots}/greedy"))
    run_ladder(db, RunOptions(pairs=7))
    with LadderStore(db) as store:
        key = next(v.key for v in store.versions() if v.program == "greedy")
        full = store.history(key)
        thin = store.history(key, points=3)
        assert len(full) == 7 and thin[-1] == full[-1]
        assert [p.rating.pairs for p in thin] == [3, 6, 7]  # every third (7 / 3, rounded up), and the last
        recent = store.recent_matches(key, limit=5)
        every = store.db.execute("SELECT id FROM matches WHERE status = 'done' AND (seat0 = ? OR seat1 = ?) "
                                 "ORDER BY finished_at DESC, ord DESC", [key, key]).fetchall()
    assert [r[0] for r in recent] == [r[0] for r in every[:5]]


def test_ratings_have_an_anchor_and_a_version_one_word_for_its_state(tmp_path, c_bots):
    """init --anchor NAME puts that bot's current version at 0 on every page (the mean of the bots in play
    without it), and `standings` says a version's state in the pages' words."""
    db = tmp_path / "l.db"
    assert ladder(db, "init", "--variant", "santase", "--move-time", "5s", "--anchor", "greedy",
                  "--seed", "5").returncode == 0
    with LadderStore(db) as store:
        for name, command in (("random", f"{c_bots}/random 1"), ("greedy", f"{c_bots}/greedy")):
            version = register_version(store, name, command)
            assert admit(store, version).status == "admitted"
    out = ladder(db, "standings")
    assert out.stdout.count("admitted, placed by the next rated pair") == 2, out.stdout
    assert "Rating 0 is greedy's current version." in out.stdout
    run_ladder(db, RunOptions(pairs=3))
    got = standings(db)
    rows = {r["name"]: r for r in got["standings"]}
    assert got["anchor"] == "greedy" and rows["greedy"]["rating"] == 0 and rows["random"]["rating"] < 0
    with LadderStore(db) as store:
        mean, _ = anchored(store, anchor="mean")
    assert abs(sum(r.rating for r in mean)) < 1e-6  # the mean of the bots in play at 0
    assert ladder(db, "init", "--anchor", "no good", "--variant", "santase").returncode == 2
