"""docs/LADDER.md's walkthrough, run: every `arena ladder` command of its shell blocks but the open-ended ones
(`serve`, which tests/test_ladder_service.py runs), in order, against a fresh database, each with the exit
status and words the page promises."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys

import pytest
from conftest import HANG_S, ROOT


def walkthrough() -> list[str]:
    text = (ROOT / "docs" / "LADDER.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.startswith("arena ladder ") and shlex.split(line)[3] != "serve"]


@pytest.mark.slow
def test_ladder_md_commands_work_as_written(tmp_path, c_bots):
    db = tmp_path / "course.db"
    outputs = {}
    for line in walkthrough():
        words = shlex.split(line.replace("$(hostname)", socket.gethostname()))
        assert words[2] == "course.db"
        words[2] = str(db)
        out = subprocess.run([sys.executable, "-m", "arena", *words[1:]], cwd=ROOT, capture_output=True, text=True,
                             timeout=HANG_S)
        action = words[3]
        refused = " broken " in f" {line} "
        assert out.returncode == (1 if refused else 0), f"{line}\n{out.stdout}\n{out.stderr}"
        outputs.setdefault(action, []).append(out.stdout)
    assert set(outputs) == {"init", "token", "add", "run", "standings", "challenge", "void"}
    assert "refused" in outputs["add"][2] and "crash" in outputs["add"][2]
    assert "greedy." in outputs["standings"][0] and "broken." in outputs["standings"][0]
    assert '"standings"' in outputs["standings"][1]
    assert "voided" in outputs["void"][0]
