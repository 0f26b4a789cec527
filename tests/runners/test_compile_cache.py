"""Compile caches (``runners run --compile-cache``): where each framework's live, when a run finds them warm, and
two real runs sharing one directory, the second warm (PyTorch, and JAX, whose cache settings are read on import)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fwbench.records import read_record
from runners.compile_cache import cache_environment, cache_state


def test_a_run_finds_the_cache_warm_only_where_its_framework_left_entries(tmp_path):
    assert {cache_state(name, str(tmp_path)) for name in ("torch", "jax", "tensorflow")} == {"cold"}
    (tmp_path / "inductor" / "fxgraph").mkdir(parents=True)  # folders alone hold nothing
    assert cache_state("torch", str(tmp_path)) == "cold"
    (tmp_path / "triton" / "kernel").mkdir(parents=True)
    (tmp_path / "triton" / "kernel" / "entry.cubin").write_bytes(b"\0")
    assert cache_state("torch", str(tmp_path)) == "warm"
    assert cache_state("jax", str(tmp_path)) == "cold", "another framework's entries do not warm JAX"
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "jit_step-cache").write_bytes(b"\0")
    assert cache_state("jax", str(tmp_path)) == "warm"
    assert cache_state("tensorflow", str(tmp_path)) == "cold", "XLA in TensorFlow keeps no compiled code"


def test_jax_keeps_compiled_code_only_when_the_cache_is_shared(tmp_path):
    fresh, shared = cache_environment(str(tmp_path), persistent=False), cache_environment(str(tmp_path), True)
    assert "JAX_COMPILATION_CACHE_DIR" not in fresh  # a cold run compiles as JAX does out of the box
    assert shared["JAX_COMPILATION_CACHE_DIR"] == str(tmp_path / "jax")
    assert shared["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == shared["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"]
    assert fresh["TORCHINDUCTOR_CACHE_DIR"] == shared["TORCHINDUCTOR_CACHE_DIR"] == str(tmp_path / "inductor")
    assert not any(name.startswith("TORCHINDUCTOR_") and not name.endswith("_CACHE_DIR") for name in shared), (
        "no Inductor setting: the run would be a tuned one"
    )


def test_checking_that_a_framework_is_installed_imports_nothing():
    code = (
        "import sys\nfrom runners.cli import check_runnable\nfor name in ('torch', 'tensorflow', 'jax'):\n"
        "    check_runnable(name, 'compiled')\nprint(sorted({'torch', 'tensorflow', 'jax', 'flax'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]", "a framework imported before runners.run sets its environment"


def smoke(framework: str, cache: Path, out: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "runners.cli", "run", "--framework", framework, "--no-progress"]
        + ["--compile-cache", str(cache), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return read_record(done.stdout.strip())


@pytest.mark.slow
@pytest.mark.parametrize("framework, folder", [("torch", "inductor"), ("jax", "jax")])
def test_a_second_run_with_the_same_cache_compiles_warm(tmp_path, framework, folder):
    cache = tmp_path / "cache"
    cold = smoke(framework, cache, tmp_path / "first")
    entries = [path for path in cache.rglob("*") if path.is_file()]
    warm = smoke(framework, cache, tmp_path / "second")
    cold_s, warm_s = cold["timing"]["compile_seconds"], warm["timing"]["compile_seconds"]
    print(
        f"{framework} smoke compile: cold {cold_s:.2f} s, warm {warm_s:.2f} s (warm / cold {warm_s / cold_s:.2f}), "
        f"{len(entries)} cache files after the first run"
    )
    assert cold["timing"]["compile_cache"] == "cold" and warm["timing"]["compile_cache"] == "warm"
    assert entries and any(path.is_relative_to(cache / folder) for path in entries)
