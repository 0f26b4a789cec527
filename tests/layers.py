"""The import reader of the layer tests (tests/generator/test_layers.py, tests/runners/test_runners_layers.py) and
the cycle test (tests/test_import_cycles.py): which modules each module imports, and which of those sit in a layer
above its own.

Imports are read with ``ast`` from the sources, module-level and inside functions alike. For the layers an import
under ``if TYPE_CHECKING:`` is an annotation, not a dependency, and is not counted; the cycle test counts it, since a
type both modules need belongs below both. A module belongs to the layer of the longest prefix that names it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.AST, annotations: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every import in ``tree``, at module level and inside functions; those under ``if
    TYPE_CHECKING:`` only with ``annotations``. ``from pkg.sub import name`` yields ``pkg.sub.name``, which may name
    the module pkg.sub.name or a name in pkg.sub."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node) and not annotations:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


@dataclass(frozen=True)
class Layers:
    """The package at ``root`` and its ``layers`` of module-name prefixes, bottom first: a module may import its own
    layer and those below."""

    root: Path
    layers: tuple[tuple[str, ...], ...]

    @property
    def package(self) -> str:
        return self.root.name

    def sources(self) -> list[Path]:
        return sorted(self.root.rglob("*.py"))

    def module_name(self, path: Path) -> str:
        parts = path.relative_to(self.root.parent).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def layer(self, module: str) -> int | None:
        """The index of the layer of the longest prefix naming ``module``; None for the package itself and for
        other packages."""
        matches = [
            (len(prefix), index)
            for index, prefixes in enumerate(self.layers)
            for prefix in prefixes
            if module == prefix or module.startswith(prefix + ".")
        ]
        return max(matches)[1] if matches else None

    def imported(self, tree: ast.AST) -> list[tuple[int, str]]:
        """(line, module) of every module of the package an import names, leaving out TYPE_CHECKING blocks."""
        return [
            (line, name) for line, name in imports(tree) if name == self.package or name.startswith(self.package + ".")
        ]

    def unplaced(self) -> list[str]:
        """The modules of the package in no layer."""
        names = (self.module_name(path) for path in self.sources())
        return [name for name in names if name != self.package and self.layer(name) is None]

    def upward_imports(self, path: Path) -> list[str]:
        """``file:line imports module`` for every import of ``path`` from a layer above its own."""
        own = self.layer(self.module_name(path))
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return [
            f"{path.relative_to(self.root.parent)}:{line} imports {name}"
            for line, name in self.imported(tree)
            if (target := self.layer(name)) is not None and own is not None and target > own
        ]
