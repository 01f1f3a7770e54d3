"""The pure core is pure: importing it pulls in no I/O, no concurrency, no clock, and nothing downstream.

ARCHITECTURE.md: "The pure core (game, protocol codec, stats) imports neither trio nor sqlite; a test
enforces it." This is that test: for arena.game (the rules engine), arena.protocol (the wire format) and
arena.stats. It runs in a fresh interpreter, because this test process has long since imported trio and
sqlite3 for other tests.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import arena.game

GAME_DIR = Path(arena.game.__file__).parent
REPO = GAME_DIR.parent.parent
PROTOCOL_DIR = GAME_DIR.parent / "protocol"
STATS_DIR = GAME_DIR.parent / "stats"

# The other pure rooms: their pure modules, and the parts of arena each may use. arena.protocol is the wire
# format, bytes in and messages out (h11's shape), so messages.py and codec.py are held to the rule;
# botkit.py is not: it is the bot side's I/O edge (it reads stdin and writes stdout, so it imports sys), and
# `import arena.protocol` does not load it.
PURE_ROOMS: dict[str, tuple[list[Path], tuple[str, ...]]] = {
    "arena.protocol": ([p for p in sorted(PROTOCOL_DIR.glob("*.py")) if p.name != "botkit.py"],
                       ("arena.game", "arena.protocol")),
    "arena.stats": (sorted(STATS_DIR.glob("*.py")), ("arena.stats",)),
}

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


def _imports(path: Path) -> list[str]:
    """Every module a file imports, at any depth (inside functions too)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _check_source(paths: list[Path], allowed: tuple[str, ...]) -> None:
    for path in paths:
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in FORBIDDEN | {"time", "os", "io", "sys"}, f"{path.name} imports {name}"
            if top == "arena":
                assert name.startswith(allowed), f"{path.name} imports {name}"


def test_no_module_of_arena_game_imports_a_clock_or_io_even_lazily() -> None:
    # Catches imports inside functions too, which the fresh-interpreter test cannot see until called.
    _check_source(sorted(GAME_DIR.glob("*.py")), ("arena.game",))


@pytest.mark.parametrize("package", sorted(PURE_ROOMS))
def test_importing_a_pure_room_loads_no_io_module(package: str) -> None:
    paths, allowed = PURE_ROOMS[package]
    modules = [f"{package}.{p.stem}" for p in paths if p.stem != "__init__"]
    baseline = _modules_after("pass")
    # Each pure module by name: one that the package's __init__ does not import (arena.protocol.session) is
    # held to the rule as well.
    loaded = _modules_after("; ".join(f"import {m}" for m in [package, *modules]))
    added = loaded - baseline
    assert set(modules) <= added  # the import really happened
    bad = {m for m in added if m.split(".")[0] in FORBIDDEN}
    assert not bad, f"{package} pulls in {sorted(bad)}"
    ours = {m for m in loaded if m.startswith("arena.")}
    assert all(m.startswith(allowed) for m in ours), f"{package} loads {sorted(ours)}"
    assert "arena.protocol.botkit" not in loaded


@pytest.mark.parametrize("package", sorted(PURE_ROOMS))
def test_no_pure_module_imports_a_clock_or_io_even_lazily(package: str) -> None:
    paths, allowed = PURE_ROOMS[package]
    assert paths
    _check_source(paths, allowed)
