"""Compile caches (``runners run --compile-cache``): where each framework's live, when a run finds them warm, and when a
configuration's directory is kept for its repeat. Two real runs sharing one directory, the second warm, are in
test_matrix.py: each framework's second run takes the caches that its run in the smoke matrix left."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

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


JIT_ONE_PROGRAM = "import jax, jax.numpy as jnp; jax.jit(lambda x: x * 2 + 1)(jnp.ones(3)).block_until_ready()"


def test_jax_keeps_compiled_code_only_when_the_cache_is_shared_even_where_the_environment_names_one(tmp_path):
    """A cold run's JAX writes nothing to a cache its environment names (a user's ``JAX_COMPILATION_CACHE_DIR``),
    so that it never reads one either; a shared directory gets the compiled program."""
    fresh, shared = cache_environment(str(tmp_path), persistent=False), cache_environment(str(tmp_path), True)
    assert shared["JAX_COMPILATION_CACHE_DIR"] == str(tmp_path / "jax")
    assert shared["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == shared["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"]
    assert fresh["TORCHINDUCTOR_CACHE_DIR"] == shared["TORCHINDUCTOR_CACHE_DIR"] == str(tmp_path / "inductor")
    assert not any(name.startswith("TORCHINDUCTOR_") and not name.endswith("_CACHE_DIR") for name in shared), (
        "no Inductor setting: the run would be a tuned one"
    )
    # a user's cache that keeps every program, however quick to compile
    users = {"JAX_COMPILATION_CACHE_DIR": str(tmp_path / "users-cache")} | dict.fromkeys(
        ("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"), "0"
    )
    for environment, written in ((fresh, False), (shared, True)):
        env = {**os.environ, "JAX_PLATFORMS": "cpu", **users, **environment}
        subprocess.run([sys.executable, "-c", JIT_ONE_PROGRAM], env=env, check=True, capture_output=True, timeout=120)
        cache = Path(env["JAX_COMPILATION_CACHE_DIR"])
        assert any(path.is_file() for path in cache.rglob("*")) == written, environment


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
    elsewhere = tmp_path / "copied records, no cache"  # a later sitting's first run, a repeat, where none was left
    prepare_directory(elsewhere, repeat=True)
    assert cache_state("jax", str(elsewhere)) == "cold" and (elsewhere / FILLED_BY).read_text() == "other code"


def test_the_code_digest_changes_with_the_runners_code_and_nothing_else(tmp_path, monkeypatch):
    package = tmp_path / "runners"
    (package / "frameworks" / "torch").mkdir(parents=True)
    (package / "frameworks" / "torch" / "resnet18.py").write_text("step = 1\n")
    (package / "profiles.json").write_text("{}")
    monkeypatch.setattr(compile_cache, "__file__", str(package / "measure" / "compile_cache.py"))
    first = compile_cache.code_digest()
    (package / "notes.txt").write_text("not code")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.json").write_text("{}")
    assert compile_cache.code_digest() == first
    (package / "frameworks" / "torch" / "resnet18.py").write_text("step = 2\n")
    assert compile_cache.code_digest() != first


def test_checking_that_a_framework_is_installed_imports_nothing():
    code = (
        "import sys\nfrom runners.run_cli import check_runnable\nfor name in ('torch', 'tensorflow', 'jax'):\n"
        "    check_runnable(name, 'compiled')\nprint(sorted({'torch', 'tensorflow', 'jax', 'flax'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]", "a framework imported before runners.measure.run sets its environment"
