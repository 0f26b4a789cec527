"""The generator's layers: no module imports a layer above its own (records < verdicts < views < site < build).

Imports are read as tests/layers.py reads them. The shared bottom modules
(``i18n``, ``spacing``, ``data_text``, ``message``) sit below every layer; the entry points (``cli``,
``catalogue``) above them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from layers import Layers

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


PACKAGE = Layers(GENERATOR, LAYERS)
SOURCES = PACKAGE.sources()


def test_every_module_has_a_layer():
    unplaced = PACKAGE.unplaced()
    assert not unplaced, f"modules outside every layer (add them to LAYERS or move them): {unplaced}"


@pytest.mark.parametrize("path", SOURCES, ids=PACKAGE.module_name)
def test_no_import_from_a_layer_above(path):
    above = PACKAGE.upward_imports(path)
    assert not above, "\n".join(above)


def test_the_test_sees_an_upward_import():
    tree = ast.parse("from generator.views.cell_text import rate_cell\nfrom generator import i18n\n")
    assert [PACKAGE.layer(name) for _line, name in PACKAGE.imported(tree)] == [3, 0]


def test_few_top_level_modules():
    top = sorted(p.name for p in GENERATOR.glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_LEVEL, top


def test_each_layer_says_what_it_may_import():
    for package in ("records", "verdicts", "views", "site", "build"):
        doc = ast.get_docstring(ast.parse((GENERATOR / package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"generator/{package}/__init__.py: its docstring names what it may import"
