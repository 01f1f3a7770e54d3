"""docs/TUTORIAL.md works as written: its files are extracted, its commands run from the repository root.

The files are the code blocks after a `<!-- file: NAME -->` marker. The commands are the `arena ...` lines of
its `sh` blocks and the `$ arena ...` lines of its `console` blocks; a console block's other lines are the
output shown, which must have the same shape as the real output (numbers may differ: the tests play fewer
matches than the tutorial, and bots and engine may change).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs/TUTORIAL.md").read_text()
ARENA = [sys.executable, "-m", "arena"]
MAX_MATCHES = 4  # the tests' cap on --matches (the SPRT command gets SPRT_MATCHES)
SPRT_MATCHES = 30

FILES = dict(re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)\n```", DOC, re.S))


def _commands() -> list[tuple[str, list[str] | None]]:
    """(command, shown output or None) for every arena command in the tutorial, in order."""
    out: list[tuple[str, list[str] | None]] = []
    for lang, body in re.findall(r"```(sh|console)\n(.*?)\n```", DOC, re.S):
        if lang == "sh":
            out += [(line, None) for line in body.splitlines() if line.startswith("arena ")]
            continue
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, *shown = chunk.splitlines()
            out.append((command, shown))
    return out


COMMANDS = _commands()
MATCH_COMMANDS = [(c, shown) for c, shown in COMMANDS if c.startswith("arena match ")]
RUN_COMMANDS = [(c, shown) for c, shown in COMMANDS if c.startswith("arena run ")]


def arena(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def shape(line: str) -> str:
    """A summary line without its numbers and spacing; the Elo line without its figures."""
    if line.lstrip().startswith("Elo of "):
        line = line.split(":")[0]
    if line.startswith("report: "):
        return "report:"
    return "".join(re.sub(r"[-+]?\d+(\.\d+)?", "N", line).split())


def assert_same_shape(real: str, shown: list[str]) -> None:
    assert [shape(x) for x in real.splitlines()] == [shape(x) for x in shown], (
        "the output shown in docs/TUTORIAL.md no longer looks like the real output; rerun the command and "
        f"update the doc.\nreal:\n{real}\nshown:\n" + "\n".join(shown)
    )


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The tutorial's files, as a reader would save them."""
    work = tmp_path_factory.mktemp("tutorial")
    work.chmod(0o755)  # as a reader's folder would be (pytest's are 0700): sandboxed bots run as another user
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text + "\n")
    return work


def doc_args(command: str, work: Path, transcripts: Path) -> list[str]:
    """The command's arguments, with the tutorial's own files taken from `work`, fewer matches, and the
    transcripts written to `transcripts`."""
    args = shlex.split(command, comments=True)[1:]
    cap = SPRT_MATCHES if "--sprt" in args else MAX_MATCHES
    for i, arg in enumerate(args):
        words = arg.split()
        if len(words) > 1 or arg in FILES:  # a bot's command line: use the saved copy of a tutorial file
            args[i] = " ".join(str(work / w) if w in FILES else w for w in words)
        if i and args[i - 1] == "--matches":
            args[i] = str(min(int(arg), cap))
        if i and args[i - 1] == "--transcripts":
            args[i] = str(transcripts)
    return args


def test_the_tutorial_has_its_files_and_commands():
    assert set(FILES) == {"mybot.py", "last.sh", "tournaments/mine.yaml"}
    assert len(MATCH_COMMANDS) >= 6 and len(RUN_COMMANDS) == 1
    assert all(c.startswith(("arena match ", "arena run ")) for c, _ in COMMANDS)
    for target in ("bots/sh/random.sh", "bots/c/random.c", "docs/CONFIG.md", "docs/STATISTICS.md"):
        name = target.removeprefix("docs/")
        assert f"]({name})" in DOC or f"](../{target})" in DOC or f"]({name}#" in DOC, target
    assert "--sprt elo0=0 elo1=50" in DOC and "reports/mine/index.html" in DOC


