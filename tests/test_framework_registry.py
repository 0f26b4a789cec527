"""One framework registry (``fwbench.frameworks``): the tables outside it are derived from it, none is written
out again."""

from __future__ import annotations

import argparse
import ast
import json
import shutil
from pathlib import Path

import pytest
import tomllib

import runners.frameworks
from fwbench import cliargs, frameworks, records
from fwbench.frameworks import FRAMEWORKS, REGISTRY, TRAINING_MODES
from runners.measure import provenance
from runners.probes import catalog

REPO = Path(__file__).resolve().parent.parent
#: where the frameworks are found: no module lists them
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
    assert REPO / REGISTRY_FILE in files and REPO / "runners" / "measure" / "run.py" in files
    listing = {path.relative_to(REPO).as_posix(): lines for path in files if (lines := framework_lists(path))}
    listing.pop(REGISTRY_FILE, None)
    assert not listing, "derive these from fwbench.frameworks instead: " + ", ".join(
        f"{name} (line {', '.join(map(str, lines))})" for name, lines in sorted(listing.items())
    )


def test_the_scan_finds_a_list_written_out(tmp_path):
    source = tmp_path / "table.py"
    source.write_text('NAMES = ["jax", "torch", "tensorflow", "torchax", "keras"]\nPAIR = ("torch", "jax")\n')
    assert framework_lists(source) == [1]


def test_each_framework_has_its_files_under_its_key():
    for name, entry in REGISTRY.items():
        for module in (entry.trainer_module, entry.model_module):
            assert (REPO / f"{module.replace('.', '/')}.py").is_file(), module
        assert catalog.program_path(name).is_file() or not entry.probe_modes
        assert set(entry.training_modes) <= set(TRAINING_MODES) and set(entry.probe_modes) <= set(catalog.MODES)


def test_each_framework_measured_on_a_gpu_names_its_cuda_build_and_its_extra_exists():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for name in frameworks.measured_on("gpu"):
        assert REGISTRY[name].cuda_build is not None, name
        assert REGISTRY[name].cuda_build[0] in extras, name


def test_records_carry_every_distribution_of_every_framework():
    assert {d for entry in REGISTRY.values() for d in entry.distributions} <= set(provenance.KEY_PACKAGES)


def schema_framework_enums(path: Path) -> list[list[str]]:
    """The enums of ``path`` (a JSON Schema file as written) marked as framework keys."""

    def walk(node):
        if isinstance(node, dict):
            if str(node.get("$comment", "")).startswith(records.FRAMEWORKS_MARK):
                yield node["enum"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    return list(walk(json.loads(path.read_text(encoding="utf-8"))))


def test_schema_files_list_the_registry_and_every_framework_enum_is_marked():
    for path in sorted((REPO / "fwbench" / "schemas").glob("*.schema.json")):
        for enum in schema_framework_enums(path):
            assert enum == list(FRAMEWORKS), f"{path.name}: framework enum {enum} is not the registry's"
        unmarked = [
            node
            for node in json_lists(json.loads(path.read_text(encoding="utf-8")))
            if set(FRAMEWORKS) <= {item for item in node if isinstance(item, str)}
        ]
        assert len(unmarked) == len(schema_framework_enums(path)), f"{path.name}: an unmarked list of frameworks"


def json_lists(node):
    """Every list in a parsed JSON document."""
    if isinstance(node, list):
        yield node
        for value in node:
            yield from json_lists(value)
    elif isinstance(node, dict):
        for value in node.values():
            yield from json_lists(value)


def test_a_loaded_schema_takes_its_framework_keys_from_the_registry(monkeypatch):
    monkeypatch.setattr(frameworks, "FRAMEWORKS", (*FRAMEWORKS, "mxnet"))
    loaded = records.with_registry_keys(json.loads((REPO / "fwbench/schemas/run.schema.json").read_text()))
    assert [enum for enum in json_lists(loaded) if "mxnet" in enum] == [[*FRAMEWORKS, "mxnet"]]


def framework_folder(root: Path, name: str, entry: str) -> None:
    """A framework folder ``root/name`` whose ``__init__`` declares ``entry`` (Python source of its ``FRAMEWORK``)."""
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(
        f"from dataclasses import replace\nfrom runners.frameworks.jax import FRAMEWORK as JAX\nFRAMEWORK = {entry}\n"
    )


def test_the_registry_is_every_framework_folder_in_display_order():
    assert tuple(sorted(REGISTRY, key=lambda name: REGISTRY[name].display_order)) == FRAMEWORKS
    folders = {path.parent.name for path in (REPO / "runners" / "frameworks").glob("*/__init__.py")}
    assert folders == set(REGISTRY)


def test_aliases_name_the_same_framework_and_a_taken_name_or_a_misnamed_folder_is_refused(tmp_path, monkeypatch):
    assert frameworks.canonical("pytorch") == "torch" and frameworks.framework("pytorch").name == "torch"
    assert cliargs.framework_name("pytorch") == "torch"
    with pytest.raises(argparse.ArgumentTypeError, match="mxnet"):
        cliargs.framework_name("mxnet")
    monkeypatch.setattr(runners.frameworks, "__path__", [*runners.frameworks.__path__, str(tmp_path)])
    framework_folder(tmp_path, "jax2", 'replace(JAX, name="jax2", aliases=("pytorch",))')
    with pytest.raises(ValueError, match="pytorch is registered twice"):
        frameworks.discover()
    shutil.rmtree(tmp_path / "jax2")  # with the bytecode its import wrote, where Python writes it
    framework_folder(tmp_path, "jax3", 'replace(JAX, name="jax4")')
    with pytest.raises(ValueError, match="runners.frameworks.jax3: its entry is named 'jax4'"):
        frameworks.discover()
