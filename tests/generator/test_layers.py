"""The generator's layers: no module imports a layer above its own (records < verdicts < views < site < build).

Imports are read with ``ast`` from the sources, module-level and inside functions alike; an import under
``if TYPE_CHECKING:`` is an annotation, not a dependency, and is not counted. The shared bottom modules
(``i18n``, ``spacing``, ``data_text``, ``message``) sit below every layer; the entry points (``cli``,
``catalogue``) above them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GENERATOR = Path(__file__).resolve().parents[2] / "generator"
#: the layers, bottom first; a module may import its own layer and those below
LAYERS = (
    ("generator.i18n", "generator.spacing", "generator.data_text", "generator.message"),
    ("generator.records",),
    ("generator.verdicts",),
    ("generator.views",),
    ("generator.site",),
    ("generator.build",),
    ("generator.cli", "generator.catalogue"),
)
#: at most this many modules directly in generator/ (``__init__`` not counted)
MAX_TOP_LEVEL = 10


def module_name(path: Path) -> str:
    parts = path.relative_to(GENERATOR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int | None:
    """The index of ``module``'s layer in LAYERS; None for ``generator`` itself and for other packages."""
    for index, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return None


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every generator module an import names, leaving out TYPE_CHECKING blocks."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from generator.views import cells`` names the module generator.views.cells
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return [(line, name) for line, name in found if name == "generator" or name.startswith("generator.")]


SOURCES = sorted(GENERATOR.rglob("*.py"))


def test_every_module_has_a_layer():
    unplaced = [module_name(p) for p in SOURCES if module_name(p) != "generator" and layer(module_name(p)) is None]
    assert not unplaced, f"modules outside every layer (add them to LAYERS or move them): {unplaced}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_no_import_from_a_layer_above(path):
    own = layer(module_name(path))
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    above = [
        f"{path.relative_to(GENERATOR.parent)}:{line} imports {name}"
        for line, name in imported(tree)
        if (target := layer(name)) is not None and own is not None and target > own
    ]
    assert not above, "\n".join(above)


def test_the_test_sees_an_upward_import():
    tree = ast.parse("from generator.views.cells import rate_cell\nfrom generator import i18n\n")
    assert [layer(name) for _line, name in imported(tree)] == [3, 0]


def test_few_top_level_modules():
    top = sorted(p.name for p in GENERATOR.glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_LEVEL, top


def test_each_layer_says_what_it_may_import():
    for package in ("records", "verdicts", "views", "site", "build"):
        doc = ast.get_docstring(ast.parse((GENERATOR / package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"generator/{package}/__init__.py: its docstring names what it may import"
