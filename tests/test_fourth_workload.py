"""A third workload, added as one folder and nothing else, is registered where fwbench names workloads: the names
records may carry (``fwbench.workload_names``), ``runners.workloads``' entries and so ``--workload``'s choices, the
run schema's ``model.workload`` and ``config.dataset`` enums, the profiles in its folder (``--profile``), and the
words a heading names it by, which the translation catalogue collects. Nothing is trained.

The folder is written into a temporary directory put on ``runners.workloads``' path, where the registry finds
workloads (``fwbench.workload_entry.discover``); the modules that copied the names when imported are pointed at the
registry with the stand-in, as ``tests/test_fourth_framework.py`` does for a framework.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from stand_ins import stand_in_folder

import runners.workloads
from fwbench import records, workload_names
from fwbench.workload_entry import ARTICLE_WORKLOAD, Workload, discover
from runners.cli import main
from runners.measure import profile_loading, profiles

REPO = Path(__file__).resolve().parents[1]
#: what reading the workloads' entries must not import
HEAVY = {"numpy", "torch", "tensorflow", "jax"}

#: the stand-in's folder, file name → source: the GPT's entry under another name, after the others, with words of
#: its own and a profile of its own (the GPT's quick one, for this workload)
STAND_IN = {
    "__init__.py": textwrap.dedent(
        """
        from dataclasses import replace

        from runners.workloads.gpt import WORKLOAD as GPT

        WORKLOAD = replace(GPT, name="toy", display_order=3, words="a toy language model", model_name="toy-bytes")
        """
    ),
    "profiles.json": json.dumps(
        {
            "_comment": "the stand-in's own profile",
            "quick-toy": {"base": "quick-gpt", "workload": "toy", "workloads": {"toy": "quick-toy"}},
        }
    ),
}


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> Iterator[Path]:
    """A directory holding the stand-in's folder, ``toy/``; its modules are forgotten after the tests."""
    yield from stand_in_folder(tmp_path_factory.mktemp("plugins"), "runners.workloads", "toy", STAND_IN)


@pytest.fixture
def registered(plugins, monkeypatch) -> Iterator[Workload]:
    """The stand-in, found in its folder, in the registries for the test's length."""
    monkeypatch.setattr(runners.workloads, "__path__", [*runners.workloads.__path__, str(plugins)])
    found = discover()
    assert tuple(found) == (*workload_names.WORKLOADS, "toy"), "found by its folder alone, after the others"
    monkeypatch.setitem(runners.workloads.WORKLOADS, "toy", found["toy"])
    monkeypatch.setitem(workload_names.REGISTRY, "toy", found["toy"])
    monkeypatch.setattr(workload_names, "WORKLOADS", tuple(found))
    profile_loading.load_profiles.cache_clear()
    records.load_schema.cache_clear()
    yield found["toy"]
    profile_loading.load_profiles.cache_clear()
    records.load_schema.cache_clear()


def test_the_registry_finds_the_workloads_in_display_order_without_importing_a_framework():
    assert workload_names.WORKLOADS == tuple(runners.workloads.WORKLOADS) == ("resnet18", "gpt")
    assert workload_names.WORKLOADS[0] == ARTICLE_WORKLOAD
    assert workload_names.DATASETS == ("synthetic", "cifar10", "grammar")
    imported = subprocess.run(
        [sys.executable, "-c", f"import sys, fwbench.workload_names; print(sorted({HEAVY!r} & set(sys.modules)))"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert imported.stdout.strip() == "[]", "reading the entries imports no framework, nor NumPy"


def test_a_folder_whose_entry_is_named_otherwise_is_refused(plugins, tmp_path, monkeypatch):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text(STAND_IN["__init__.py"])
    monkeypatch.setattr(runners.workloads, "__path__", [*runners.workloads.__path__, str(tmp_path)])
    with pytest.raises(ValueError, match="runners.workloads.other: its entry is named 'toy'"):
        discover()
    sys.modules.pop("runners.workloads.other", None)


def test_its_profile_runs_it_and_workload_takes_it_as_a_choice(registered, tmp_path):
    assert profile_loading.load_profiles()["quick-toy"]["workload"] == "toy", "the profile in its folder"
    assert profile_loading.profile_for("quick-toy", "toy") == "quick-toy"
    planned = io.StringIO()
    with contextlib.redirect_stdout(planned):
        argv = ["matrix", "--dry-run", "--profile", "quick-toy", "--workload", "toy", "--device", "cpu"]
        assert main([*argv, "--frameworks", "torch", "--out", str(tmp_path)]) == 0
    assert "toy torch/compiled bs8 seed0" in planned.getvalue()
    (config,) = profiles.expand("quick-toy", frameworks=["torch"], device="cpu")
    assert (config.workload, config.spec.model_name, config.dataset) == ("toy", "toy-bytes", "grammar")
    refused = io.StringIO()
    with contextlib.redirect_stderr(refused), pytest.raises(SystemExit):
        main(["run", "--framework", "torch", "--workload", "bert", "--dry-run"])
    assert "toy" in refused.getvalue().split("choose from", 1)[1], "--workload's choices"


def test_the_run_schema_takes_its_name_and_data_sets_from_the_registry(registered):
    schema = records.load_schema("fwbench.run/3")
    assert schema["properties"]["model"]["properties"]["workload"]["enum"] == ["resnet18", "gpt", "toy"]
    assert schema["properties"]["config"]["properties"]["dataset"]["enum"] == list(workload_names.DATASETS)


def test_the_schema_file_lists_todays_workloads_and_data_sets():
    written = json.loads((REPO / "fwbench" / "schemas" / "run.schema.json").read_text(encoding="utf-8"))
    assert written["properties"]["model"]["properties"]["workload"]["enum"] == list(workload_names.WORKLOADS)
    assert written["properties"]["config"]["properties"]["dataset"]["enum"] == list(workload_names.DATASETS)


def test_its_heading_words_reach_the_translators(registered):
    from generator import catalogue

    extracted = catalogue.extract()
    assert "a toy language model" in extracted and "GPT (6 × 384, bytes)" in extracted
    assert extracted["a toy language model"].locations == [("runners/workloads/toy/__init__.py", None)]
