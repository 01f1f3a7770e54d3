"""The rules engine is pure: importing it pulls in no I/O, no concurrency, no clock, and nothing downstream.

ARCHITECTURE.md: "The pure core (game, protocol codec, stats) imports neither trio nor sqlite; a test
enforces it." This is that test for arena.game. It runs in a fresh interpreter, because this test process
has long since imported trio and sqlite3 for other tests.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import arena.game

GAME_DIR = Path(arena.game.__file__).parent
REPO = GAME_DIR.parent.parent

# Modules whose presence would mean the engine does I/O, talks to processes or the network, runs things
# concurrently, or reads a clock.
FORBIDDEN = {
    "trio", "sqlite3", "_sqlite3", "sqlite_utils", "socket", "_socket", "ssl", "select", "selectors",
    "subprocess", "_posixsubprocess", "multiprocessing", "threading", "asyncio", "concurrent", "signal",
    "http", "urllib", "email", "logging", "tempfile", "shutil", "pathlib", "datetime", "yaml", "jinja2",
}


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_importing_arena_game_loads_no_io_module() -> None:
    baseline = _modules_after("pass")
    loaded = _modules_after("import arena.game")
    added = loaded - baseline
    assert "arena.game.hand" in added  # the import really happened
    # (Compared with a bare interpreter: site start-up itself may load e.g. pathlib for the editable install.)
    bad = {m for m in added if m.split(".")[0] in FORBIDDEN}
    assert not {"trio", "sqlite3", "socket", "subprocess"} & loaded
    assert not bad, f"arena.game pulls in {sorted(bad)}"


def test_arena_game_loads_nothing_else_of_arena() -> None:
    # Data flows one way: the referee, protocol, tournament and report use the game, never the reverse.
    loaded = _modules_after("import arena.game")
    ours = {m for m in loaded if m == "arena" or m.startswith("arena.")}
    assert ours <= {"arena", "arena.game"} | {f"arena.game.{p.stem}" for p in GAME_DIR.glob("*.py")}


def test_no_module_of_arena_game_imports_a_clock_or_io_even_lazily() -> None:
    # Catches imports inside functions too, which the fresh-interpreter test cannot see until called.
    for path in sorted(GAME_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in FORBIDDEN | {"time", "os", "io", "sys"}, f"{path.name} imports {name}"
                if top == "arena":
                    assert name.startswith("arena.game"), f"{path.name} imports {name}"
