"""Parity check: the three frameworks compute the same forward pass and the same training update.

``capture`` runs in one framework's process (``python -m runners.workloads.resnet18.parity --framework F --out F.npz``):
one set of NumPy weights is loaded, the same batches go through, and logits and every weight after
every step are saved. One process captures several precision policies (``--precision fp32,default,bf16``), which
spares the framework's import and set-up of all but the first. ``compare`` measures the differences between captures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES, framework
from runners.frameworks.precision import PRECISION_POLICIES, REFERENCE_PRECISION
from runners.frameworks.trainer import make_trainer
from runners.measure.provenance import REPO_ROOT
from runners.workloads import lr_schedule
from runners.workloads.resnet18 import arch, data, recipe

PARITY_BATCH = 16
PARITY_STEPS = 3
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
    images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, seed, 0, batch_size)
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


def capture_all(
    mode: str,
    dtype: str,
    workdir: Path,
    pythons: dict[str, str] | None = None,
    frameworks: tuple = FRAMEWORKS,
    steps: int = PARITY_STEPS,
    precision: str = "fp32",
    batch_size: int = PARITY_BATCH,
) -> dict[str, dict[str, np.ndarray]]:
    """Capture each of ``frameworks`` over ``steps`` SGD steps of ``batch_size`` images, each in a fresh interpreter of
    its own (``run_captures``): ``pythons``' for that framework (another version's environment,
    ``runners.envs.versions``), else this one; load the arrays."""
    return capture_precisions(mode, dtype, workdir, (precision,), pythons, frameworks, steps, batch_size)[precision]


def capture_precisions(
    mode: str,
    dtype: str,
    workdir: Path,
    precisions: tuple[str, ...],
    pythons: dict[str, str] | None = None,
    frameworks: tuple = FRAMEWORKS,
    steps: int = PARITY_STEPS,
    batch_size: int = PARITY_BATCH,
) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """``capture_all`` for each of ``precisions``, one interpreter per framework capturing them all: by precision, by
    framework."""
    jobs = {}
    for name in frameworks:
        out = workdir / f"{name}-{mode}-{dtype}-{'-'.join(precisions)}.npz"
        command = [
            (pythons or {}).get(name, sys.executable),
            "-m",
            "runners.workloads.resnet18.parity",
            "--framework",
            name,
            "--mode",
            mode,
            "--dtype",
            dtype,
            "--out",
            str(out),
            "--steps",
            str(steps),
            "--precision",
            ",".join(precisions),
            "--batch-size",
            str(batch_size),
        ]
        jobs[name] = (command, out)
    return by_precision(run_captures(jobs, "parity capture"), precisions)


#: captures run at once, one per four cores: a capture keeps one to two cores busy, and the test workers beside it need
#: the rest (on 2 cores, with both of `make test`'s workers busy, the three parity test files took 174 s and 331 CPU-s
#: with every capture side by side, 160 s and 284 CPU-s one at a time; alone, one at a time is slower)
CAPTURES_AT_ONCE = max(1, (os.cpu_count() or 1) // 4)


def run_captures(jobs: dict[str, tuple[list[str], Path]], what: str) -> dict[str, dict[str, np.ndarray]]:
    """Run each framework's capture ``command`` (writing its ``.npz``), each in a fresh interpreter,
    ``CAPTURES_AT_ONCE`` at a time, and load the arrays; RuntimeError naming the framework (``what`` for ``parity
    capture``) and its stderr when one fails, once all have ended."""

    def run(command: list[str]) -> subprocess.CompletedProcess:
        # started in the repository, so that another version's interpreter runs this same code
        return subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)

    with ThreadPoolExecutor(CAPTURES_AT_ONCE) as pool:
        ended = dict(zip(jobs, pool.map(run, (command for command, _ in jobs.values())), strict=True))
    captures = {}
    for name, process in ended.items():
        if process.returncode != 0:
            raise RuntimeError(f"{what} for {name} failed:\n{process.stderr[-3000:]}")
        with np.load(jobs[name][1]) as arrays:
            captures[name] = dict(arrays)
    return captures


def precision_list(allowed: tuple[str, ...]) -> Callable[[str], tuple[str, ...]]:
    """An argparse ``type``: a comma-separated list of precision policies out of ``allowed``, as a tuple."""

    def parse(text: str) -> tuple[str, ...]:
        policies = tuple(text.split(","))
        unknown = [p for p in policies if p not in allowed]
        if unknown or len(set(policies)) != len(policies):
            raise argparse.ArgumentTypeError(f"{text!r}: distinct policies out of {', '.join(allowed)}")
        return policies

    return parse


def in_capture_order(precisions: tuple[str, ...]) -> list[str]:
    """``precisions`` in the order one process captures them: the reference's last, since it alone sets process-wide
    switches (no TF32, the highest matmul precision) that the others must find as installed."""
    return sorted(precisions, key=lambda p: p == REFERENCE_PRECISION)


def save_precisions(out: Path, captures: dict[str, dict[str, np.ndarray]]) -> None:
    """Write one process's captures, by precision, to one ``.npz``: one precision's arrays under their own names,
    several precisions' under ``PRECISION/name``."""
    if len(captures) == 1:
        (arrays,) = captures.values()
    else:
        arrays = {f"{p}/{key}": value for p, capture in captures.items() for key, value in capture.items()}
    np.savez(out, **arrays)


def by_precision(
    captures: dict[str, dict[str, np.ndarray]], precisions: tuple[str, ...]
) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Each framework's arrays as ``save_precisions`` wrote them for ``precisions``, by precision, by framework."""
    if len(precisions) == 1:
        return {precisions[0]: captures}
    return {
        p: {
            name: {key.removeprefix(f"{p}/"): v for key, v in arrays.items() if key.startswith(f"{p}/")}
            for name, arrays in captures.items()
        }
        for p in precisions
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Capture (one framework) or compare (all three) for parity.")
    parser.add_argument("--framework", choices=FRAMEWORKS, help="capture this framework only")
    parser.add_argument(
        "--mode",
        choices=TRAINING_MODES,
        default="eager",
        help="a framework without this mode runs its first, compiled (JAX has only jax.jit)",
    )
    parser.add_argument(
        "--dtype",
        choices=("float64", "float32"),
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
    args = parser.parse_args(argv)
    if args.framework:
        modes = framework(args.framework).training_modes
        mode = args.mode if args.mode in modes else modes[0]
        captures = {
            p: capture(args.framework, mode, args.dtype, args.batch_size, args.steps, precision=p)
            for p in in_capture_order(args.precision)
        }
        save_precisions(args.out, captures)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        by_policy = capture_precisions(
            args.mode, args.dtype, Path(tmp), args.precision, steps=args.steps, batch_size=args.batch_size
        )
    for precision, caps in by_policy.items():
        for a, b in PAIRS:
            report = compare(caps[a], caps[b], a_is_torch=a == "torch", batch_size=args.batch_size, steps=args.steps)
            print(f"{precision}, {a} vs {b}: " + ", ".join(f"{k} {v:.2e}" for k, v in report.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
