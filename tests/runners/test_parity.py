"""The three frameworks train the same network: same forward pass, same update, same BN statistics.

Float64 runs isolate semantics from rounding: float32 rounding differences between the frameworks'
convolution algorithms are amplified ~1e4× through 3 steps of this 20-layer network (measured: a
1e-6 relative perturbation of the weights moves a float32 update by up to 1e-1), which would hide
any real difference. In float64 the differences are ~1e-12, so a change of padding, BN momentum or
epsilon, weight-decay coupling or momentum rule (each ≥ 1e-5 relative) fails these bounds by orders
of magnitude. Float32 runs (the benchmark's precision, compiled modes) check the forward pass and the
first update to float32-appropriate bounds.

Parity per precision: each framework's forward pass and first training step under ``default`` and ``bf16`` against
its own strict-fp32 run (float32, random BatchNorm statistics, batch 16, on the CPU; PyTorch and TensorFlow eager, JAX
and torchax jitted, whose fp32 run is also their compiled float32 capture above), and a planted wrong cast that the
bf16 bounds catch.

Measured on the 2-core development VM (AMD EPYC, torch 2.14.1, TensorFlow 2.21 with Keras 3.15, JAX 0.10.2 with
Flax 0.12.8, torchax 0.0.13), the worst of the four frameworks, ``max |a − b| / max |b|``:

- ``default``: every quantity 0.0: a CPU has no TF32, so each framework's default is its strict float32.
- ``bf16``: logits in training mode 2.3e-2 (TensorFlow), in eval mode 7.5e-3 (TensorFlow), loss 3.7e-4
  (TensorFlow), parameter update 5.9e-1 (PyTorch: bf16 keeps 8 bits of mantissa), running-mean update 4.9e-3
  (TensorFlow), running-variance update 1.7e-2 (PyTorch).
- PyTorch's bf16 with its BatchNorm running statistics kept in bf16 (planted): running-mean update 1.35e-2,
  running-variance update 5.0e-2; with its parameters kept in bf16 (planted, the ``model.to(torch.bfloat16)``
  mistake): parameter update 83.

The bounds sit between the two. A bf16 momentum buffer is not in the list: its rounding (2⁻⁹ of the update) is far
below that of bf16 gradients, so one step cannot show it; the read-back dtypes (``test_trainer.py``) and the code are
what keep the optimizer state float32.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fwbench.frameworks import FRAMEWORKS, framework
from runners.measure.provenance import REPO_ROOT
from runners.workloads import parity_captures
from runners.workloads.parity_captures import Capture
from runners.workloads.resnet18 import arch, parity

#: float64 images per step, not the benchmark's parity batch of 16: float64 convolutions are most of the captures' time
#: on a CPU, and at batch 4 every BatchNorm still reduces over 64 or more values (PyTorch's Bessel factor n/(n − 1)
#: is still 1 + 1.6e-2 or more: its omission would break the bounds by orders of magnitude)
FLOAT64_BATCH = 4
#: the frameworks that only train jitted (JAX, torchax), whose "eager" capture is their compiled one, and the others
JITTED_ONLY = tuple(name for name in FRAMEWORKS if framework(name).training_modes == ("compiled",))
EAGER_TOO = tuple(name for name in FRAMEWORKS if name not in JITTED_ONLY)
PRECISIONS = ("fp32", "default", "bf16")

#: per precision, the largest relative difference from the framework's fp32 run each quantity may have (measured
#: figures in the module docstring)
BOUNDS = {
    "default": dict.fromkeys(("logits.train", "logits.eval", "loss", "update", "running_mean", "running_var"), 1e-6),
    "bf16": {
        "logits.train": 5e-2,
        "logits.eval": 3e-2,
        "loss": 2e-3,
        "update": 2.0,
        "running_mean": 8e-3,
        "running_var": 2.8e-2,
    },
}

#: PyTorch bf16 captures, one per kind of tensor, whose trainer rounds, after every step, its BatchNorm buffers
#: (``bn``) or its parameters (``weights``) to bfloat16: what a trainer that kept them in bf16 holds; one process
#: writes ``KIND.npz`` for each kind into the folder it is given
PLANTED = """
import sys
import numpy as np
import torch
from runners.workloads.resnet18 import parity
from runners.frameworks.torch import resnet18 as torch_resnet18

out = sys.argv[1]
step = torch_resnet18.Trainer.train_step

def planted(self, x, y, lr):
    result = step(self, x, y, lr)
    with torch.no_grad():
        for t in self.model.buffers() if what == "bn" else self.model.parameters():
            if t.is_floating_point():
                t.copy_(t.to(torch.bfloat16).to(t.dtype))
    return result

torch_resnet18.Trainer.train_step = planted
for what in ("bn", "weights"):
    np.savez(f"{out}/{what}.npz", **parity.capture("torch", "eager", "float32", steps=1, precision="bf16"))
