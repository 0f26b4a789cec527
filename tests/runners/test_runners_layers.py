"""The runners' layers: no module imports a layer above its own (training < one run < the workloads' checks < the
executors' boundary and the environments < the matrix < the executors < probes < the command line).

Imports are read as tests/layers.py reads them; a module belongs to the layer of the longest prefix that names
it: the workloads' parity and reference-loss checks train through a whole run, so they sit above
``runners.measure`` although the rest of ``runners.workloads`` sits below it; the matrix runs its configurations
through the executors' boundary, and the Ray executor surveys and plans the matrix on its nodes, so the boundary sits
below ``runners.matrix`` and the executors above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from layers import Layers

RUNNERS = Path(__file__).resolve().parents[2] / "runners"
#: the layers, bottom first; a module may import its own layer and those below
LAYERS = (
    ("runners.frameworks", "runners.workloads"),
    ("runners.measure",),
    (
        "runners.workloads.resnet18.parity",
        "runners.workloads.resnet18.reference_losses",
        "runners.workloads.gpt.parity",
        "runners.workloads.parity_captures",
    ),
    ("runners.executors.boundary", "runners.envs"),
    ("runners.matrix",),
    ("runners.executors",),
    ("runners.probes",),
    (
        "runners.cli",
        "runners.run_cli",
        "runners.matrix_cli",
        "runners.envs_cli",
        "runners.benchmark_script_cli",
        "runners.kit",
        "runners.bisect",
    ),
)
#: at most this many modules directly in runners/, ``__init__`` included: the command-line entry points
MAX_TOP_LEVEL = 6
#: the packages whose ``__init__`` says what they hold and what they may import
PACKAGES = ("measure", "matrix", "executors", "envs", "workloads/resnet18", "kit", "bisect")


PACKAGE = Layers(RUNNERS, LAYERS)
SOURCES = PACKAGE.sources()


def test_every_module_has_a_layer():
    unplaced = PACKAGE.unplaced()
    assert not unplaced, f"modules outside every layer (add them to LAYERS or move them): {unplaced}"


@pytest.mark.parametrize("path", SOURCES, ids=PACKAGE.module_name)
def test_no_import_from_a_layer_above(path):
    above = PACKAGE.upward_imports(path)
    assert not above, "\n".join(above)


def test_the_test_sees_an_upward_import():
    tree = ast.parse(
        "from runners.matrix.store import stored\nfrom runners.workloads.resnet18 import parity\n"
        "from runners.workloads.resnet18 import arch\nimport runners.matrix_cli\n"
    )
    assert [PACKAGE.layer(name) for _line, name in PACKAGE.imported(tree)] == [4, 2, 0, 7]


def test_few_top_level_modules():
    top = sorted(p.name for p in RUNNERS.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, top


def test_each_package_says_what_it_may_import():
    for package in PACKAGES:
        doc = ast.get_docstring(ast.parse((RUNNERS / package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"runners/{package}/__init__.py: its docstring names what it may import"
