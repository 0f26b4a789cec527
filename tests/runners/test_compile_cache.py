"""Compile caches (``runners run --compile-cache``): where each framework's live, when a run finds them warm, when a
configuration's directory is kept for its repeat, and two real runs sharing one directory, the second warm (PyTorch;
JAX and TensorFlow, whose cache settings are read on import)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fwbench.records import read_record
from runners.measure import compile_cache
from runners.measure.compile_cache import FILLED_BY, cache_environment, cache_state, prepare_directory, temporary_folder


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
    assert cache_state("tensorflow", str(tmp_path)) == "cold"
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "xla_compile_cache__1__2__XLA_CPU_JIT.pb").write_bytes(b"\0")
    assert cache_state("tensorflow", str(tmp_path)) == "warm"
    (tmp_path / "other" / FILLED_BY).parent.mkdir()
    (tmp_path / "other" / FILLED_BY).write_text("x")
    assert cache_state("torch", str(tmp_path / "other")) == "cold", "the stamp alone is no compiled code"


def test_a_run_keeps_its_temporary_files_in_its_cache_directory_and_leaves_the_process_as_it_was(tmp_path):
    before = os.environ.get("TMPDIR"), tempfile.tempdir
    with temporary_folder(str(tmp_path)) as folder:
        assert folder == str(tmp_path / compile_cache.TEMPORARY) and Path(folder).is_dir()
        assert os.environ["TMPDIR"] == tempfile.gettempdir() == folder
        assert Path(tempfile.mkdtemp()).parent == Path(folder)
    assert (os.environ.get("TMPDIR"), tempfile.tempdir) == before
    assert cache_state("torch", str(tmp_path)) == "cold", "temporary files are no compiled code"


def test_jax_keeps_compiled_code_only_when_the_cache_is_shared(tmp_path):
    fresh, shared = cache_environment(str(tmp_path), persistent=False), cache_environment(str(tmp_path), True)
    assert "JAX_COMPILATION_CACHE_DIR" not in fresh  # a cold run compiles as JAX does out of the box
    assert shared["JAX_COMPILATION_CACHE_DIR"] == str(tmp_path / "jax")
    assert shared["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == shared["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"]
    assert fresh["TORCHINDUCTOR_CACHE_DIR"] == shared["TORCHINDUCTOR_CACHE_DIR"] == str(tmp_path / "inductor")
    assert not any(name.startswith("TORCHINDUCTOR_") and not name.endswith("_CACHE_DIR") for name in shared), (
        "no Inductor setting: the run would be a tuned one"
    )


def test_tensorflow_keeps_xla_executables_only_when_the_cache_is_shared_after_the_users_own_flags(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)
    assert "TF_XLA_FLAGS" not in cache_environment(str(tmp_path), persistent=False)  # a cold run: TensorFlow's default
    flag = f"--tf_xla_persistent_cache_directory={tmp_path / 'tensorflow'}"
    assert cache_environment(str(tmp_path), True)["TF_XLA_FLAGS"] == flag
    monkeypatch.setenv("TF_XLA_FLAGS", "--tf_xla_auto_jit=2")  # a tuned run's own flag stays
    assert cache_environment(str(tmp_path), True)["TF_XLA_FLAGS"] == f"--tf_xla_auto_jit=2 {flag}"


def test_a_repeat_keeps_the_cache_that_the_same_code_left_and_anything_else_empties_it(tmp_path, monkeypatch):
    cache = tmp_path / "config"
    prepare_directory(cache, repeat=False)  # a first run: a fresh directory, stamped with the code
    (cache / "jax").mkdir()
    (cache / "jax" / "entry").write_bytes(b"\0")
    prepare_directory(cache, repeat=True)
    assert cache_state("jax", str(cache)) == "warm", "a repeat of the same code, in this matrix or a later one"
    prepare_directory(cache, repeat=False)
    assert sorted(p.name for p in cache.iterdir()) == [FILLED_BY], "a first run compiles cold"
    (cache / "jax").mkdir()
    (cache / "jax" / "entry").write_bytes(b"\0")
    monkeypatch.setattr(compile_cache, "code_digest", lambda: "other code")
    prepare_directory(cache, repeat=True)
    assert cache_state("jax", str(cache)) == "cold", "entries of other code would be counted warm and miss"
    assert (cache / FILLED_BY).read_text() == "other code"
    (cache / FILLED_BY).unlink()
    (cache / "jax").mkdir()
    (cache / "jax" / "entry").write_bytes(b"\0")
    prepare_directory(cache, repeat=True)
    assert cache_state("jax", str(cache)) == "cold", "a cache no stamp vouches for (an older fwbench's)"


def test_the_code_digest_changes_with_the_runners_code_and_nothing_else(tmp_path, monkeypatch):
    package = tmp_path / "runners"
    (package / "frameworks").mkdir(parents=True)
    (package / "frameworks" / "torch_train.py").write_text("step = 1\n")
    (package / "profiles.json").write_text("{}")
    monkeypatch.setattr(compile_cache, "__file__", str(package / "measure" / "compile_cache.py"))
    first = compile_cache.code_digest()
    (package / "notes.txt").write_text("not code")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.json").write_text("{}")
    assert compile_cache.code_digest() == first
    (package / "frameworks" / "torch_train.py").write_text("step = 2\n")
    assert compile_cache.code_digest() != first


def test_checking_that_a_framework_is_installed_imports_nothing():
    code = (
        "import sys\nfrom runners.cli import check_runnable\nfor name in ('torch', 'tensorflow', 'jax'):\n"
        "    check_runnable(name, 'compiled')\nprint(sorted({'torch', 'tensorflow', 'jax', 'flax'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]", "a framework imported before runners.measure.run sets its environment"


def smoke(framework: str, cache: Path, out: Path, temporary: Path) -> dict:
    # smaller than the smoke profile (batch 32, 64 images): a cache's state does not depend on how much a run trains
    done = subprocess.run(
        [sys.executable, "-m", "runners.cli", "run", "--framework", framework, "--no-progress"]
        + ["--batch-size", "8", "--train-images", "16", "--test-images", "16"]
        + ["--compile-cache", str(cache), "--out", str(out)],
        env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return read_record(done.stdout.strip())


def precompiled_headers(cache: Path) -> dict[Path, int]:
    """Inductor's precompiled C++ headers in ``cache``'s temporary folder, with the time each was written."""
    headers = (cache / compile_cache.TEMPORARY).glob("torchinductor_*/precompiled_headers/*.gch")
    return {path: path.stat().st_mtime_ns for path in headers}


@pytest.mark.slow
@pytest.mark.parametrize("framework, folder", [("torch", "inductor"), ("jax", "jax"), ("tensorflow", "tensorflow")])
def test_a_second_run_with_the_same_cache_compiles_warm(tmp_path, framework, folder):
    cache, temporary = tmp_path / "cache", tmp_path / "tmp"
    temporary.mkdir()
    cold = smoke(framework, cache, tmp_path / "first", temporary)
    entries = [path for path in cache.rglob("*") if path.is_file()]
    headers_after_cold = precompiled_headers(cache)
    warm = smoke(framework, cache, tmp_path / "second", temporary)
    cold_s, warm_s = cold["timing"]["compile_seconds"], warm["timing"]["compile_seconds"]
    print(
        f"{framework} smoke compile: cold {cold_s:.2f} s, warm {warm_s:.2f} s (warm / cold {warm_s / cold_s:.2f}), "
        f"{len(entries)} cache files after the first run"
    )
    assert cold["timing"]["compile_cache"] == "cold" and warm["timing"]["compile_cache"] == "warm"
    assert entries and any(path.is_relative_to(cache / folder) for path in entries)
    # the runs end without atexit handlers (runners/cli.py), where TensorFlow's autograph deletes its files
    assert not any(temporary.iterdir()), "the runs' temporary files are gone"
    if framework == "torch":  # Inductor's precompiled header, in the cache's temporary folder, is not built again
        assert headers_after_cold, "the cold run built its header in the cache's temporary folder"
        assert precompiled_headers(cache) == headers_after_cold, "the warm run found the header the cold run built"
