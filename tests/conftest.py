"""The record factories of tests/generator (``gen_records``, ``probe_records``) importable from every test folder:
pytest puts only a test file's own folder on the path. The heaviest test files first, for `make test`'s schedule, the
frameworks' idle threads asleep, and one JAX compilation cache for the whole run."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from runners.frameworks.jax.compile_cache import variables as jax_cache_variables

sys.path.insert(0, str(Path(__file__).parent / "generator"))

#: `make test`'s two workers on two cores each start framework processes, whose OpenMP threads (PyTorch's) spin while
#: they wait for work, on the core the other worker needs; asleep instead, the matrix's and the parity tests (then four
#: files) took 205-207 s and 375 CPU-s, against 220-223 s and 404-409 CPU-s. It changes no result: how a thread waits,
#: not what it computes.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: one JAX (and torchax) compilation cache for the run, made here in `make test`'s first process and inherited by its
#: workers and every process they start: the parity captures, the trainers' tests and the loops compile many of the
#: same programs in different files, and each then compiles once (on the 2-core VM, Inductor's cache warm, the suite
#: took 427 s with it and 454 s without). It changes no result: JAX's cache returns the executable its compile would
#: make. The runs under test keep their own rule: a cold one turns the cache off, a matrix's configuration has its own
#: (``compile_cache``).
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    _jax_cache = tempfile.mkdtemp(prefix="fwbench-tests-jax-cache-")
    os.environ.update(jax_cache_variables((_jax_cache,), persistent=True))
    atexit.register(shutil.rmtree, _jax_cache, ignore_errors=True)

#: the test files that keep one worker busy for 7 s or more (``pytest --durations``, 2 workers), dearest first.
#: `make test` hands files to its two workers in collection order (``--dist loadfile --no-loadscope-reorder``; xdist's
#: own order, most tests first, hands several of these out last): with these handed out first, the many quick files
#: fill the gaps, and no worker is left alone with a heavy file at the end (one left out of this list, the
#: idiomatic loop's 14 s, ended the suite 25 s after the other worker was done).
HEAVIEST_FIRST = (
    "runners/test_parity.py",
    "runners/test_matrix.py",
    "runners/test_gpt_parity.py",
    "generator/test_gen_browser.py",
    "runners/test_version_sets.py",
    "runners/test_ray_executor.py",
    "test_float32_parity.py",
    "probes/test_probe_real.py",
    "runners/test_trainer.py",
    "test_accelerator_kit.py",
    "runners/test_workloads.py",
    "runners/test_repeats.py",
    "runners/test_reference_losses.py",
    "test_idiomatic_loop.py",
    "runners/test_run_load.py",
    "runners/test_orphans.py",
    "runners/test_envs_gpu.py",
    "runners/test_torchax.py",
    "generator/test_gen_site.py",
    "runners/test_envs.py",
    "test_setup_platforms.py",
)
HEAVIEST_PATHS = [Path(__file__).parent / file for file in HEAVIEST_FIRST]
if missing := [str(path) for path in HEAVIEST_PATHS if not path.is_file()]:
    raise pytest.UsageError(f"tests/conftest.py HEAVIEST_FIRST names no such file: {', '.join(missing)}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return HEAVIEST_PATHS.index(item.path) if item.path in HEAVIEST_PATHS else len(HEAVIEST_PATHS)

    items.sort(key=rank)  # stable: each file's tests, and the other files, keep their order
