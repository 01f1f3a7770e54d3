"""The reference bots (Python random and greedy, sh, C, JS) play full seeded matches through the test
harness, which checks every line against docs/PROTOCOL.md; greedy must clearly beat random."""

from __future__ import annotations

import importlib.util
import random
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest
from conftest import ROOT
from harness import BotError, BotProcess, MatchResult, run_match, run_session

from arena.game import Action, Match, RuleSet, SeatView, preset

PY = shlex.quote(sys.executable)
GAMES = [("santase", 1), ("sixty-six", 2), ("schnapsen", 3)]  # one process plays all three in a row


@pytest.fixture(scope="session")
def c_bot(c_bots: object) -> str:
    return "bots/c/random"  # c_bots builds bots/c/greedy too


def bot_command(name: str, c_bot: str) -> str:
    if name == "js" and not shutil.which("node"):
        pytest.skip("node is not installed")
    return {
        "random.py": f"{PY} bots/random.py --seed 7",
        "greedy.py": f"{PY} bots/greedy.py",
        "sh": "sh bots/sh/random.sh 7",
        "c": f"{c_bot} 7",
        "greedy.c": "bots/c/greedy",
        "js": "node bots/js/random.js 7",
    }[name]


BOT_NAMES = ["random.py", "greedy.py", "sh", "c", "greedy.c", "js"]


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bot_plays_every_preset_in_both_seats(name: str, c_bot: str) -> None:
    bot = bot_command(name, c_bot)
    partner = f"{PY} bots/random.py --seed 1" if name == "greedy.py" else f"{PY} bots/greedy.py"
    for seats in ([bot, partner], [partner, bot]):
        results = run_session(seats, GAMES)
        assert [r.rules for r in results] == [g[0] for g in GAMES]
        for r in results:
            assert r.winner in (0, 1)
            assert r.score[r.winner] >= preset(r.rules).match_target > r.score[1 - r.winner]


