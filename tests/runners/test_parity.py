"""The three frameworks train the same network: same forward pass, same update, same BN statistics.

Float64 runs isolate semantics from rounding: float32 rounding differences between the frameworks'
convolution algorithms are amplified ~1e4× through 3 steps of this 20-layer network (measured: a
1e-6 relative perturbation of the weights moves a float32 update by up to 1e-1), which would hide
any real difference. In float64 the differences are ~1e-12, so a change of padding, BN momentum or
epsilon, weight-decay coupling or momentum rule (each ≥ 1e-5 relative) fails these bounds by orders
of magnitude. Float32 runs (the benchmark's precision, compiled modes) check the forward pass and the
first update to float32-appropriate bounds.
"""

import numpy as np
import pytest

from runners.workloads.resnet18 import arch, parity

#: float64 images per step, not the benchmark's parity batch of 16: float64 convolutions are most of the captures' time
#: on a CPU, and at batch 4 every BatchNorm still reduces over 64 or more values (PyTorch's Bessel factor n/(n − 1)
#: is still 1 + 1.6e-2 or more: its omission would break the bounds by orders of magnitude)
FLOAT64_BATCH = 4


@pytest.fixture(scope="module")
def float64_captures(tmp_path_factory):
    return parity.capture_all("eager", "float64", tmp_path_factory.mktemp("parity64"), batch_size=FLOAT64_BATCH)


@pytest.fixture(scope="module")
def float32_compiled_captures(tmp_path_factory):
    return parity.capture_all("compiled", "float32", tmp_path_factory.mktemp("parity32"))


@pytest.mark.slow
@pytest.mark.parametrize("a,b", parity.PAIRS)
def test_float64_forward_update_and_bn_statistics_agree(float64_captures, a, b):
    report = parity.compare(float64_captures[a], float64_captures[b], a_is_torch=a == "torch", batch_size=FLOAT64_BATCH)
    print(f"{a} vs {b} (float64):", report)
    assert report["logits.train"] < 1e-10
    assert report["logits.eval"] < 1e-10
    assert report["loss"] < 1e-10
    assert report["update"] < 1e-8, "the per-step parameter updates differ: optimizer semantics differ"
    assert report["running_mean"] < 1e-10, "BN running means differ: momentum differs"
    assert report["running_var"] < 1e-10, "BN running variances differ (after PyTorch's Bessel correction)"


@pytest.mark.slow
@pytest.mark.parametrize("a,b", parity.PAIRS)
def test_float32_compiled_forward_and_first_update_agree(float32_compiled_captures, a, b):
    ca, cb = float32_compiled_captures[a], float32_compiled_captures[b]
    report = parity.compare(ca, cb, a_is_torch=a == "torch")
    print(f"{a} vs {b} (float32, compiled):", report)
    assert report["logits.train"] < 1e-4
    assert report["logits.eval"] < 1e-4
    first_update = max(
        parity.relative_difference(ca[f"step1.{n}"] - ca[f"step0.{n}"], cb[f"step1.{n}"] - cb[f"step0.{n}"])
        for n in arch.weight_names()
        if arch.is_trainable(n)
    )
    assert first_update < 3e-2  # float32 gradients through 20 BN layers: see the module docstring


def test_parameter_count_and_flops_come_from_the_architecture():
    assert arch.trainable_param_count() == 11_173_962
    assert arch.macs_per_image() == 555_422_720
    assert arch.flops_per_image() == 2 * 555_422_720
    weights = arch.init_weights(0)
    assert sum(v.size for k, v in weights.items() if arch.is_trainable(k)) == arch.trainable_param_count()


def test_bessel_correction_is_what_separates_torch_running_variance():
    """The correction used above is not a fudge: without it, torch's running variance differs."""
    rng = np.random.default_rng(0)
    ref = {}
    for name in arch.weight_names():
        if name.endswith(".var"):
            values = rng.uniform(0.5, 1.5, 4)
            for step in range(parity.PARITY_STEPS + 1):
                ref[f"step{step}.{name}"] = values * (1 + 0.1 * step)
    expected = parity.bessel_corrected_var(ref, batch_size=2, steps=parity.PARITY_STEPS)
    worst = max(parity.relative_difference(expected[k], ref[k]) for k in expected)
    assert worst > 1e-3


def test_captures_of_several_precisions_share_a_file_and_come_back_apart_the_reference_last(tmp_path):
    captures = {p: {"loss1": np.asarray(float(i))} for i, p in enumerate(parity.in_capture_order(("fp32", "bf16")))}
    assert list(captures) == ["bf16", "fp32"], "fp32's process-wide switches must not reach the others"
    parity.save_precisions(tmp_path / "torch.npz", captures)
    with np.load(tmp_path / "torch.npz") as arrays:
        found = parity.by_precision({"torch": dict(arrays)}, ("fp32", "bf16"))
    assert found == {"fp32": {"torch": {"loss1": 1.0}}, "bf16": {"torch": {"loss1": 0.0}}}
    with pytest.raises(SystemExit):
        parity.main(["--framework", "torch", "--precision", "fp32,fp16", "--out", str(tmp_path / "x.npz")])
