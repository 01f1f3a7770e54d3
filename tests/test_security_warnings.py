"""Running bots as root without a sandbox is warned about, once, loudly: with `--sandbox none` (arena match)
and `sandbox: none` (arena run). Real command lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD, ROOT

WARNING = "arena: WARNING: bots run as root without a sandbox: a bot can do anything root can. See docs/SECURITY.md."

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the warning is for root")


def test_arena_match_as_root_without_a_sandbox_warns_once() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena", "match", f"python {GOOD}", f"python {GOOD}", "--matches", "3",
         "--set", "match_target=1", "--sandbox", "none", "--seed", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines().count(WARNING) == 1, result.stderr


def test_arena_run_as_root_with_sandbox_none_warns_once(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: t\nrounds: 2\nseed: 1\nsandbox: none\nvariant: {preset: santase, match_target: 1}\n"
        f"output: {{database: {tmp_path / 'arena.db'}, report: {tmp_path / 'report'}}}\n"
        f"bots:\n  - {{name: a, command: python {GOOD}}}\n  - {{name: b, command: python {GOOD}}}\n")
    result = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--no-report"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines().count(WARNING) == 1, result.stderr
