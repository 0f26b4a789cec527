"""The GPT's training throughput in tokens/s, for one framework and mode: whether a quick run can include it.

Trains the benchmark's model (``runners.workloads.gpt.arch.DEFAULT`` unless ``--tiny``) on the grammar data: one
first step alone (trace, compile, run), then ``--steps`` steps timed between two syncs, the batches placed on the
device before the clock, as ``runners run`` times an epoch. Prints tokens/s, seconds per step, the first step's
seconds, the model FLOP/s (3 × forward FLOPs per token × tokens/s) and the first and last loss. A measurement to
read, not a test.

    python benchmarks/gpt_smoke.py --framework torch [--mode eager] [--batch-size 8] [--steps 8] [--tiny]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from fwbench.cliargs import positive_int
from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from runners.frameworks.trainer import check_mode
from runners.run import framework_environment
from runners.workloads import make_trainer
from runners.workloads.gpt import arch, data, recipe


def main(argv: list[str] | None = None) -> int:
    """Train a few steps and print the throughput."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--mode", default="compiled", choices=TRAINING_MODES)
    parser.add_argument("--batch-size", type=positive_int, default=recipe.CPU_BATCH_SIZES[0])
    parser.add_argument("--steps", type=positive_int, default=8, help="timed steps (default 8)")
    parser.add_argument("--tiny", action="store_true", help="the parity tests' model instead of the benchmark's")
    args = parser.parse_args(argv)
    try:
        check_mode(args.framework, args.mode)
    except ValueError as exc:
        parser.error(f"--mode: {exc}")
    config = arch.TINY if args.tiny else arch.DEFAULT
    os.environ.update(framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-compile-cache-")))
    windows = data.load(args.batch_size * (args.steps + 1), 0, config.context).train
    tokens, targets = data.epoch_batches(windows, seed=0, epoch=0, batch_size=args.batch_size)
    rates = recipe.learning_rates(args.steps + 1)
    # imports the framework: after the environment is set
    trainer = make_trainer("gpt", args.framework, arch.init_weights(0, config), args.mode, config=config)
    batches = trainer.to_device(tokens, targets)
    start = time.perf_counter()
    first_loss, _ = trainer.train_step(*batches[0], float(rates[0]))
    trainer.sync()
    first_step = time.perf_counter() - start
    start = time.perf_counter()
    outputs = [trainer.train_step(x, y, float(lr)) for (x, y), lr in zip(batches[1:], rates[1:], strict=True)]
    trainer.sync()
    seconds = time.perf_counter() - start
    tokens_per_second = args.steps * args.batch_size * config.context / seconds
    flops = 3 * arch.flops_per_token(config) * tokens_per_second
    print(
        f"{args.framework} {args.mode} {config.layers}x{config.width} batch {args.batch_size}x{config.context}: "
        f"{tokens_per_second:,.0f} tokens/s, {seconds / args.steps:.3f} s/step over {args.steps} steps, "
        f"first step {first_step:.1f} s, {flops / 1e9:.1f} GFLOP/s, "
        f"loss {float(first_loss):.3f} -> {float(outputs[-1][0]):.3f}, "
        f"device {trainer.device_info()['device_kind']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
