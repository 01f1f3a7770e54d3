"""The house levels (arena/levels.py, issue 36): each level beats the one below in short seeded matches through
the real referee; `arena serve` offers them by name and seats a Quick Play player against the level's command;
a ladder takes them as house bots and, with `--anchor levels`, shows them at their measured Elo."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_serve import Browser, Server, Socket, connect, play_out, serving

from arena.levels import LEVELS, level_named, registry_yaml
from arena.units import parse_duration

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    for folder in ("bots/c", "bots/ismcts"):
        subprocess.run(["make", "-s", "-C", folder], cwd=ROOT, check=True, capture_output=True)


def test_levels_are_one_table() -> None:
    assert [lv.number for lv in LEVELS] == list(range(1, len(LEVELS) + 1))
    assert all(LEVELS[i].elo < LEVELS[i + 1].elo for i in range(len(LEVELS) - 1))  # a ladder, weakest first
    for lv in LEVELS[1:]:
        assert lv.step is not None and lv.elo - LEVELS[lv.number - 2].elo == lv.step[0]
        assert lv.step[1] <= lv.step[0] <= lv.step[2]
    assert LEVELS[0].elo == 0 and LEVELS[0].step is None
    assert LEVELS[2].label() == "Level 3 · Intermediate" and LEVELS[2].label("bg") == "Ниво 3 · Среден"
    assert level_named("level-3-intermediate") is LEVELS[2] and level_named("3") is LEVELS[2]
    assert level_named("level-9") is None
    assert registry_yaml().count("  - name: level-") == len(LEVELS)
    readme = (ROOT / "bots/README.md").read_text()
    for lv in LEVELS:  # bots/README.md shows every level's command and measured figures
        assert f"`{lv.command}`" in readme and lv.label() in readme
        if lv.step is not None:
            assert f"**{lv.step[0]:+d}** ({lv.step[1]:+d} to {lv.step[2]:+d})" in readme, lv.name


# Each deterministic level against the one below, in seeded duplicate matches: (matches, match_target). Level 6
# (the full bot, 100 ms a move) is left out: its strength is the machine's, and 24 short matches would take
# minutes; bench/levels_bench.py measures it. A step of about 200 Elo
# wins about three matches in four; the upper level must win at least 60% of them, a generous margin that a
# level no stronger than the one below would fail nearly always. Full-length matches (11 game points) tell the
# levels apart better per deal played; the top step, the costly one (Level 5 searches 3,000 deals a move), plays
# more, shorter matches (5 points). The whole test takes about 35 s on one core.
STEPS = {2: (40, 11), 3: (24, 11), 4: (16, 11), 5: (24, 5)}


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(STEPS))
def test_each_level_beats_the_one_below(number: int) -> None:
    upper, lower = LEVELS[number - 1], LEVELS[number - 2]
    matches, target = STEPS[number]
    done = subprocess.run(
        [*ARENA, "match", upper.command, lower.command, "--names", "upper", "lower", "--matches", str(matches),
         "--seed", str(3600 + number), "--set", f"match_target={target}", "--concurrency", "1", "--sandbox", "none",
         "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["terminations"] == {"upper": {}, "lower": {}}  # both play within their time
    wins = result["wins"]["upper"]
    assert wins >= 0.6 * matches, f"{upper.name} won only {wins} of {matches} against {lower.name}"


# ------------------------------------------------------------------ arena serve offers the levels by name
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("serve-levels"), "--set", "match_target=1") as s:
        yield s


def test_home_page_lists_the_levels_with_their_descriptions(server: Server) -> None:
    status, page = Browser(server).get("/?lang=en")
    assert status == 200
    options = re.findall(r'<option value="([^"]+)">([^<]+)</option>', page)
    offered = dict(options)
    for lv in LEVELS:
        assert offered[lv.name].startswith(f"{lv.label()} — {lv.description['en']}".replace("&", "&amp;")[:40])
    assert [name for name, _ in options][:len(LEVELS)] == [lv.name for lv in LEVELS]  # weakest first
    assert "random" in offered  # still there, below Level 1
    status, page = Browser(server).get("/?lang=bg")
    assert "Ниво 1 · Начинаещ" in page and "Level 1" not in page


async def test_quick_play_seats_you_against_the_levels_command(server: Server) -> None:
    level = LEVELS[4]  # Level 5 · Expert: quick to play out (Level 6 thinks 1 s a move)
    b = Browser(server)
    code = b.quick(level.name)
    async with connect(server, code, b.cookie()) as ws:
        sock = Socket(ws)
        final = await play_out(sock, lambda m: m["phase"] == "over")
    assert sock.states[0]["names"] == ["human", level.label()]  # the player sees which level they face
    assert final["result"] is not None
    conn = sqlite3.connect(server.db)
    try:
        command, argv = conn.execute("SELECT command, argv FROM bots WHERE name = ?", [level.name]).fetchone()
    finally:
        conn.close()
    assert command == level.bot_command  # the level's own command, from bots/
    assert json.loads(argv)[0].endswith("bots/ismcts/ismcts") and json.loads(argv)[1:] == ["--iters", "3000"]


@pytest.fixture(scope="module")
def chromium(server: Server) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    from test_report_browser import ARGS, CHROMIUM

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.parametrize("locale", ["en-US", "bg-BG"])
def test_a_player_sees_at_the_table_which_level_they_face(server: Server, chromium: Any, locale: str) -> None:
    level, lang = LEVELS[1], locale[:2]
    context = chromium.new_context(locale=locale)
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        page.goto(server.url)
        assert level.label(lang) in page.inner_text("#opponent")  # the home page's list, in the page's language
        page.select_option("#opponent", level.name)
        page.click("#quick-play")
        page.wait_for_url("**/room/*")
        page.wait_for_function("t => document.getElementById('name-them').textContent === t", arg=level.label(lang))
    finally:
        context.close()


# ------------------------------------------------------------------ a ladder anchored on the levels
def test_ladder_add_levels_anchors_the_scale(tmp_path: Path) -> None:
    db = tmp_path / "course.db"

    def arena(*args: str, code: int = 0) -> str:
        done = subprocess.run([*ARENA, "ladder", str(db), *args], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        return done.stdout

    arena("init", "--variant", "santase", "--set", "match_target=3", "--anchor", "levels", "--seed", "7",
          "--pairs-in-flight", "1")
    out = arena("add-levels", "--sandbox", "none")
    fixed = [lv for lv in LEVELS if lv.deterministic]
    assert out.count("admitted") == len(fixed) and "--anchor levels" not in out and "level-6" not in out
    again = arena("add-levels", "--sandbox", "none")  # the same programs: nothing new
    assert again.count("same") == len(fixed)
    arena("run", "--pairs", "3", "--sandbox", "none")  # new versions play first: each level is placed
    board = json.loads(arena("standings", "--json"))
    assert board["anchor"] == "levels"
    rating = {row["key"].split(".")[0]: row["rating"] for row in board["standings"]}
    levels_in_play = [lv for lv in LEVELS if lv.name in rating]
    assert len([lv for lv in levels_in_play if lv.deterministic]) >= 3, rating
    # the levels sit at their measured Elo on average, so every rating reads on the levels' scale
    anchors = [lv for lv in levels_in_play if lv.deterministic]  # not Level 6, whose think time is the machine's
    mean_gap = sum(rating[lv.name] - lv.elo for lv in anchors) / len(anchors)
    assert abs(mean_gap) < 1.0
    assert "The house levels sit at their measured Elo" in arena("standings")
    # an anchor that is neither mean, levels nor a name: one clear line, exit code 2
    done = subprocess.run([*ARENA, "ladder", str(tmp_path / "x.db"), "init", "--anchor", "no such"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "expected mean, levels, or" in done.stderr


def test_a_level_that_thinks_is_given_the_time_it_needs() -> None:
    """ismcts thinks at most 30% of a move's time: Level 6's second needs a move time the default 1 s is not."""
    bots = {b["name"]: b for b in yaml.safe_load(registry_yaml())["bots"]}
    for level in LEVELS:
        argv = level.bot_command.split()
        if "--ms" in argv:
            think_ms = int(argv[argv.index("--ms") + 1])
            given_ms = parse_duration(bots[level.name]["time"]["move"])
            assert think_ms <= 0.3 * given_ms - 2, (level.name, think_ms, given_ms)
        else:
            assert "time" not in bots[level.name]