def test_the_example_bot_plays_random(work):
    bot = f"python {work / 'mybot.py'}"
    result = arena(["match", bot, "python bots/random.py", "--matches", "2", "--json"])
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["matches"] == 2 and summary["bots"] == ["mybot", "random"]
    assert summary["terminations"] == {"mybot": {}, "random": {}}
    assert sum(summary["wins"].values()) == 2 and summary["wins"]["mybot"] >= 1
    assert summary["deals"]["played"] >= 2


def _ensure_c_bot() -> None:
    if not (ROOT / "bots/c/random").exists():
        if subprocess.run(["make", "-s", "-C", "bots/c"], cwd=ROOT, capture_output=True).returncode:
            pytest.skip("bots/c/random is not built and `make -C bots/c` failed (no C compiler?)")


@pytest.mark.parametrize("command,shown", MATCH_COMMANDS, ids=[c[12:60] for c, _ in MATCH_COMMANDS])
def test_arena_match_commands(command, shown, work, tmp_path):
    if "bots/c/random" in command:
        _ensure_c_bot()
    transcripts = tmp_path / "transcripts"
    args = doc_args(command, work, transcripts)
    result = arena(args)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert re.fullmatch(r"\S+ vs \S+: \d+ matches of [\w-]+, seed \d+, \d+ deals", first), result.stdout
    if shown is not None:
        assert_same_shape(result.stdout, shown)
    if "--sprt" in args:
        assert "SPRT: H1 accepted" in result.stdout
    if "--names" in args:
        names = args[args.index("--names") + 1: args.index("--names") + 3]
        assert first.startswith(f"{names[0]} vs {names[1]}:")
    if "--transcripts" in args:
        check_transcripts(transcripts, first.split()[0])


def check_transcripts(directory: Path, bot: str) -> None:
    """The transcript files the tutorial names exist and hold what it shows."""
    logs = sorted(p.name for p in directory.iterdir())
    first = f"{bot}-vs-random-p0-g0-seat0-{bot}.log"  # the first match's id, then the seat and the bot
    assert first in logs and first in DOC, logs
    text = (directory / first).read_text()
    assert all(re.match(r" *\d+\.\d{3} [<>!] ", line) for line in text.split("\n\n--- stderr ---")[0].splitlines())
    if bot == "mybot":
        named = re.findall(r"[\w-]+-p\d-g\d-seat\d-\w+\.log", DOC.split("## 4.")[0].split("--transcripts")[-1])
        assert sorted(set(named)) == logs
        for line in ("> arena 1", "< bot 1 mybot author=you", "< info taking "):
            assert f" {line}" in text, line
        assert "\n--- stderr ---\nhand " in text
    if bot == "garbage":
        # the lines the tutorial shows from the end of this transcript, without their time stamps
        shown = re.search(r"```text\n(.*?)\n```", DOC.split(f"{first}` says")[1], re.S).group(1)
        real = [line[11:] for line in text.splitlines()]
        for line in shown.splitlines():
            assert line[11:] in real, line


def test_arena_run_plays_the_tutorial_tournament_and_resumes(work, tmp_path):
    # the tutorial's layout: mybot.py and bots/ next to tournaments/ (bots copied, not linked: bots/random.py
    # takes its own directory off sys.path by name, which a symlinked directory defeats)
    bots = work / "bots"
    if not bots.exists():
        bots.mkdir()
        for script in ROOT.glob("bots/*.py"):
            shutil.copy(script, bots)
    config = work / "tournaments/mine.yaml"
    out = tmp_path / "reports/mine"
    config.write_text(FILES["tournaments/mine.yaml"] + f"\noutput:\n  database: {out}/arena.db\n  report: {out}\n")
    (command, shown), = RUN_COMMANDS
    assert shlex.split(command)[1:] == ["run", "tournaments/mine.yaml"]

    first = arena(["run", str(config)])
    assert first.returncode == 0, first.stderr
    assert "mine: 12 matches, 12 to play" in first.stderr
    assert_same_shape(first.stdout, shown)
    assert (out / "arena.db").exists()
    assert f"report: {out}/index.html" in first.stdout and (out / "index.html").exists()

    again = arena(["run", str(config)])
    assert again.returncode == 0, again.stderr
    assert "mine: 12 matches, 0 to play" in again.stderr
    assert again.stdout == first.stdout
