"""Harness overhead: the runner's timed epoch against a minimal hand-written loop, per framework.

Both loops drive the same compiled model and step on the same device-resident batches; they run
alternately (A B A B …) in one process so drift and noise hit both. Prints images/s of each and the
ratio harness / minimal (target ≥ 0.97). Each framework runs in its own subprocess.

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


def minimal_loop(framework: str, trainer, batches: list, lr: float):
    """The least code that trains: the framework's own step, no windows, no bookkeeping."""
    if framework == "torch":
        import torch.nn.functional as F

        for group in trainer.optimizer.param_groups:
            group["lr"] = lr
        for x, y in batches:
            trainer.optimizer.zero_grad(set_to_none=True)
            F.cross_entropy(trainer.forward(x), y).backward()
            trainer.optimizer.step()
    elif framework == "tensorflow":
        import tensorflow as tf

        rate = tf.constant(lr, tf.float32)
        for x, y in batches:
            trainer.step_fn(x, y, rate)
    else:
        rate = np.float32(lr)
        params, stats, opt_state = trainer.params, trainer.stats, trainer.opt_state
        for x, y in batches:
            params, stats, opt_state, _, _ = trainer.step_fn(params, stats, opt_state, x, y, rate)
        trainer.params, trainer.stats, trainer.opt_state = params, stats, opt_state


def run_harness(trainer, batches: list, rates: np.ndarray) -> float:
    """images/s of the runner's own timed epoch (windows, syncs, bookkeeping included)."""
    from runners import run

    seconds, _, _ = run.timed_epoch(trainer, batches, rates)
    return len(batches) * len(batches[0][1]) / seconds


def run_minimal(framework: str, trainer, batches: list, rates: np.ndarray) -> float:
    """images/s of the minimal loop, synced at both ends only."""
    trainer.sync()
    start = time.perf_counter()
    minimal_loop(framework, trainer, batches, float(rates[0]))
    trainer.sync()
    return len(batches) * len(batches[0][1]) / (time.perf_counter() - start)


def measure_one(framework: str, batch_size: int, steps: int, rounds: int) -> dict:
    """Alternate harness and minimal epochs of ``steps`` steps; median images/s of each."""
    from runners import arch, data, run

    os.environ.update(run.framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-bench-cache-")))
    from runners.frameworks import trainer_class  # imports the framework: after the environment is set

    trainer = trainer_class(framework)(arch.init_weights(0), mode="compiled")
    dataset = data.synthetic(batch_size * steps, batch_size)
    images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)
    batches = trainer.to_device(images, labels)
    rates = np.full(steps, 0.01, np.float32)
    minimal_loop(framework, trainer, batches[:1], 0.01)  # compile both paths before any timing
    run.timed_epoch(trainer, batches[:1], rates[:1])
    loops = {"harness": lambda: run_harness(trainer, batches, rates),
             "minimal": lambda: run_minimal(framework, trainer, batches, rates)}
    ratios, harness, minimal = [], [], []
    for i in range(rounds):
        # alternate which loop goes first, so drift and warm-up favour neither
        order = ("harness", "minimal") if i % 2 == 0 else ("minimal", "harness")
        results = {name: loops[name]() for name in order}
        harness.append(results["harness"])
        minimal.append(results["minimal"])
        ratios.append(results["harness"] / results["minimal"])
    return {"framework": framework, "harness_images_per_second": statistics.median(harness),
            "minimal_images_per_second": statistics.median(minimal), "ratio": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frameworks", default="torch,tensorflow,jax")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one framework here
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.batch_size, args.steps, args.rounds)))
        return 0
    print(f"{'framework':<12}{'harness img/s':>15}{'minimal img/s':>15}{'ratio':>8}  per-round range")
    for framework in args.frameworks.split(","):
        out = subprocess.run([sys.executable, __file__, "--one", framework, "--batch-size", str(args.batch_size),
                              "--steps", str(args.steps), "--rounds", str(args.rounds)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{framework:<12}{r['harness_images_per_second']:>15.1f}{r['minimal_images_per_second']:>15.1f}"
              f"{r['ratio']:>8.3f}  {r['ratio_min']:.3f}–{r['ratio_max']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
