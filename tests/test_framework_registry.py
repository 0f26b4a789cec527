"""One framework registry (``fwbench.frameworks``): the tables outside it are derived from it, none is written
out again."""

from __future__ import annotations

import ast
from pathlib import Path

from fwbench.frameworks import FRAMEWORKS, REGISTRY, TRAINING_MODES
from runners import provenance
from runners.probes import catalog

REPO = Path(__file__).resolve().parent.parent
REGISTRY_FILE = "fwbench/frameworks.py"
#: folders that hold no code of the repository's own
NOT_CODE = {"tests", "site", "build", "__pycache__", "node_modules"}


def code_files() -> list[Path]:
    """The repository's Python files outside tests/, environments and build output."""
    return sorted(
        path
        for path in REPO.rglob("*.py")
        if not any(
            part in NOT_CODE or part.startswith(".") or part.endswith(".egg-info")
            for part in path.relative_to(REPO).parts[:-1]
        )
    )


def framework_lists(path: Path) -> list[int]:
    """Lines of the tuple, list and set literals in ``path`` that hold every framework key."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if isinstance(node, ast.Tuple | ast.List | ast.Set)
        and set(FRAMEWORKS) <= {e.value for e in node.elts if isinstance(e, ast.Constant)}
    ]


def test_no_module_but_the_registry_lists_the_frameworks():
    files = code_files()
    assert REPO / REGISTRY_FILE in files and REPO / "runners" / "run.py" in files
    listing = {path.relative_to(REPO).as_posix(): lines for path in files if (lines := framework_lists(path))}
    listing.pop(REGISTRY_FILE, None)
    assert not listing, "derive these from fwbench.frameworks instead: " + ", ".join(
        f"{name} (line {', '.join(map(str, lines))})" for name, lines in sorted(listing.items())
    )


def test_the_scan_finds_a_list_written_out(tmp_path):
    source = tmp_path / "table.py"
    source.write_text('NAMES = ["jax", "torch", "tensorflow", "keras"]\nPAIR = ("torch", "jax")\n')
    assert framework_lists(source) == [1]


def test_each_framework_has_its_files_under_its_key():
    for name, entry in REGISTRY.items():
        for module in (entry.trainer_module, entry.model_module):
            assert (REPO / f"{module.replace('.', '/')}.py").is_file(), module
        assert catalog.program_path(name).is_file()
        assert set(entry.training_modes) <= set(TRAINING_MODES) and set(entry.probe_modes) <= set(catalog.MODES)


def test_records_carry_every_distribution_of_every_framework():
    assert {d for entry in REGISTRY.values() for d in entry.distributions} <= set(provenance.KEY_PACKAGES)
