"""docs/TUTORIAL.md works as written: every command on the page runs, in order, in an empty folder `play/`
beside copies of the reference bots (`../bots`, `../tests/bots`), with the venv's `arena` on PATH.

The commands are the `arena ...` lines of its `sh` blocks and the `$ ...` lines of its `console` blocks (run
by bash, so a pipe works as a reader's shell runs it). A console block's other lines are the output shown,
which must have the same shape as the real output: numbers may differ (the test plays fewer matches than the
page, and bots and engine may change), words and lines may not. The files are the code blocks after a
`<!-- file: NAME -->` marker, saved before the first command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

DOC = (ROOT / "docs/TUTORIAL.md").read_text()
MAX_MATCHES = 4  # the test's cap on --matches (an SPRT command keeps up to SPRT_MATCHES)
SPRT_MATCHES = 40  # (a bot that wins every pair needs 12 pairs to reach H1 at elo1=100)

FILES = dict(re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)\n```", DOC, re.S))


def commands() -> list[tuple[str, list[str] | None]]:
    """(command, the output shown or None) for every command on the page, in order."""
    out: list[tuple[str, list[str] | None]] = []
    for lang, body in re.findall(r"```(sh|console)\n(.*?)\n```", DOC, re.S):
        if lang == "sh":
            out += [(line, None) for line in body.splitlines() if line.startswith("arena ")]
            continue
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, *shown = chunk.splitlines()
            out.append((command, shown))
    return out


def capped(command: str) -> str:
    cap = SPRT_MATCHES if "--sprt" in command else MAX_MATCHES
    return re.sub(r"--matches (\d+)", lambda m: f"--matches {min(int(m[1]), cap)}", command)


def shape(line: str) -> str:
    """A line without its numbers and spacing; the Elo line without its figures; the report's path."""
    if line.lstrip().startswith("Elo of "):
        line = line.split(":")[0]
    if line.startswith("report: "):
        return "report:"
    return "".join(re.sub(r"[-+]?\d+(\.\d+)?", "N", line).split())


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.slow
def test_every_command_of_the_tutorial_runs_as_shown(tmp_path: Path) -> None:
    root = tmp_path / "arena"
    shutil.copytree(ROOT / "bots", root / "bots", ignore=shutil.ignore_patterns("*.o", "__pycache__"))
    shutil.copytree(ROOT / "tests" / "bots", root / "tests" / "bots", ignore=shutil.ignore_patterns("__pycache__"))
    play = root / "play"
    play.mkdir()
    for name, text in FILES.items():
        (play / name).parent.mkdir(parents=True, exist_ok=True)
        (play / name).write_text(text + "\n")
    for folder in [tmp_path, *(p for p in root.rglob("*") if p.is_dir()), root]:
        folder.chmod(0o755)  # as a reader's folders are (pytest's are 0700): a sandboxed bot runs as another user
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    ran = []
    for command, shown in commands():
        result = subprocess.run(["bash", "-c", capped(command)], cwd=play, env=env,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
        if shown is not None:
            real = [shape(x) for x in result.stdout.splitlines()]
            assert real == [shape(x) for x in shown], (
                f"the output docs/TUTORIAL.md shows for `{command}` no longer looks like the real output; rerun "
                f"the command and update the page.\nreal:\n{result.stdout}\nshown:\n" + "\n".join(shown))
        ran.append(command)
    # the page walks through every command of a bot author's first hour
    for step in ("new", "check", "play", "match", "run", "export", "replay", "transcript"):
        assert any(f"arena {step} " in c for c in ran), step
    # what the page says its commands left behind
    logs = sorted(p.name for p in (play / "transcripts").iterdir())
    assert logs and all(name in DOC for name in logs), logs
    assert (play / "reports" / "mine" / "index.html").is_file()


def test_the_tutorial_links_resolve() -> None:
    for target, anchor in re.findall(r"\]\(([\w./-]+\.md)(?:#([\w-]+))?\)", DOC):
        path = ROOT / "docs" / target
        assert path.is_file(), target
        if anchor:
            headings = [slug(h) for h in re.findall(r"^#+ (.*)$", path.read_text(), re.M)]
            assert anchor in headings, (target, anchor)
