"""`arena match` as a user runs it: real bot processes, the printed summary, JSON, SPRT and bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, arena

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile



@pytest.mark.slow
def test_greedy_clearly_beats_random_and_the_seed_replays():
    args = ["match", "bots/c/random 3", "bots/c/greedy", "--names", "random", "greedy", "--matches", "12",
            "--seed", "1", "--json"]
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert summary["matches"] == 12
    assert summary["wins"]["greedy"] >= 10, summary
    assert summary["terminations"] == {"random": {}, "greedy": {}}
    assert json.loads(arena(*args).stdout) == summary


def test_human_summary_names_both_bots():
    result = arena("match", "python bots/greedy.py", "sh bots/sh/random.sh", "--matches", "2", "--variant",
                   "schnapsen")
    assert result.returncode == 0, result.stderr
    assert "greedy vs random-sh: 2 matches of schnapsen" in result.stdout  # the names from the handshake
    assert "terminations: none" in result.stdout


@pytest.mark.slow
def test_sprt_stops_with_a_verdict():
    result = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "200", "--seed", "2",
                   "--sprt", "elo0=0", "elo1=100", "alpha=0.05", "beta=0.05", "--json")
    assert result.returncode == 0, result.stderr
    sprt = json.loads(result.stdout)["sprt"]
    assert sprt["verdict"] == "H1" and sprt["games"] < 200 and sprt["llr"] >= sprt["bounds"][1]
    assert sprt["unit"] == "pair" and sprt["matches"] % 2 == 0  # duplicate deals: whole pairs decide


@pytest.mark.slow
def test_an_sprt_without_a_verdict_still_counts_every_match_played():
    """5 matches, by duplicate pair: the SPRT saw two pairs, the summary shows all five matches."""
    result = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "5", "--seed", "4", "--sprt",
                   "elo0=0", "elo1=400", "--sandbox", "none", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["sprt"]["verdict"] is None and summary["sprt"]["matches"] == 4
    assert summary["matches"] == 5 and sum(summary["wins"].values()) == 5, summary


def test_sprt_without_duplicate_deals_counts_matches_one_by_one():
    result = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "200", "--seed", "2",
                   "--no-duplicate", "--sprt", "elo0=0", "elo1=100", "--json")
    assert result.returncode == 0, result.stderr
    sprt = json.loads(result.stdout)["sprt"]
    assert sprt["verdict"] == "H1" and sprt["unit"] == "match"


def test_misbehaving_bot_is_counted_in_terminations():
    result = arena("match", "tests/bots/garbage.py", "tests/bots/good.py", "--matches", "2", "--json")
    summary = json.loads(result.stdout)
    assert summary["terminations"]["garbage"] == {"malformed": 2}
    assert summary["wins"]["good"] == 2


def test_bad_user_input_is_one_line_and_exit_2():
    cases = [
        (["match", "python bots/random.py", "./nope", "--matches", "1"], "'./nope' not found"),
        (["match", "python bots/random.py", "python bots/random.py", "--variant", "bridge"], "unknown variant"),
        (["match", "python bots/random.py", "python bots/random.py", "--move-time", "fast"], "--move-time"),
        (["match", "python bots/random.py", "python bots/random.py", "--set", "match_target=0"], "match_target"),
        (["match", "python bots/random.py", "python bots/random.py", "--sprt", "elo9=1"], "--sprt"),
        (["rules", "santase", "--set", "colour=red"], "unknown rule parameter 'colour'"),
        (["match"], "required"),
    ]
    for args, expected in cases:
        result = arena(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert expected in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_db_of_other_matches_is_refused_in_terms_of_arena_match(tmp_path):
    """`arena match --db FILE` again with the same options resumes; with other ones it is refused, naming
    what `arena match` has to offer (it has no --fresh or --force), and FILE keeps its results."""
    db = tmp_path / "m.db"
    base = ["match", "bots/c/random 3", "bots/c/greedy", "--seed", "1", "--db", str(db)]
    assert arena(*base, "--matches", "1").returncode == 0
    assert arena(*base, "--matches", "1").returncode == 0
    again = arena(*base, "--matches", "3")
    assert again.returncode == 2 and again.stderr.strip().splitlines()[-1] == (
        f"arena: --db: {db} holds the results of other matches (other bots or programs, or another seed, "
        f"number of matches, rules or time control); give another --db file, or delete {db} to start over")
    assert "--fresh" not in again.stderr


@pytest.mark.slow
def test_the_default_seed_is_random_printed_and_replays():
    args = ["match", "bots/c/random 3", "bots/c/greedy", "--matches", "2", "--json"]
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    seed = int(re.search(r"arena: seed (\d+) \(random; pass --seed \1 to replay\)", first.stderr).group(1))
    summary = json.loads(first.stdout)
    assert summary["seed"] == seed
    again = arena(*args, "--seed", str(seed))
    assert json.loads(again.stdout) == summary
    assert json.loads(arena(*args).stdout)["seed"] != seed  # 63 random bits: equal only by a miracle


def test_without_a_working_bubblewrap_a_loud_warning_or_a_clear_refusal(tmp_path):
    """A bwrap that cannot make namespaces (as in some containers): the default falls back with a warning,
    --sandbox bwrap refuses to play."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    args = [sys.executable, "-m", "arena", "match", "python bots/random.py", "python bots/greedy.py",
            "--matches", "1", "--seed", "1"]
    fallback = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert fallback.returncode == 0, fallback.stderr
    assert "WARNING: bots run WITHOUT a sandbox: bubblewrap cannot create a sandbox here (bwrap: No " \
           "permissions to create new namespace)" in fallback.stderr
    refused = subprocess.run([*args, "--sandbox", "bwrap"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=600)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("arena: sandbox bwrap was asked for, but bubblewrap cannot create")
