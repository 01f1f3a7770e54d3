"""One schedule, one runner, one library: `arena match --db` and `arena run` on the equivalent two-bot
config write identical match and deal rows; docs/API.md's example runs; `arena report` renders a match
database."""

from __future__ import annotations

import ast
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from conftest import arena as run_arena

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile

# Columns that record when or how fast, not what was played.
TIMING = {"tournament", "started_at", "finished_at", "duration_s", "max_lag_ms"}


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`arena ARGS`, which must succeed."""
    result = run_arena(*args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result


def rows(database: Path, table: str, order: str) -> list[dict[str, object]]:
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        return [{k: r[k] for k in r.keys() if k not in TIMING}
                for r in db.execute(f"SELECT * FROM {table} ORDER BY {order}")]


def test_arena_match_plays_the_schedule_of_arena_run(tmp_path: Path) -> None:
    random_bot, greedy = f"{ROOT}/bots/c/random 3", f"{ROOT}/bots/c/greedy"
    # five matches: two full duplicate pairs and the first game of a third
    arena("match", random_bot, greedy, "--names", "random", "greedy", "--matches", "5", "--seed", "11",
          "--variant", "schnapsen", "--db", str(tmp_path / "match.db"), "--json")
    (tmp_path / "duel.yaml").write_text(
        "name: random-vs-greedy\nseed: 11\nrounds: 3\nvariant: schnapsen\n"
        f"bots:\n  - {{name: random, command: {random_bot}}}\n  - {{name: greedy, command: {greedy}}}\n"
        f"output: {{database: {tmp_path / 'run.db'}}}\n")
    arena("run", str(tmp_path / "duel.yaml"), "--no-report")
    played = rows(tmp_path / "match.db", "matches", "ord")
    assert len(played) == 5 and all(m["status"] == "done" for m in played)
    assert played == rows(tmp_path / "run.db", "matches", "ord")[:5]
    deals = rows(tmp_path / "match.db", "deals", "match_id, idx")
    assert deals and deals == [d for d in rows(tmp_path / "run.db", "deals", "match_id, idx")
                               if d["match_id"] in {m["id"] for m in played}]
    # the match database is an arena database like any other
    report = arena("report", str(tmp_path / "match.db"), "-o", str(tmp_path / "report"))
    assert "index.html" in report.stdout
    assert {p.stem for p in (tmp_path / "report" / "data").glob("*.js")} >= {m["id"] for m in played}


@pytest.mark.slow
def test_the_api_example_runs() -> None:
    text = (ROOT / "docs" / "API.md").read_text()
    example = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[-1]
    result = subprocess.run([sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    shown = [line.split("#")[1].strip() for line in example.splitlines() if line.startswith(("print", "    print"))]
    assert result.stdout.splitlines() == shown


def test_the_public_api_is_small() -> None:
    result = subprocess.run([sys.executable, "-c", "import arena; print(arena.__all__)"], capture_output=True,
                            text=True, timeout=60)
    names = ast.literal_eval(result.stdout)
    assert {"run_tournament", "play_match"} <= set(names) and len(names) <= 10
    assert result.stdout.strip() in (ROOT / "docs" / "API.md").read_text()


def test_a_match_database_keeps_the_tournament_file_that_replays_it(tmp_path: Path) -> None:
    arena("match", "python bots/random.py", "sh bots/sh/random.sh 3", "--matches", "2", "--seed", "5",
          "--set", "match_target=3", "--db", str(tmp_path / "match.db"))
    with sqlite3.connect(tmp_path / "match.db") as db:
        (text,) = db.execute("SELECT config_text FROM tournaments").fetchone()
    (tmp_path / "again.yaml").write_text(text + f"output: {{database: {tmp_path / 'again.db'}}}\n")
    arena("run", str(tmp_path / "again.yaml"), "--no-report", cwd=tmp_path)  # from elsewhere: paths are absolute
    assert rows(tmp_path / "match.db", "deals", "match_id, idx") == rows(tmp_path / "again.db", "deals",
                                                                          "match_id, idx")
