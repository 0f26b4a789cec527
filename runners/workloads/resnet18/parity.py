"""Parity check: the three frameworks compute the same forward pass and the same training update.

``capture`` runs in one framework's process (``python -m runners.workloads.resnet18.parity --framework F --out F.npz``):
one set of NumPy weights is loaded, the same batches go through, and logits and every weight after
every step are saved. One process makes several captures (``--precision fp32,default,bf16``, or any plan of modes,
dtypes, precisions and sizes: ``--plan``, ``runners.workloads.parity_captures``), which spares the framework's import
and set-up of all but the first. ``compare`` measures the differences between captures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from runners.frameworks.precision import PRECISION_POLICIES
from runners.frameworks.trainer import make_trainer
from runners.workloads import lr_schedule
from runners.workloads.parity_captures import (
    DTYPES,
    Capture,
    add_plan_argument,
    precision_list,
    run_plan,
    run_plans,
)
from runners.workloads.resnet18 import arch, data, recipe
from runners.workloads.resnet18.dataset import epoch_batches

PARITY_BATCH = 16
PARITY_STEPS = 3
MODULE = "runners.workloads.resnet18.parity"
#: the pairs that show the frameworks' parity: PyTorch first beside JAX and TensorFlow (``compare`` corrects its
#: running variance), TensorFlow beside JAX, and PyTorch via torchax first beside PyTorch (both fold the unbiased batch
#: variance, so no correction applies)
PAIRS = (("torch", "jax"), ("tensorflow", "jax"), ("torch", "tensorflow"), ("torchax", "torch"))


def capture(
    name: str,
    mode: str,
    dtype: str = "float64",
    batch_size: int = PARITY_BATCH,
    steps: int = PARITY_STEPS,
    seed: int = 0,
    precision: str = "fp32",
) -> dict[str, np.ndarray]:
    """Logits (train and eval mode) on one batch, then weights after each of ``steps`` SGD steps, under the precision
    policy ``precision``."""
    weights = arch.init_weights(seed, random_bn=True)  # random BN makes every BN field matter
    dataset = data.synthetic(batch_size * steps, batch_size)
    images, labels = epoch_batches(dataset.train_images, dataset.train_labels, seed, 0, batch_size)
    trainer = make_trainer(name, weights, mode, device="cpu", dtype=dtype, precision=precision)
    batches = trainer.to_device(images, labels)
    out = {
        "logits.eval": trainer.logits(batches[0][0], training=False),
        "logits.train": trainer.logits(batches[0][0], training=True),
    }
    trainer.restore(weights)  # the train-mode forward moved the running statistics
    out.update({f"step0.{k}": v for k, v in weights.items()})
    rates = lr_schedule.learning_rates(batch_size, steps)
    for step, ((x, y), lr) in enumerate(zip(batches, rates, strict=True), start=1):
        loss, _ = trainer.train_step(x, y, float(lr))
        out[f"loss{step}"] = np.asarray(float(loss))
        out.update({f"step{step}.{k}": v for k, v in trainer.weights().items()})
    return out


def bessel_corrected_var(reference: dict[str, np.ndarray], batch_size: int, steps: int) -> dict[str, np.ndarray]:
    """PyTorch's running variance implied by another framework's capture.

    PyTorch folds the *unbiased* batch variance (×n/(n−1)) into its running variance; Keras and Flax
    fold the biased one. Recover each step's biased batch variance from the reference's running
    variance, apply PyTorch's rule, and return what PyTorch's running variance must be after each step.
    """
    decay, sizes = recipe.BN_DECAY, arch.bn_reduction_sizes(batch_size)
    expected = {}
    for bn, n in sizes.items():
        key = f"{bn}.var"
        torch_var = reference[f"step0.{key}"].astype(np.float64)
        for step in range(1, steps + 1):
            previous, current = (reference[f"step{s}.{key}"].astype(np.float64) for s in (step - 1, step))
            batch_var = (current - decay * previous) / (1 - decay)
            torch_var = decay * torch_var + (1 - decay) * batch_var * n / (n - 1)
            expected[f"step{step}.{key}"] = torch_var
    return expected


def relative_difference(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max |b|: the worst element's error relative to the tensor's scale."""
    scale = float(np.max(np.abs(b))) or 1.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) / scale


