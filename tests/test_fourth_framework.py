"""A fourth framework, added as one folder and nothing else, goes through what fwbench does with a framework: the
matrix plans it by its name (or alias) and its modes, its compile cache is the folders its entry names and its folder's
variables point there, its run record is made by ``runners.measure.record``, and a page of the site shows it.

The folder is written into a temporary directory put on ``runners.frameworks``' path, where the registry finds
frameworks (``fwbench.frameworks.discover``). The site copies the registry's keys when it is imported, so its page is
rendered in a fresh interpreter that puts the same folder on the path first, as
``tests/generator/test_gen_fourth_framework.py`` does for the whole site.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import gen_records
import pytest
from stand_ins import stand_in_folder

import runners.frameworks
from fwbench import frameworks
from fwbench.framework_entry import Framework
from fwbench.frameworks import REGISTRY
from runners.cli import main
from runners.envs import gpu
from runners.envs.build import EnvError
from runners.measure import record
from runners.measure.compile_cache import cache_environment, cache_state
from runners.measure.harness import harness
from runners.measure.profiles import expand

#: the stand-in's folder, file name → source: JAX's entry under another name (its colour, ecosystem subjects and
#: probes kept), with a compile cache and modes of its own, measured on CPUs only, and its compile cache's variables
STAND_IN = {
    "__init__.py": textwrap.dedent(
        """
        from dataclasses import replace

        from runners.frameworks.jax import FRAMEWORK as JAX

        FRAMEWORK = replace(
            JAX,
            name="paddle",
            label="PaddlePaddle",
            aliases=("paddlepaddle",),
            display_order=5,
            import_name="paddle",
            distributions=("paddlepaddle",),
            training_modes=("compiled", "eager"),
            compile_cache=("paddle",),
            devices=("cpu",),
            cuda_build=None,
        )
        """
    ),
    "compile_cache.py": 'def variables(folders, persistent):\n    return {"PADDLE_CACHE_DIR": folders[0]}\n',
}
#: renders one page in a fresh interpreter that finds the stand-in's folder (argv: the folder's parent, the results
#: directory, tests/generator for ``one_page``)
PAGE_SCRIPT = textwrap.dedent(
    """
    import sys

    import runners.frameworks

    runners.frameworks.__path__.append(sys.argv[1])
    sys.path.insert(0, sys.argv[3])
    from generator.records.load import load_results
    from one_page import page_alone

    print(page_alone(load_results(sys.argv[2], strict=True), "results/speed.md"))
    """
)


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> Iterator[Path]:
    """A directory holding the stand-in's folder, ``paddle/``; its modules are forgotten after the tests."""
    yield from stand_in_folder(tmp_path_factory.mktemp("plugins"), "runners.frameworks", "paddle", STAND_IN)


@pytest.fixture
def registered(plugins, monkeypatch) -> Framework:
    """The stand-in, found in its folder, in the registry for the test's length; its records state JAX's trainer,
    whose entry it is."""
    monkeypatch.setattr(runners.frameworks, "__path__", [*runners.frameworks.__path__, str(plugins)])
    found = frameworks.discover()
    assert tuple(found) == (*frameworks.FRAMEWORKS, "paddle"), "found by its folder alone, after the others"
    monkeypatch.setitem(REGISTRY, "paddle", found["paddle"])
    monkeypatch.setattr(frameworks, "FRAMEWORKS", tuple(REGISTRY))
    monkeypatch.setattr(record, "harness", lambda module: harness(module.replace(".paddle.", ".jax.")))
    return found["paddle"]


def test_the_matrix_plans_it_by_its_alias_in_each_mode_it_trains_in(registered, tmp_path, monkeypatch):
    planned = io.StringIO()
    with contextlib.redirect_stdout(planned):
        argv = ["matrix", "--dry-run", "--profile", "quick", "--device", "cpu", "--modes", "compiled,eager"]
        assert main([*argv, "--frameworks", "paddlepaddle", "--batch-sizes", "32", "--out", str(tmp_path)]) == 0
    assert "paddle/compiled bs32 seed0" in planned.getvalue() and "paddle/eager bs32 seed0" in planned.getvalue()
    monkeypatch.setitem(REGISTRY, registered.name, replace(registered, training_modes=("compiled",)))
    configs = expand("quick", version_of=lambda _: "3.0.0", frameworks=["paddle"], modes=["compiled", "eager"])
    assert {(c.framework, c.mode) for c in configs} == {("paddle", "compiled")}


def test_its_compile_cache_is_the_folders_its_entry_names_and_its_folder_points_its_compiler_there(
    registered, tmp_path
):
    assert cache_environment(str(tmp_path), persistent=True)["PADDLE_CACHE_DIR"] == str(tmp_path / "paddle")
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "entry").write_bytes(b"\0")
    assert cache_state("paddle", str(tmp_path)) == "cold", "another framework's entries do not warm it"
    (tmp_path / "paddle").mkdir()
    (tmp_path / "paddle" / "entry").write_bytes(b"\0")
    assert cache_state("paddle", str(tmp_path)) == "warm"


def test_a_framework_that_does_not_say_where_its_cache_or_cuda_build_lives_fails_loudly(registered, tmp_path):
    with pytest.raises(ValueError, match="mxnet"):
        cache_state("mxnet", str(tmp_path))  # not registered: nobody knows its folders
    unsaid = {key: value for key, value in asdict(registered).items() if key != "compile_cache"}
    with pytest.raises(TypeError, match="compile_cache"):
        Framework(**unsaid)
    with pytest.raises(EnvError, match="paddle: its registry entry names no CUDA build"):
        gpu.cuda_build("paddle")


def test_its_run_records_show_on_the_speed_page(registered, plugins, tmp_path):
    runs = tmp_path / "results" / "runs" / gen_records.CPU_MACHINE
    runs.mkdir(parents=True)
    for config in expand(
        "quick", version_of=lambda _: "3.0.0", frameworks=["paddle"], batch_sizes=[32], seeds=[0, 1], device="cpu"
    ):
        record = gen_records.as_recorded(config, gen_records.one_epoch(config, rate=900.0), ["runners", "run"])
        assert record["framework"]["name"] == "paddle"
        (runs / f"{record['record_id']}.json").write_text(json.dumps(record))  # validated when the page loads it
    page = subprocess.run(
        [
            sys.executable,
            "-c",
            PAGE_SCRIPT,
            str(plugins),
            str(tmp_path / "results"),
            str(Path(gen_records.__file__).parent),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert page.returncode == 0, page.stderr[-4000:]
    assert "| batch | PaddlePaddle |" in page.stdout, "a column of the speed table"
    assert "| 32 | 900.0 " in page.stdout and "PaddlePaddle 3.0.0" in page.stdout, "its records' rate and version"
