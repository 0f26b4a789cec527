"""The shipped reference trajectories: they cover every offline configuration the profiles run (ResNet-18's synthetic
set, the GPT's grammar), they are what the float64 parity path computes, and a float32 run's first losses (as
``runners run`` records them) stay within the fp32 bound of them."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from runners.measure.profiles import expand
from runners.measure.protocol import FIRST_LOSSES, TIMING_PROTOCOL
from runners.measure.run import measure_or_fail
from runners.workloads.gpt import arch as gpt_arch
from runners.workloads.resnet18 import arch, reference_losses
from runners.workloads.resnet18.reference_losses import (
    DATA_FILE,
    Key,
    bound_of,
    first_losses,
    profile_keys,
    worst_per_step,
)

SHIPPED = json.loads(DATA_FILE.read_text())
TRAJECTORIES = {Key(**t["key"]): t["losses"] for t in SHIPPED["trajectories"]}
SMOKE = Key("synthetic", 64, 1, 0, 32)
SMOKE_GPT = Key("grammar", 16, 1, 0, 8)


def test_every_offline_configuration_of_the_profiles_has_a_reference():
    assert set(profile_keys()) <= set(TRAJECTORIES)
    assert {key.dataset for key in TRAJECTORIES} == {"synthetic", "grammar"}
    for key, losses in TRAJECTORIES.items():
        assert len(losses) == min(FIRST_LOSSES, key.images // key.batch_size)


def test_the_shipped_models_and_step_count_are_fwbench_s():
    assert SHIPPED["first_losses"] == FIRST_LOSSES
    gpt = {"trainable_params": gpt_arch.trainable_param_count(), "flops_per_token": gpt_arch.flops_per_token()}
    sized = {
        f"gpt-{size}": {
            "trainable_params": gpt_arch.trainable_param_count(config),
            "flops_per_token": gpt_arch.flops_per_token(config),
        }
        for size, config in gpt_arch.SIZES.items()
    }
    resnet18 = {"trainable_params": arch.trainable_param_count(), "flops_per_image": arch.flops_per_image()}
    assert SHIPPED["models"] == {"resnet18": resnet18, "gpt": gpt, **sized}
    assert sized["gpt-bytes-6x384"] == gpt  # the default size is the workload's


@pytest.mark.parametrize("policy,datasets", [("fp32", {"synthetic", "grammar"}), ("bf16", {"synthetic"})])
def test_each_bound_was_measured_for_all_three_frameworks_on_the_workloads_that_apply_it(policy, datasets):
    bound = SHIPPED["bounds"][policy]
    assert set(bound["measured_worst"]) == {"torch", "tensorflow", "jax"}
    assert {c["dataset"] for c in bound["measured_on"]["configurations"]} == datasets  # the GPT applies no bf16
    assert bound["relative"] == [bound_of(w) for w in worst_per_step(list(bound["measured_worst"].values()))]
    assert len(bound["relative"]) == FIRST_LOSSES and bound["relative"] == sorted(bound["relative"])


def test_bound_is_the_margin_times_the_worst_rounded_up_to_a_power_of_ten():
    assert bound_of(3.2e-7) == pytest.approx(1e-5)
    assert bound_of(1e-6) == pytest.approx(1e-5)
    assert worst_per_step([[1e-7, 1e-3], [2e-7]]) == [2e-7, 1e-3]


def test_a_record_s_key_is_the_images_it_loaded():
    (config,) = expand("quick", frameworks=["torch"], batch_sizes=[256], device="cpu", version_of=lambda _f: None)
    assert Key.of_run(config).images == config.epoch_train_images
    assert Key.of({"train_images": None}) is None


@pytest.mark.parametrize("key", [SMOKE, SMOKE_GPT])
def test_the_reference_is_the_float64_parity_path(key):
    assert first_losses("torch", key, steps=1) == pytest.approx(TRAJECTORIES[key][:1], rel=1e-12)


@pytest.fixture(scope="module")
def smoke_run() -> dict:
    """A real float32 smoke run of PyTorch (eager) in this process."""
    (config,) = expand("smoke", frameworks=["torch"], modes=["eager"], device="cpu", version_of=lambda _f: "x")
    saved = dict(os.environ)  # the run sets the framework's environment in this process
    try:
        return measure_or_fail(config, progress=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_a_run_measures_its_compile_time_against_the_first_step_run_again(smoke_run):
    timing = smoke_run["timing"]
    assert smoke_run["protocol"] == TIMING_PROTOCOL and timing["rerun_step_seconds"] > 0
    assert timing["compile_seconds"] == timing["first_step_seconds"] - timing["rerun_step_seconds"]
    assert len(timing["window_step_seconds"]) == len(timing["window_steps"]) == timing["timed_windows"]
    assert timing["step_seconds_median"] == pytest.approx(float(np.median(timing["window_step_seconds"])))


def test_a_run_times_its_set_up_and_evaluation_apart_from_its_steps(smoke_run):
    timing = smoke_run["timing"]
    assert timing["setup_seconds"] > 0 and timing["evaluation_seconds"] > 0


def test_a_float32_run_records_first_losses_within_the_fp32_bound(smoke_run):
    record = smoke_run
    losses = record["training"]["first_losses"]
    reference = TRAJECTORIES[reference_losses.Key.of(record["config"])]
    assert len(losses) == len(reference)
    bounds = SHIPPED["bounds"]["fp32"]["relative"]
    assert all(d <= b for d, b in zip(reference_losses.deviations(losses, reference), bounds, strict=False))
