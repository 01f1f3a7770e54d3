"""format: swiss end to end: nine real bots for three rounds through `arena run` and a real SQLite file, a
run killed by SIGKILL after its first round and resumed, the report, bad configs; and the pairing itself
(arena.tournament.swiss over caissify-pairings) on made-up results."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import HANG_S, ROOT, arena_run

from arena.stats.swiss import BYE_POINTS, SwissGame, swiss_table
from arena.tournament.config import load_config
from arena.tournament.swiss import SwissError, swiss_pairings

BOTS = ["greedy", "random-py", *(f"c-random-{n}" for n in range(1, 8))]


def write_config(path: Path, extra: str = "rounds: 3") -> Path:
    """Nine fast bots: greedy, the Python random bot and seven seeds of the C random bot; short matches."""
    commands = [f"python {ROOT}/bots/greedy.py", f"python {ROOT}/bots/random.py --seed 1",
                *(f"{ROOT}/bots/c/random {n}" for n in range(1, 8))]
    bots = "".join(f"  - {{name: {name}, command: {command}}}\n" for name, command in zip(BOTS, commands, strict=True))
    path.write_text(f"""name: swiss-test
variant: {{preset: santase, match_target: 4}}
format: swiss
{extra}
seed: 7
sandbox: none
concurrency: 2
time: {{move: 5s}}
bots:
{bots}output:
  database: {path.parent / "db" / "arena.db"}
  report: {path.parent / "report"}
""")
    return path


def results(db: Path) -> list[tuple]:
    """Every scheduled match with its result, and every deal: what two runs must agree on."""
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT id, pair_index, status, seat0, seat1, winner, score0, score1, deals FROM matches ORDER BY id"
        ).fetchall() + con.execute(
            "SELECT match_id, idx, deck, actions, winner, game_points FROM deals ORDER BY match_id, idx").fetchall()
    finally:
        con.close()


def rounds_of(db: Path) -> dict[int, set[frozenset[str]]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT DISTINCT pair_index, bot_a, bot_b FROM matches").fetchall()
    finally:
        con.close()
    out: dict[int, set[frozenset[str]]] = {}
    for r, a, b in rows:
        out.setdefault(r, set()).add(frozenset((a, b)))
    return out


@pytest.fixture(scope="module")
def clean(c_bots: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One uninterrupted Swiss, with its report: the run and its database."""
    config = write_config(tmp_path_factory.mktemp("clean") / "t.yaml")
    run = arena_run(str(config), report=True)
    assert run.returncode == 0, run.stderr
    return run, config.parent / "db" / "arena.db"


def test_a_swiss_pairs_new_opponents_each_round_and_the_strongest_leads(clean):
    run, db = clean
    rounds = rounds_of(db)
    assert sorted(rounds) == [0, 1, 2]
    met = [pair for r in rounds.values() for pair in r]
    assert len(met) == 3 * 4 and len(set(met)) == len(met)  # four pairings a round, never a rematch
    byes = [next(b for b in BOTS if all(b not in pair for pair in rounds[r])) for r in range(3)]
    assert len(set(byes)) == 3  # a different bot sits out each round
    for r in range(3):
        assert f"round {r + 1}/3: 4 pairings, bye {byes[r]}" in run.stderr  # `arena run` shows its rounds
    assert all(row[2] == "done" for row in results(db) if len(row) == 9)
    assert run.stdout.splitlines()[1].split()[1] == "greedy"  # the standings' leader
    html = (db.parent.parent / "report" / "index.html").read_text()
    assert "swiss" in html and "Swiss rounds" in html and "Round 3" in html
    assert html.count("bye (1)") == 3
    swiss = html[html.index('id="h-swiss"'):html.index('id="h-chart"')]
    first_row = swiss[swiss.index("<tbody>"):].split("</tr>")[0]
    assert ">greedy<" in first_row  # the Swiss points put it first too


def test_a_swiss_killed_after_its_first_round_resumes_to_the_same_pairings_and_results(clean, tmp_path):
    _, clean_db = clean
    config = write_config(tmp_path / "t.yaml")
    db = tmp_path / "db" / "arena.db"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    # round 2 is paired (and logged) only once every result of round 1 is stored: kill it right there
    for line in proc.stderr:
        if line.startswith("arena: round 2/3"):
            break
    else:
        pytest.fail("no round 2: " + (proc.stdout.read() if proc.stdout else ""))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=HANG_S)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    con = sqlite3.connect(db)
    by_round = dict(con.execute("SELECT pair_index, count(*) FROM matches WHERE status = 'done' GROUP BY 1"))
    con.close()
    assert by_round[0] == 8 and sum(by_round.values()) < 24  # round 1 stored, the tournament unfinished

    resumed = arena_run(str(config))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{24 - sum(by_round.values())} to play" in resumed.stderr
    assert results(db) == results(clean_db)


def test_a_bad_swiss_config_exits_2_naming_each_problem(tmp_path):
    config = write_config(tmp_path / "t.yaml", "rounds: 9\nchallenger: greedy")
    run = arena_run(str(config))
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"arena: 2 problems in {config}:",
        f"{config}:4: rounds: 9 Swiss rounds for 9 bots; expected at most 8 rounds (bots - 1: no two bots meet "
        "twice), or more bots",
        f"{config}:5: challenger: a challenger is only used by format: gauntlet; expected no challenger, or "
        "format: gauntlet",
    ]


def test_without_rounds_a_swiss_plays_log2_of_its_field_plus_two(tmp_path):
    assert load_config(write_config(tmp_path / "t.yaml", "")).rounds == 6  # ceil(log2(9)) + 2
    few = tmp_path / "few.yaml"
    few.write_text("name: t\nformat: swiss\nbots:\n" + "".join(f"  - {{name: b{n}, command: sh}}\n" for n in range(3)))
    assert load_config(few).rounds == 2  # at most bots - 1: no rematches


@pytest.mark.parametrize("n_bots, rounds, seed", [(9, 6, 1), (12, 5, 2), (7, 6, 3)])
def test_the_pairing_never_repeats_and_gives_each_bye_once(n_bots, rounds, seed):
    """Rounds paired from made-up results (seeded), as a Swiss run pairs them from stored ones."""
    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(n_bots)]
    games: list[SwissGame] = []
    for r in range(rounds):
        try:
            pairs, bye = swiss_pairings(bots, swiss_table(bots, games), rounds)
        except SwissError as e:  # allowed only late, and then it says so
            assert r >= n_bots // 2 and "fewer rounds" in str(e)
            break
        assert len(pairs) == n_bots // 2 and len(bye) == n_bots % 2
        for a, b in pairs:
            games += [SwissGame(r, (a, b), True, rng.choice([a, b, None])) for _ in range(2)]
    table = swiss_table(bots, games)
    met = [frozenset((p.a, p.b)) for rd in table.rounds for p in rd.pairings]
    assert len(set(met)) == len(met)
    byes = Counter(b for rd in table.rounds for b in rd.byes)
    assert all(n == 1 for n in byes.values())
    assert sum(table.points.values()) == pytest.approx(2 * len(met) + BYE_POINTS * sum(byes.values()))
