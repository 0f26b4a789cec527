"""Parity per precision: each framework's forward pass and first training step under ``default`` and ``bf16`` against
its own strict-fp32 run (``runners.workloads.resnet18.parity.capture``: float32, random BatchNorm statistics, batch 16,
one SGD step, on the CPU; PyTorch and TensorFlow eager, JAX jitted), and a planted wrong cast that the bf16 bounds
catch.

Measured on the 2-core development VM (AMD EPYC, torch 2.14.1, TensorFlow 2.21 with Keras 3.15, JAX 0.10.2 with Flax
0.12.8), the worst of the three frameworks, ``max |a − b| / max |b|``:

- ``default``: every quantity 0.0: a CPU has no TF32, so each framework's default is its strict float32.
- ``bf16``: logits in training mode 2.3e-2 (TensorFlow), in eval mode 1.3e-2 (JAX), loss 6.5e-4 (JAX), parameter
  update 5.9e-1 (PyTorch; median over tensors 3.3e-1: bf16 keeps 8 bits of mantissa), running-mean update 4.9e-3,
  running-variance update 1.7e-2.
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

from fwbench.frameworks import FRAMEWORKS
from runners.measure.provenance import REPO_ROOT
from runners.workloads.resnet18 import arch, parity

#: per precision, the largest relative difference from the framework's fp32 run each quantity may have (measured
#: figures in the module docstring)
BOUNDS = {
    "default": dict.fromkeys(("logits.train", "logits.eval", "loss", "update", "running_mean", "running_var"), 1e-6),
    "bf16": {
        "logits.train": 5e-2,
        "logits.eval": 3e-2,
        "loss": 2e-3,
        "update": 1.0,
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
from runners.frameworks import torch_train

out = sys.argv[1]
step = torch_train.Trainer.train_step

def planted(self, x, y, lr):
    result = step(self, x, y, lr)
    with torch.no_grad():
        for t in self.model.buffers() if what == "bn" else self.model.parameters():
            if t.is_floating_point():
                t.copy_(t.to(torch.bfloat16).to(t.dtype))
    return result

torch_train.Trainer.train_step = planted
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


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    work = tmp_path_factory.mktemp("precision")
    return parity.capture_precisions("eager", "float32", work, ("fp32", "default", "bf16"), steps=1)


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
@pytest.mark.parametrize("precision", ["default", "bf16"])
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_forward_and_first_step_stay_within_the_precisions_bounds_of_fp32(captures, precision, name):
    report = deviation(captures[precision][name], captures["fp32"][name])
    print(f"{name} {precision} vs fp32:", {k: f"{v:.2e}" for k, v in report.items()})
    assert not beyond(report, precision)


@pytest.mark.slow
@pytest.mark.parametrize("what, breaks", [("bn", {"running_mean", "running_var"}), ("weights", {"update"})])
def test_a_wrong_cast_in_the_bf16_recipe_breaks_its_bounds(captures, planted, what, breaks):
    report = deviation(planted[what], captures["fp32"]["torch"])
    print(f"torch bf16 with its {what} in bf16 vs fp32:", {k: f"{v:.2e}" for k, v in report.items()})
    assert breaks <= set(beyond(report, "bf16"))
