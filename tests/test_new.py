"""`arena new` as a bot author runs it: each language's skeleton, generated in an empty folder, built, and passed
through `arena check` with exactly the command `arena new` printed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ARENA, arena

LANGS = ["python", "c", "js", "sh"]
NEEDS = {"python": [], "c": ["make", "gcc"], "js": ["node"], "sh": ["sh"]}


def run_printed(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command line as `arena new` printed it (`arena ...` is this arena)."""
    argv = shlex.split(command)
    if argv[0] == "arena":
        argv = [*ARENA, *argv[1:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)


def missing(lang: str) -> list[str]:
    return [tool for tool in NEEDS[lang] if shutil.which(tool) is None]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)  # a sandboxed bot runs as a user of its own
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_each_skeleton_passes_check_as_generated(lang, workdir):
    if missing(lang):
        pytest.skip(f"needs {', '.join(missing(lang))}")
    made = arena("new", "mybot", "--lang", lang, cwd=workdir)
    assert made.returncode == 0, made.stderr
    printed = [ln.strip() for ln in made.stdout.splitlines() if ln.startswith("  ")]
    commands = [ln for ln in printed if ln.startswith(("make ", "arena "))]
    assert commands[-1].startswith("arena check ") and "mybot/" in commands[-1]
    assert (workdir / "mybot" / "README.md").read_text().count(shlex.split(commands[-1])[2]) >= 1
    for command in commands:  # the build (C), then the check
        result = run_printed(command, workdir)
        assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    assert "15 pass: the bot passes every check" in result.stdout
    assert "answered `bot 1 mybot`" in result.stdout


# The same decisions asked of every skeleton, each answered as its strategy says: declare 66 only with it,
# exchange, marry once a trick is won, take a trick with the cheapest winner, else throw the cheapest card.
TURN = ("turn seat=0 hand={hand} trump=h turned=Jh talon={talon} closed=- led={led} leader=1 dealer=0 points={points} "
        "opp_points=0 pending=0 tricks={tricks} opp_tricks=0 marriages=- played=- known=- score=0 opp_score=0 "
        "time=1000 bank=- legal={legal}")
DECISIONS = [
    # following 9s: Ks and As win in suit; Ks is the cheaper (a trump would cost more still)
    (dict(hand="Ks,As,9h,Ac", led="9s", legal="play:Ks,play:As,play:9h,play:Ac"), "play Ks"),
    # following Ts: nothing of spades, so the cheapest winner is the lowest trump
    (dict(hand="Th,9h,Jc,Ac", led="Ts", legal="play:Th,play:9h,play:Jc,play:Ac"), "play 9h"),
    # following As: nothing wins (no trump); throw the cheapest card
    (dict(hand="Qc,9d,Kd", led="As", legal="play:Qc,play:9d,play:Kd"), "play 9d"),
    # leading: the cheapest card, and not a trump
    (dict(hand="9h,Jc,Ac", led="-", legal="close,play:9h,play:Jc,play:Ac"), "play Jc"),
    # the exchange first
    (dict(hand="9h,Jc,Ac", led="-", legal="exchange,close,play:9h,play:Jc,play:Ac"), "exchange"),
    # a marriage once a trick is won, not before
    (dict(hand="Kd,Qd,Ac", led="-", tricks="1", legal="close,marriage:Qd,marriage:Kd,play:Qd,play:Kd,play:Ac"),
     "marriage Qd"),
    (dict(hand="Kd,Qd,Ac", led="-", legal="close,marriage:Qd,marriage:Kd,play:Qd,play:Kd,play:Ac"), "play Qd"),
    # declare 66 only with 66 points and a trick
    (dict(hand="Kd,Ac", led="-", points="66", tricks="2", legal="declare,play:Kd,play:Ac"), "declare"),
    (dict(hand="Kd,Ac", led="-", points="65", tricks="2", legal="declare,play:Kd,play:Ac"), "play Kd"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_each_skeleton_takes_tricks_cheaply_and_declares_only_with_66(lang, workdir):
    if missing(lang):
        pytest.skip(f"needs {', '.join(missing(lang))}")
    assert arena("new", "cheap", "--lang", lang, cwd=workdir).returncode == 0
    argv = {"python": [sys.executable, "-I", "-S", "cheap/bot.py"],  # -I -S: no arena, no site-packages
            "c": ["cheap/bot"], "js": ["node", "cheap/bot.js"], "sh": ["sh", "cheap/bot.sh"]}[lang]
    if lang == "c":
        subprocess.run(["make", "-s", "-C", "cheap"], cwd=workdir, check=True, timeout=120)
    fields = dict(talon="8", points="0", tricks="0")
    lines = ["arena 1 1.1", "match m1 seat=0 opponent=x variant=santase deck=24", "deal 0 dealer=1"]
    lines += [TURN.format(**(fields | decision)) for decision, _ in DECISIONS]
    lines += ["match-end 0 11,0 target", "quit"]
    result = subprocess.run(argv, cwd=workdir, input="\n".join(lines) + "\n", capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["bot 1 cheap"] + [reply for _, reply in DECISIONS]


def test_existing_folders_and_bad_names_are_refused(workdir):
    (workdir / "taken").mkdir()
    (workdir / "taken" / "keep.txt").write_text("mine")
    (workdir / "afile").write_text("x")
    cases = [
        (["new", "taken", "--lang", "python"], "taken already exists"),
        (["new", "afile", "--lang", "sh"], "afile already exists"),
        (["new", "my bot", "--lang", "python"], "is not a valid bot name"),
        (["new", "a/b", "--lang", "python"], "is not a valid bot name"),
        (["new", "..", "--lang", "python"], "is not a valid bot name"),
        (["new", "x" * 65, "--lang", "python"], "is not a valid bot name"),
        (["new", "ok", "--lang", "cobol"], "--lang"),
        (["new", "ok", "--lang", "c", "--dir", "nowhere"], "--dir: nowhere is not a directory"),
    ]
    for args, expected in cases:
        result = arena(*args, cwd=workdir)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert expected in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) <= 2 and "Traceback" not in result.stderr
    assert sorted(os.listdir(workdir)) == ["afile", "taken"]
    assert os.listdir(workdir / "taken") == ["keep.txt"]


def test_dir_puts_the_folder_there_and_the_printed_commands_say_so(workdir):
    (workdir / "bots").mkdir()
    result = arena("new", "deep", "--lang", "c", "--dir", "bots", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(workdir / "bots" / "deep")) == ["Makefile", "README.md", "bot.c"]
    assert "  make -C bots/deep" in result.stdout.splitlines()
    assert '  arena check "bots/deep/bot"' in result.stdout.splitlines()
    mode = (workdir / "bots" / "deep").stat().st_mode & 0o777
    assert mode == 0o755
