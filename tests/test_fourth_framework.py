"""A fourth framework, registered in a test, goes through what fwbench does with a framework: the matrix plans it
by its name (or alias) and its modes, its compile cache is the folders its entry names, its run record is made by
``runners.measure.record``, and a page of the site shows it. Nothing outside its registry entry names it.

The site copies the registry's keys when it is imported (``fwbench.frameworks.register``), so its page is rendered
in a fresh interpreter that registers the same entry first, as ``tests/generator/test_gen_fourth_framework.py``
does for the whole site.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from dataclasses import asdict, replace
from pathlib import Path

import gen_records
import pytest

from fwbench import frameworks
from fwbench.frameworks import REGISTRY, Framework
from runners.cli import main
from runners.envs import gpu
from runners.envs.build import EnvError
from runners.measure import record
from runners.measure.compile_cache import cache_state
from runners.measure.harness import harness
from runners.measure.profiles import expand

#: the stand-in: JAX's entry under another name (its colour, ecosystem subjects and probes kept), with a compile
#: cache and modes of its own, measured on CPUs only
STAND_IN = replace(
    REGISTRY["jax"],
    name="paddle",
    label="PaddlePaddle",
    aliases=("paddlepaddle",),
    import_name="paddle",
    distributions=("paddlepaddle",),
    training_modes=("compiled", "eager"),
    compile_cache=("paddle",),
    devices=("cpu",),
    cuda_build=None,
)
#: renders one page in a fresh interpreter that registers the stand-in (argv: its entry as JSON, the results
#: directory, tests/generator for ``one_page``)
PAGE_SCRIPT = textwrap.dedent(
    """
    import json, sys

    from fwbench.frameworks import Framework, register

    entry = json.loads(sys.argv[1])
    register(Framework(**{key: tuple(value) if isinstance(value, list) else value for key, value in entry.items()}))
    sys.path.insert(0, sys.argv[3])
    from generator.records.load import load_results
    from one_page import page_alone

    print(page_alone(load_results(sys.argv[2], strict=True), "results/speed.md"))
    """
)


@pytest.fixture
def registered(monkeypatch):
    """The stand-in in the registry for the test's length; its records state JAX's trainer, whose entry it is."""
    monkeypatch.setitem(REGISTRY, STAND_IN.name, STAND_IN)
    monkeypatch.setattr(frameworks, "FRAMEWORKS", tuple(REGISTRY))
    monkeypatch.setattr(record, "harness", lambda module: harness(module.replace("paddle_", "jax_")))


def test_the_matrix_plans_it_by_its_alias_in_each_mode_it_trains_in(registered, tmp_path, monkeypatch):
    planned = io.StringIO()
    with contextlib.redirect_stdout(planned):
        argv = ["matrix", "--dry-run", "--profile", "quick", "--device", "cpu", "--modes", "compiled,eager"]
        assert main([*argv, "--frameworks", "paddlepaddle", "--batch-sizes", "32", "--out", str(tmp_path)]) == 0
    assert "paddle/compiled bs32 seed0" in planned.getvalue() and "paddle/eager bs32 seed0" in planned.getvalue()
    monkeypatch.setitem(REGISTRY, STAND_IN.name, replace(STAND_IN, training_modes=("compiled",)))
    configs = expand("quick", version_of=lambda _: "3.0.0", frameworks=["paddle"], modes=["compiled", "eager"])
    assert {(c.framework, c.mode) for c in configs} == {("paddle", "compiled")}


def test_its_compile_cache_is_the_folders_its_entry_names(registered, tmp_path):
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "entry").write_bytes(b"\0")
    assert cache_state("paddle", str(tmp_path)) == "cold", "another framework's entries do not warm it"
    (tmp_path / "paddle").mkdir()
    (tmp_path / "paddle" / "entry").write_bytes(b"\0")
    assert cache_state("paddle", str(tmp_path)) == "warm"


def test_a_framework_that_does_not_say_where_its_cache_or_cuda_build_lives_fails_loudly(registered, tmp_path):
    with pytest.raises(ValueError, match="mxnet"):
        cache_state("mxnet", str(tmp_path))  # not registered: nobody knows its folders
    unsaid = {key: value for key, value in asdict(STAND_IN).items() if key != "compile_cache"}
    with pytest.raises(TypeError, match="compile_cache"):
        Framework(**unsaid)
    with pytest.raises(EnvError, match="paddle: its registry entry names no CUDA build"):
        gpu.cuda_build("paddle")


def test_its_run_records_show_on_the_speed_page(registered, tmp_path):
    runs = tmp_path / "results" / "runs" / gen_records.CPU_MACHINE
    runs.mkdir(parents=True)
    for config in expand(
        "quick", version_of=lambda _: "3.0.0", frameworks=["paddle"], batch_sizes=[32], seeds=[0, 1], device="cpu"
    ):
        record = gen_records.as_recorded(config, gen_records.one_epoch(config, rate=900.0), ["runners", "run"])
        assert record["framework"]["name"] == "paddle"
        (runs / f"{record['record_id']}.json").write_text(json.dumps(record))  # validated when the page loads it
    entry = json.dumps(asdict(STAND_IN))
    page = subprocess.run(
        [sys.executable, "-c", PAGE_SCRIPT, entry, str(tmp_path / "results"), str(Path(gen_records.__file__).parent)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert page.returncode == 0, page.stderr[-4000:]
    assert "| batch | PaddlePaddle |" in page.stdout, "a column of the speed table"
    assert "| 32 | 900.0 " in page.stdout and "PaddlePaddle 3.0.0" in page.stdout, "its records' rate and version"
