"""benchmarks/device_profile.py: a loop's device time by op category, read from JAX's profiler trace. The fixtures
are one step each of the torchax trainer and the minimal torchax loop, ResNet-18 bf16 at batch 256, traced on a
TPU v5e (their device ops and the host's first events, each op's arguments cut to its category); a CPU's own trace,
made here, has no device ops."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from benchmarks import device_profile

FIXTURES = Path(__file__).parent / "fixtures"
TRAINER, MINIMAL = (FIXTURES / f"tpu_v5e_profile_{name}.trace.json.gz" for name in ("trainer", "minimal"))


def test_a_step_is_the_device_program_and_its_ops_are_summed_by_category():
    found = device_profile.device_time(TRAINER)
    assert found["steps"] == 1
    assert found["milliseconds"] == pytest.approx(7.401, abs=1e-3)
    categories = found["categories"]
    assert "?" not in categories  # the host's events carry no category and are not the device's
    assert max(categories, key=categories.get) == "convolution fusion"
    # the ops run one after another inside the program: together no longer than it
    assert 0.9 * found["milliseconds"] < sum(categories.values()) <= found["milliseconds"]


def test_the_trainers_extra_time_on_the_chip_is_named_by_its_category():
    trainer, minimal = (device_profile.device_time(trace) for trace in (TRAINER, MINIMAL))
    gaps = device_profile.differences(trainer, minimal, count=2)
    assert gaps[0] == "+0.253 ms data formatting"  # the layout copies of weights and momenta
    assert "convolution" not in " ".join(gaps)
    assert device_profile.report("trainer", trainer).startswith("trainer: 7.401 ms a step on the device;")


def test_a_cpu_trace_has_no_device_ops_and_the_report_says_so(tmp_path):
    step = jax.jit(lambda x: jnp.tanh(x @ x).sum())
    x = jnp.ones((64, 64))
    step(x).block_until_ready()
    trace = device_profile.traced(tmp_path, lambda: step(x).block_until_ready())
    found = device_profile.device_time(trace)
    assert found["steps"] == 0 and device_profile.per_step(found) == {}
    assert "no device ops" in device_profile.report("cpu", found)
