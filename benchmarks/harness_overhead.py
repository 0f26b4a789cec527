"""Harness overhead: the runner's timed epoch against a bare loop of the same steps, per framework.

Both loops call the same trainer's ``train_step`` (the ``Trainer`` protocol, nothing else) on the same
device-resident batches; the harness adds what ``runners.measure.run.timed_epoch`` adds (timing windows, their syncs,
bookkeeping), the bare loop syncs at both ends only. They run alternately (A B A B …) in one process so drift
and noise hit both. Prints images/s of each and the ratio harness / bare (target ≥ 0.97). Each framework runs
in its own subprocess.

    python benchmarks/harness_overhead.py [--frameworks torch,tensorflow,jax] [--batch-size 32]
        [--steps 8] [--rounds 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from fwbench.cliargs import add_frameworks_flag, positive_int
from fwbench.frameworks import FRAMEWORKS
from runners.frameworks.trainer import Trainer, make_trainer
from runners.measure import run
from runners.workloads.resnet18 import arch, data
from runners.workloads.resnet18.dataset import epoch_batches


def run_harness(trainer: Trainer, batches: list, rates: np.ndarray) -> float:
    """images/s of the runner's own timed epoch (windows, syncs, bookkeeping included)."""
    seconds, _, _ = run.timed_epoch(trainer, batches, rates)
    return len(batches) * len(batches[0][1]) / seconds


def run_bare(trainer: Trainer, batches: list, rates: np.ndarray) -> float:
    """images/s of the same steps in a bare loop, synced at both ends only."""
    trainer.sync()
    start = time.perf_counter()
    for (x, y), lr in zip(batches, rates, strict=True):
        trainer.train_step(x, y, float(lr))
    trainer.sync()
    return len(batches) * len(batches[0][1]) / (time.perf_counter() - start)


def measure_one(name: str, batch_size: int, steps: int, rounds: int) -> dict:
    """Alternate harness and bare epochs of ``steps`` steps; median images/s of each."""
    os.environ.update(run.framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-bench-cache-")))
    trainer = make_trainer(name, arch.init_weights(0), "compiled")  # imports the framework: after the environment
    dataset = data.synthetic(batch_size * steps, batch_size)
    images, labels = epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)
    batches = trainer.to_device(images, labels)
    rates = np.full(steps, 0.01, np.float32)
    run_bare(trainer, batches[:1], rates[:1])  # compile before any timing
    loops = {"harness": lambda: run_harness(trainer, batches, rates), "bare": lambda: run_bare(trainer, batches, rates)}
    ratios, harness, bare = [], [], []
    for i in range(rounds):
        # alternate which loop goes first, so drift and warm-up favour neither
        order = ("harness", "bare") if i % 2 == 0 else ("bare", "harness")
        results = {loop: loops[loop]() for loop in order}
        harness.append(results["harness"])
        bare.append(results["bare"])
        ratios.append(results["harness"] / results["bare"])
    return {
        "framework": name,
        "harness_images_per_second": statistics.median(harness),
        "bare_images_per_second": statistics.median(bare),
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }


def main() -> int:
    """Measure each framework in a subprocess and print one row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frameworks_flag(parser)
    parser.add_argument("--batch-size", type=positive_int, default=32)
    parser.add_argument("--steps", type=positive_int, default=8)
    parser.add_argument("--rounds", type=positive_int, default=6)
    parser.add_argument("--one", choices=FRAMEWORKS, help=argparse.SUPPRESS)  # internal: measure one framework here
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.batch_size, args.steps, args.rounds)))
        return 0
    print(f"{'framework':<12}{'harness img/s':>15}{'bare img/s':>15}{'ratio':>8}  per-round range")
    for name in args.frameworks or FRAMEWORKS:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                name,
                "--batch-size",
                str(args.batch_size),
                "--steps",
                str(args.steps),
                "--rounds",
                str(args.rounds),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{name:<12}{r['harness_images_per_second']:>15.1f}{r['bare_images_per_second']:>15.1f}"
            f"{r['ratio']:>8.3f}  {r['ratio_min']:.3f}–{r['ratio_max']:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
