"""benchmarks/tpu_compiled_step.py: a loop's step held at its ``jax.jit`` call, and its reading of a TPU-compiled
program (the kernels below are lines of torchax's bf16 step at batch 64, compiled by libtpu for a v5e on the 2-core
VM). Compiling for the TPU needs libtpu, which the suite does not install: without it the script says so."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import pytest

from benchmarks import tpu_compiled_step
from runners.workloads import workload

KERNELS = Path(__file__).parent / "fixtures" / "tpu_v5e_kernels.hlo.txt"


def test_each_kernel_of_a_tpu_compiled_step_is_read_with_its_estimate_and_group():
    found = tpu_compiled_step.kernels(KERNELS.read_text())
    assert [kernel["group"] for kernel in found] == [
        "kOutput backward aten::convolution",
        "kLoop forward aten::var_mean.correction",
        "copy of params",
        "copy of opt_state",
        "convert forward aten::convolution",
    ]
    assert [k["cycles"] for k in found] == [
        int(line.split('"estimated_cycles":"')[1].split('"')[0]) for line in KERNELS.read_text().splitlines()
    ]


def test_a_loops_step_is_held_at_its_jit_call_with_its_arguments_and_never_runs():
    jitted, (args, kwargs) = tpu_compiled_step.held_step(workload("gpt").at("gpt2-tiny"), "jax", "minimal", "fp32", 2)
    shapes = [getattr(leaf, "shape", None) for leaf in jax.tree_util.tree_leaves((args, kwargs))]
    assert (2, 128) in shapes  # the batch of token sequences
    assert jitted._cache_size() == 0, "held before it traced or ran"


def test_a_jitted_function_made_inside_the_block_runs_on_inside_the_held_step_once_it_is_lowered():
    """A library imported while the loop is built (optax) makes its own jitted functions then: the step's trace calls
    them, and they must run as usual once the step is held."""
    with tpu_compiled_step.held_jit_calls() as made:
        inner = jax.jit(lambda x: x * 2.0)
        outer = jax.jit(lambda x: inner(x) + 1.0)
        held = tpu_compiled_step.first_call(made, lambda: outer(jax.numpy.ones(3)))
    assert held.jitted is outer.jitted and held.arguments[0][0].shape == (3,)
    assert "mul" in held.jitted.lower(*held.arguments[0]).as_text()


def test_without_libtpu_it_says_so_in_one_line(monkeypatch, capsys):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "libtpu" else find_spec(name, *a))
    with pytest.raises(SystemExit) as ended:
        tpu_compiled_step.main(["--framework", "torchax", "--batch-size", "64"])
    assert ended.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "tpu_compiled_step.py: libtpu is not installed (pip install libtpu): it compiles for the TPU"
    ]


def test_a_size_the_workload_lacks_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as ended:
        tpu_compiled_step.main(["--workload", "gpt", "--size", "huge"])
    assert ended.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tpu_compiled_step.py: error: --size: size 'huge': gpt has bytes-6x384, gpt2-small, gpt2-tiny"
    )