"""


def deviation(capture: dict[str, np.ndarray], reference: dict[str, np.ndarray]) -> dict[str, float]:
    """The worst relative differences of a one-step capture from the reference: logits, loss, and the step's change of
    the parameters and of the running statistics (a change, so that rounding a stored value shows)."""
    found = {key: parity.relative_difference(capture[key], reference[key]) for key in ("logits.train", "logits.eval")}
    found["loss"] = parity.relative_difference(capture["loss1"], reference["loss1"])
    changes: dict[str, list[float]] = {"update": [], "running_mean": [], "running_var": []}
    for name in arch.weight_names():
        kind = "update" if arch.is_trainable(name) else "running_mean" if name.endswith(".mean") else "running_var"
        after, before = f"step1.{name}", f"step0.{name}"
        changes[kind].append(
            parity.relative_difference(capture[after] - capture[before], reference[after] - reference[before])
        )
    return found | {kind: max(values) for kind, values in changes.items()}


def beyond(report: dict[str, float], precision: str) -> dict[str, float]:
    """The quantities of ``report`` past ``precision``'s bounds."""
    return {key: value for key, value in report.items() if value >= BOUNDS[precision][key]}


FLOAT64 = parity.planned("eager", "float64", batch_size=FLOAT64_BATCH)
#: the compiled float32 parity's captures, over ``PARITY_STEPS``
COMPILED = parity.planned("compiled", "float32")


def precision_capture(name: str, precision: str) -> Capture:
    """The capture whose forward pass and first step the precision tests read: PyTorch's and TensorFlow's eager over
    one step; JAX's and torchax's jitted over ``PARITY_STEPS`` (a capture's batches depend on its steps), so that
    their fp32 one is the compiled float32 capture."""
    if name in EAGER_TOO:
        return parity.planned("eager", "float32", precision, steps=1)
    return parity.planned("compiled", "float32", precision)


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> dict[Capture, dict[str, dict[str, np.ndarray]]]:
    """Every capture the tests below read, each framework's made by one process (``parity_captures``): by capture, by
    framework."""
    plans = {
        name: tuple(dict.fromkeys((FLOAT64, COMPILED, *(precision_capture(name, p) for p in PRECISIONS))))
        for name in FRAMEWORKS
    }
    return parity.capture_plans(plans, tmp_path_factory.mktemp("parity"))


@pytest.fixture(scope="module")
def float64_captures(captures):
    return captures[FLOAT64]


@pytest.fixture(scope="module")
def float32_compiled_captures(captures):
    return captures[COMPILED]


@pytest.fixture(scope="module")
def float32_by_precision(captures):
    """Each framework's float32 capture under each of ``PRECISIONS``, by precision, by framework."""
    return {p: {name: captures[precision_capture(name, p)][name] for name in FRAMEWORKS} for p in PRECISIONS}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The planted captures, by the kind of tensor rounded."""
    work = tmp_path_factory.mktemp("planted")
    subprocess.run([sys.executable, "-c", PLANTED, str(work)], check=True, cwd=REPO_ROOT, timeout=600)
    found = {}
    for what in ("bn", "weights"):
        with np.load(work / f"{what}.npz") as arrays:
            found[what] = dict(arrays)
    return found


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


def test_a_plans_captures_share_a_file_and_come_back_apart_the_reference_last(tmp_path):
    made = []

    def capture(name, **fields):
        made.append(fields["precision"])
        return {"loss1": np.asarray(float(len(made)))}

    plan = (parity.planned("eager", "float64"), parity.planned("eager", "float32", "bf16", steps=1))
    parity_captures.run_plan(capture, "torch", plan, tmp_path / "torch.npz")
    assert made == ["bf16", "fp32"], "fp32's process-wide switches must not reach the others"
    with np.load(tmp_path / "torch.npz") as arrays:
        assert dict(arrays) == {f"{plan[1].key}/loss1": 1.0, f"{plan[0].key}/loss1": 2.0}


@pytest.mark.parametrize(
    "plan, names",
    [
        ('[{"mode": "eager", "dtype": "float16", "precision": "fp32", "steps": 1, "batch_size": 2}]', "dtype"),
        ('[{"mode": "eager", "dtype": "float32", "precision": "fp16", "steps": 1, "batch_size": 2}]', "precision"),
        ('[{"mode": "eager", "dtype": "float32", "steps": 1, "batch_size": 2}]', "precision"),
        ('{"mode": "eager"}', "JSON list of captures"),
    ],
)
def test_a_bad_plan_gets_one_line_naming_the_field(tmp_path, capsys, plan, names):
    with pytest.raises(SystemExit):
        parity.main(["--framework", "torch", "--plan", plan, "--out", str(tmp_path / "x.npz")])
    assert names in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["default", "bf16"])
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_forward_and_first_step_stay_within_the_precisions_bounds_of_fp32(float32_by_precision, precision, name):
    report = deviation(float32_by_precision[precision][name], float32_by_precision["fp32"][name])
    print(f"{name} {precision} vs fp32:", {k: f"{v:.2e}" for k, v in report.items()})
    assert not beyond(report, precision)


@pytest.mark.slow
@pytest.mark.parametrize("what, breaks", [("bn", {"running_mean", "running_var"}), ("weights", {"update"})])
def test_a_wrong_cast_in_the_bf16_recipe_breaks_its_bounds(float32_by_precision, planted, what, breaks):
    report = deviation(planted[what], float32_by_precision["fp32"]["torch"])
    print(f"torch bf16 with its {what} in bf16 vs fp32:", {k: f"{v:.2e}" for k, v in report.items()})
    assert breaks <= set(beyond(report, "bf16"))
