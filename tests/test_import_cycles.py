"""No import cycles among the repository's packages: module A imports B and B, directly or through others, imports A.

Imports are read as tests/layers.py reads them, inside functions and under ``if TYPE_CHECKING:`` alike: a late or an
annotation-only import dodges a cycle at run time, but the two modules still need each other, and what they share
belongs in a module below both.
"""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

from layers import imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fwbench", "runners", "generator", "ecosystem")


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """module -> {module of the packages it imports: the line of the first such import}. An imported name that is
    no module (``from pkg.sub import name``) stands for the module that holds it."""
    paths = {module_name(path, root): path for package in packages for path in sorted((root / package).rglob("*.py"))}
    graph: dict[str, dict[str, int]] = {}
    for name, path in paths.items():
        edges = graph.setdefault(name, {})
        for line, imported in imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), annotations=True):
            while imported not in paths and "." in imported:
                imported = imported.rsplit(".", 1)[0]
            if imported in paths and imported != name:
                edges.setdefault(imported, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle through each group of modules that import each other (a strongly connected component of more than
    one module), as the modules in import order, the first again at the end."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm; the graph is a few hundred modules deep at most
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(cycle_through(graph, set(group)))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def cycle_through(graph: dict[str, dict[str, int]], group: set[str]) -> list[str]:
    """A shortest cycle from the group's first module back to it, within the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph[module]):
                if target == start:
                    return [*paths[module], start]
                if target in group and target not in paths:
                    paths[target] = [*paths[module], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle within {sorted(group)}")


def described(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    return " -> ".join(f"{a} (line {graph[a][b]})" for a, b in pairwise(cycle)) + f" -> {cycle[-1]}"


def test_no_import_cycles():
    graph = import_graph(ROOT, PACKAGES)
    found = [described(graph, cycle) for cycle in cycles(graph)]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_the_test_sees_a_cycle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def late():\n    from pkg.b import thing\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nfrom pkg import c\nif TYPE_CHECKING:\n    from pkg.a import late\n"
    )
    (package / "c.py").write_text("import pkg.d\n")
    (package / "d.py").write_text("")
    graph = import_graph(tmp_path, ("pkg",))
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]
    assert described(graph, ["pkg.a", "pkg.b", "pkg.a"]) == "pkg.a (line 2) -> pkg.b (line 4) -> pkg.a"
