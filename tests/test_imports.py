"""The house has no import circles (docs/ARCHITECTURE.md): neither between arena's modules nor between its
packages, counting the imports at the top of each module (those inside a function are there to break no
circle: they keep start-up short). Read from the source with ast, so the test needs nothing imported."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "arena"


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def top_level_imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the arena modules it imports at its top level (``from pkg import submodule`` names the
    submodule, ``from pkg import name`` the package)."""
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.parse(path.read_text()).body:
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.append(sub if sub in known else node.module)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[name] |= {t for t in targets if t in known and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(top_level_imports(modules())) == []


def test_no_package_imports_itself_through_others() -> None:
    """store never imports tournament (BotProvenance lives in arena.botspec), and so on."""
    graph: dict[str, set[str]] = {}
    for module, targets in top_level_imports(modules()).items():
        graph.setdefault(package_of(module), set())
        for target in targets:
            graph.setdefault(package_of(target), set())
            if package_of(target) not in (package_of(module), "arena"):
                graph[package_of(module)].add(package_of(target))
    assert cycles(graph) == []


def test_the_checker_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