@pytest.mark.parametrize("name", ["random.py", "sh", "c", "js"])
def test_random_bots_replay_their_seed(name: str, c_bot: str) -> None:
    bot = bot_command(name, c_bot)
    runs = [run_session([bot, f"{PY} bots/random.py --seed 2"], [("santase", 5), ("schnapsen", 6)])
            for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.skipif(not shutil.which("dash"), reason="dash is not installed")
def test_sh_bot_runs_under_dash_with_its_pid_as_seed() -> None:
    result = run_match("dash bots/sh/random.sh", "sh bots/sh/random.sh", "sixty-six", 9)
    assert result.names == ("random-sh", "random-sh")


# ------------------------------------------------------------------ the harness catches broken bots
HELLO = "import sys, time; print('bot 1 broken', flush=True); sys.stdin.readline()\n"
FIRST_LEGAL = "line.split('legal=')[1].split(',')[0].replace(':', ' ').strip()"


def answers(reply: str, at: str = "turn") -> str:
    """A Python bot that writes ``reply`` (an expression of ``line``) for each line starting with ``at``."""
    return HELLO + f"for line in sys.stdin:\n    if line.startswith('{at}'): print({reply}, flush=True)\n"


BROKEN = {
    "illegal": answers("'declare'"),  # santase declares 66 automatically
    "malformed": answers("'hello there'"),
    "overlong": answers("'info ' + 'x' * 5000"),
    "crash": HELLO + "sys.exit(3)",
    "timeout": HELLO + "time.sleep(30)",
    "handshake": "print('bot one broken', flush=True); import time; time.sleep(30)",
    # plays legally but writes a line after match-end, which asks for nothing
    "unexpected": answers(FIRST_LEGAL) + "    if line.startswith('match-end'): print('close', flush=True)\n",
}


@pytest.mark.parametrize("code", sorted(BROKEN))
def test_harness_raises_on_protocol_errors(code: str) -> None:
    broken = shlex.join([sys.executable, "-c", BROKEN[code]])
    with pytest.raises(BotError) as info:
        run_session([broken, f"{PY} bots/random.py"], [("santase", 1)], timeout=1.0)
    assert info.value.code == code


# ------------------------------------------------------------------ strength, in-process
def load_greedy():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("greedy_bot", ROOT / "bots/greedy.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Chooser = Callable[[SeatView, list[Action]], Action]


def play_in_process(choosers: list[Chooser], rules_name: str, seed: int) -> int:
    match = Match(preset(rules_name), seed)
    while not match.over:
        deal = match.new_deal()
        while not deal.over:
            seat = deal.to_move
            deal.apply(choosers[seat](deal.view(seat, match.score_for(seat)), deal.legal_actions()), seat)
        match.finish_deal()
    assert match.winner is not None
    return match.winner


def random_chooser(seed: int) -> Chooser:
    rng = random.Random(seed)
    return lambda view, legal: rng.choice(legal)


def test_greedy_beats_random_clearly() -> None:
    greedy = load_greedy()
    wins = 0
    for seed in range(20):
        rules = ["santase", "sixty-six", "schnapsen"][seed % 3]
        greedy.on_match_start(None, preset(rules))
        seat = seed % 2  # greedy alternates seats
        choosers: list[Chooser] = [random_chooser(seed)] * 2
        choosers[seat] = greedy.choose
        wins += play_in_process(choosers, rules, seed) == seat
    assert wins >= 18, f"greedy won only {wins} of 20 matches against random"


# ------------------------------------------------------------------ the C greedy bot is greedy.py in C
def test_c_greedy_passes_arena_check(c_bot: str) -> None:
    result = subprocess.run([sys.executable, "-m", "arena", "check", "bots/c/greedy"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "answered `bot 1 greedy-c author=arena`" in result.stdout
    assert "the bot passes every check" in result.stdout


# The presets, and overrides that only a bot reading the match line's rules (not the variant's name) follows:
# marriages before the first trick are void, other marriage points (which decide when to close), and 66 is
# declared by hand. A C bot that ignored any one of these three keys of the match line made other decisions.
OVERRIDES = [
    RuleSet.from_dict({"preset": "santase", "marriage_without_trick": "void", "marriage_points": 50,
                       "trump_marriage_points": 50, "declare_66": "manual"}),
    RuleSet.from_dict({"preset": "schnapsen", "marriage_without_trick": "pending", "trump_marriage_points": 20}),
]
SAME_GAMES: list[tuple[str | RuleSet, int | str]] = [
    (rules, seed) for seed in range(8) for rules in ["santase", "sixty-six", "schnapsen", *OVERRIDES]]


@pytest.fixture(scope="module")
def greedy_sessions(c_bot: str) -> dict[tuple[str, int], tuple[list[MatchResult], list[str]]]:
    """Both greedy bots ("c", "py"), in each seat, play SAME_GAMES against the same seeded random bot in one process:
    (bot, seat) -> (results, the greedy bot's transcript with its name made the same)."""
    sessions = {}
    for label, bot in (("c", "bots/c/greedy"), ("py", f"{PY} bots/greedy.py")):
        for seat in (0, 1):
            commands = [bot, f"{PY} bots/random.py --seed 11"]
            if seat:
                commands.reverse()
            processes: list[BotProcess] = []
            results = run_session(commands, SAME_GAMES, bots=processes)
            transcript = [line.replace("greedy-c", "greedy") for line in processes[seat].transcript]
            sessions[label, seat] = results, transcript
    return sessions


@pytest.mark.parametrize("seat", [0, 1])
def test_c_greedy_makes_the_decisions_of_greedy_py(greedy_sessions, seat: int) -> None:  # type: ignore[no-untyped-def]
    c_results, c_lines = greedy_sessions["c", seat]
    py_results, py_lines = greedy_sessions["py", seat]
    replies = [line[2:] for line in c_lines if line.startswith("< ")]
    for kind in ("exchange", "close", "marriage", "declare", "play"):  # every kind of decision was compared
        assert any(r.split()[0] == kind for r in replies), kind
    first = next((i for i, (a, b) in enumerate(zip(c_lines, py_lines, strict=False)) if a != b), None)
    assert first is None, "\n".join(["first difference, C then Python:", *c_lines[max(0, first - 3):first + 1],
                                      py_lines[first]])
    assert c_lines == py_lines
    assert [(r.winner, r.score, r.deals) for r in c_results] == [(r.winner, r.score, r.deals) for r in py_results]


def test_c_greedy_beats_random_clearly(greedy_sessions) -> None:  # type: ignore[no-untyped-def]
    wins = sum(r.winner == seat for seat in (0, 1) for r in greedy_sessions["c", seat][0])
    assert wins >= 0.9 * 2 * len(SAME_GAMES), f"the C greedy bot won only {wins} of {2 * len(SAME_GAMES)}"


def test_c_greedy_blunders_as_greedy_py(c_bot: str) -> None:
    """--blunder P --seed S (the house levels' weaker greedy): both bots draw the same splitmix64 numbers, so
    they blunder at the same turns with the same random action, and stay line for line the same."""
    games = [g for g in SAME_GAMES if g[1] < 3]
    transcripts = {}
    for label, bot in (("c", "bots/c/greedy"), ("py", f"{PY} bots/greedy.py")):
        processes: list[BotProcess] = []
        run_session([f"{bot} --blunder 0.3 --seed 5", f"{PY} bots/random.py --seed 11"], games, bots=processes)
        transcripts[label] = [line.replace("greedy-c", "greedy") for line in processes[0].transcript]
    assert transcripts["c"] == transcripts["py"]
    # and the blunders are real: greedy itself answers differently somewhere in the same games
    processes = []
    run_session(["bots/c/greedy", f"{PY} bots/random.py --seed 11"], games, bots=processes)
    replies = {"plain": [x for x in processes[0].transcript if x.startswith("< ") and " greedy" not in x],
               "blunder": [x for x in transcripts["c"] if x.startswith("< ") and " greedy" not in x]}
    assert replies["plain"] != replies["blunder"]


@pytest.mark.parametrize("args", [["--blunder", "1.5"], ["--blunder", "x"], ["--seed", "-1"], ["--nonesuch"]])
def test_greedy_bots_refuse_bad_options(c_bot: str, args: list[str]) -> None:
    """Both greedy bots refuse a bad option at once: a message on stderr (not a traceback) and exit code 2."""
    for command in (["bots/c/greedy"], [sys.executable, "bots/greedy.py"]):
        done = subprocess.run([*command, *args], cwd=ROOT, input="", capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.strip(), done.stderr
