"""A forward pass against a full training step, in images/s, for one framework and mode.

A training step costs about 3× the forward FLOPs (forward, input gradient, weight gradient), so a
throughput quoted for "a training step" can be checked against this pair. Both run on the same
device-resident batch (the GPU when the framework sees one, else the CPU), alternately (forward, step,
forward, step, …), after one of each to compile.
The forward pass is the runner's evaluation path with batch statistics (``Trainer.logits``): PyTorch's
eager module, a TensorFlow graph (``tf.function``, no XLA), ``jax.jit``.

    python benchmarks/forward_vs_step.py --framework torch [--mode eager] [--batch-size 32] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from fwbench.cliargs import positive_int
from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from runners.frameworks.trainer import check_mode, make_trainer
from runners.measure.run import framework_environment
from runners.workloads.resnet18 import arch


def main(argv: list[str] | None = None) -> int:
    """Time forward passes and training steps alternately; print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--mode", default="compiled", choices=TRAINING_MODES)
    parser.add_argument("--batch-size", type=positive_int, default=32)
    parser.add_argument("--rounds", type=positive_int, default=5, help="timed forward/step pairs (default 5)")
    args = parser.parse_args(argv)
    try:
        check_mode(args.framework, args.mode)
    except ValueError as exc:
        parser.error(f"--mode: {exc}")
    os.environ.update(framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-compile-cache-")))
    # imports the framework: after the environment is set
    trainer = make_trainer(args.framework, arch.init_weights(0), args.mode, device="auto")
    rng = np.random.default_rng(0)
    images = rng.standard_normal((1, args.batch_size, arch.IMAGE_SIZE, arch.IMAGE_SIZE, arch.IMAGE_CHANNELS))
    labels = rng.integers(0, arch.NUM_CLASSES, (1, args.batch_size)).astype(np.int32)
    ((x, y),) = trainer.to_device(images.astype(np.float32), labels)

    def forward() -> None:
        trainer.logits(x, training=True)  # returns host values: synced

    def step() -> None:
        trainer.train_step(x, y, 0.01)
        trainer.sync()

    seconds = {forward: [], step: []}
    for round_ in range(args.rounds + 1):
        for work in (forward, step):
            start = time.perf_counter()
            work()
            if round_:  # round 0 compiles
                seconds[work].append(time.perf_counter() - start)
    forward_rate, step_rate = (args.batch_size / statistics.median(seconds[w]) for w in (forward, step))
    print(
        f"{args.framework} {args.mode} batch {args.batch_size}: forward {forward_rate:.1f} img/s, training step "
        f"{step_rate:.1f} img/s, forward / step = {forward_rate / step_rate:.2f} (medians of {args.rounds})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