def compare(
    a: dict[str, np.ndarray],
    b: dict[str, np.ndarray],
    a_is_torch: bool = False,
    batch_size: int = PARITY_BATCH,
    steps: int = PARITY_STEPS,
) -> dict[str, float]:
    """Worst relative differences between two captures, by quantity.

    Updates are compared as per-step deltas (w_t − w_{t−1}), so that a small difference in the
    update rule (weight decay, momentum, learning rate) is not hidden by the weights' own size.
    When ``a`` is PyTorch, its running variances are checked against ``b``'s after Bessel correction.
    """
    report = {
        "logits.train": relative_difference(a["logits.train"], b["logits.train"]),
        "logits.eval": relative_difference(a["logits.eval"], b["logits.eval"]),
    }
    expected_var = bessel_corrected_var(b, batch_size, steps) if a_is_torch else {}
    update, running_mean, running_var = 0.0, 0.0, 0.0
    for step in range(1, steps + 1):
        for name in arch.weight_names():
            now, before = f"step{step}.{name}", f"step{step - 1}.{name}"
            if arch.is_trainable(name):
                update = max(update, relative_difference(a[now] - a[before], b[now] - b[before]))
            elif name.endswith(".mean"):
                running_mean = max(running_mean, relative_difference(a[now], b[now]))
            else:
                running_var = max(running_var, relative_difference(a[now], expected_var.get(now, b[now])))
    report.update(
        {
            "update": update,
            "running_mean": running_mean,
            "running_var": running_var,
            "loss": max(relative_difference(a[f"loss{s}"], b[f"loss{s}"]) for s in range(1, steps + 1)),
        }
    )
    return report


def capture_plans(
    plans: dict[str, tuple[Capture, ...]], workdir: Path, pythons: dict[str, str] | None = None
) -> dict[Capture, dict[str, dict[str, np.ndarray]]]:
    """Each framework's plan of captures in a fresh interpreter of its own (``parity_captures.run_plans``): by capture,
    by framework."""
    return run_plans(MODULE, plans, workdir, pythons)


def planned(
    mode: str, dtype: str, precision: str = "fp32", steps: int = PARITY_STEPS, batch_size: int = PARITY_BATCH
) -> Capture:
    """A capture, of the parity batch and steps unless told."""
    return Capture(mode, dtype, precision, steps, batch_size)


def capture_all(
    wanted: Capture, workdir: Path, frameworks: tuple = FRAMEWORKS, pythons: dict[str, str] | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """One capture of each of ``frameworks``, by framework."""
    return capture_plans({name: (wanted,) for name in frameworks}, workdir, pythons)[wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Compare the frameworks' parity captures, or capture one framework's (--framework, --out)."
    )
    parser.add_argument("--framework", choices=FRAMEWORKS, help="capture this framework only, to --out")
    parser.add_argument(
        "--mode",
        choices=TRAINING_MODES,
        default="eager",
        help="a framework without this mode runs its first, compiled (JAX has only jax.jit)",
    )
    parser.add_argument(
        "--dtype",
        choices=DTYPES,
        default="float64",
        help="float64 isolates the frameworks' semantics from float32 rounding (default)",
    )
    parser.add_argument("--out", type=Path, help="where a capture's .npz goes")
    parser.add_argument("--steps", type=int, default=PARITY_STEPS, help=f"SGD steps (default {PARITY_STEPS})")
    parser.add_argument(
        "--precision",
        type=precision_list(tuple(PRECISION_POLICIES)),
        default=("fp32",),
        help=f"precision policy, or several comma-separated ({','.join(PRECISION_POLICIES)}) captured in turn",
    )
    parser.add_argument(
        "--batch-size", type=int, default=PARITY_BATCH, help=f"images per step (default {PARITY_BATCH})"
    )
    add_plan_argument(parser, PRECISION_POLICIES)
    args = parser.parse_args(argv)
    plan = args.plan or tuple(planned(args.mode, args.dtype, p, args.steps, args.batch_size) for p in args.precision)
    if args.framework:
        if args.out is None:
            parser.error("--framework: --out names the .npz its captures go to")
        run_plan(capture, args.framework, plan, args.out)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        found = capture_plans(dict.fromkeys(FRAMEWORKS, plan), Path(tmp))
    for made, caps in found.items():
        for a, b in PAIRS:
            report = compare(caps[a], caps[b], a_is_torch=a == "torch", batch_size=made.batch_size, steps=made.steps)
            print(f"{made.precision}, {a} vs {b}: " + ", ".join(f"{k} {v:.2e}" for k, v in report.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
