"""Each framework's ``Trainer`` step against a minimal training loop written as that framework's tutorials write it.

``benchmarks/harness_overhead.py`` times the runner around the same ``Trainer.train_step``; this script asks the
question it cannot: is fwbench's model and step itself as fast as the plain loop a user of the framework would
write? For each framework and mode, two worker processes (so that neither's threads, allocator or caches disturb the
other) each build one loop and compile it; then they take turns (A B, B A, …), each timing ``--steps`` steps between
two syncs, and each pair gives a ratio Trainer ÷ minimal. Prints images/s, the median ratio (and that of the
fastest rounds) and every pair's ratio; exits 1 when a median ratio is below ``--min-ratio`` (0.97). A benchmark, not
a test: on a busy machine single pairs stray far beyond the 3 % margin, so read the median with its pairs.

The minimal loops (the ``minimal_*`` functions) are the tutorials' code, not fwbench's: their own ResNet-18 of the
same shape (``runners.arch``), the framework's default initialisation and layer defaults, SGD with momentum 0.9 and
weight decay 5e-4 as the framework spells it. Where they compute something else than fwbench, and what that costs:

- **Padding at stride 2.** Keras' and Flax's ``"SAME"`` pads (0, 1) at stride 2 where fwbench (PyTorch's rule)
  pads (1, 1) (``runners.recipe.conv_padding``): same shapes and FLOPs, so no cost of its own; fwbench's
  TensorFlow model pads explicitly there and uses ``"same"`` wherever it is symmetric.
- **Weight decay.** Keras' ``SGD(weight_decay=…)`` is decoupled and folds the rate into the velocity; fwbench
  writes PyTorch's coupled rule out. Both are a few elementwise operations per parameter, fused by XLA.
- **BatchNorm.** Keras' defaults (momentum 0.99, epsilon 1e-3) where fwbench uses PyTorch's (0.1, 1e-5):
  constants only.
- **Bookkeeping.** fwbench's step also returns the count of correct predictions (an argmax over batch × 10
  logits); the minimal loops return the loss alone.
- **Precision and device.** Both use true float32 (TF32 off), as fwbench's ``fp32`` policy does, and the
  framework's default device (a GPU where it sees one): the one line in each minimal loop that is not the
  tutorial's, so that on a GPU both compute in the same precision.

    python benchmarks/idiomatic_loop.py [--configs torch:eager,torch:compiled,tensorflow:compiled,jax:compiled]
        [--batch-size 32] [--steps 5] [--pairs 4] [--min-ratio 0.97]
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
from collections.abc import Callable

import numpy as np

from fwbench.cliargs import HelpWithExamples, csv_of, positive_float, positive_int
from fwbench.frameworks import FRAMEWORKS
from runners import arch, data
from runners.run import framework_environment

#: every (framework, mode) checked by default: the modes the article times
CONFIGS = ("torch:eager", "torch:compiled", "tensorflow:compiled", "jax:compiled")
#: learning rate of every timed step (a constant: the rate's value costs nothing)
LR = 0.01
#: the tutorials' SGD: momentum and (coupled in PyTorch and optax, decoupled in Keras) weight decay
MOMENTUM, WEIGHT_DECAY = 0.9, 5e-4
#: warm-up steps before the first timed round: the compile, then one step with everything compiled
WARMUP_STEPS = 2
#: what a worker's result line starts with (frameworks may print to stdout too)
MARK = "@@ "

#: a loop: (images, labels) as NumPy, mode → (step(i) running the i-th batch, sync)
Loop = Callable[[np.ndarray, np.ndarray, str], tuple[Callable[[int], object], Callable[[], object]]]


def blocks() -> list[tuple[int, int, int]]:
    """(in width, out width, stride) of the eight BasicBlocks, from ``runners.arch``."""
    out, cin = [], arch.STEM_WIDTH
    for width, stride in arch.STAGES:
        for b in range(arch.BLOCKS_PER_STAGE):
            out.append((cin, width, stride if b == 0 else 1))
            cin = width
    return out


def trainer_loop(framework: str) -> Loop:
    """fwbench's own step: ``make_trainer`` and ``Trainer.train_step``, exactly as the runner calls it."""

    def build(images, labels, mode):
        from runners.frameworks.trainer import make_trainer

        trainer = make_trainer(framework, arch.init_weights(0), mode)
        batches = trainer.to_device(images, labels)
        return (lambda i: trainer.train_step(*batches[i], LR)), trainer.sync

    return build


def minimal_torch(images, labels, mode):
    """PyTorch: the CIFAR ResNet-18 of kuangliu/pytorch-cifar, ``torch.optim.SGD``, ``torch.compile(model)``."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False  # float32, as fwbench
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def conv_bn(cin, cout, kernel, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout))

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(conv_bn(cin, cout, 3, stride), nn.ReLU(), conv_bn(cout, cout, 3, 1))
            self.shortcut = conv_bn(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

        def forward(self, x):
            return F.relu(self.body(x) + self.shortcut(x))

    model = nn.Sequential(
        conv_bn(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1),
        nn.ReLU(),
        *(Block(*b) for b in blocks()),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(arch.final_width(), arch.NUM_CLASSES),
    ).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    forward = torch.compile(model) if mode == "compiled" else model
    xs = torch.from_numpy(images).permute(0, 1, 4, 2, 3).contiguous().to(device)
    ys = torch.from_numpy(labels).long().to(device)

    def step(i):
        optimizer.zero_grad()
        loss = F.cross_entropy(forward(xs[i]), ys[i])
        loss.backward()
        optimizer.step()
        return loss

    return step, (torch.cuda.synchronize if device == "cuda" else lambda: None)


def minimal_tensorflow(images, labels, mode):
    """Keras 3: a functional ResNet-18 with ``padding="same"``, ``keras.optimizers.SGD``, and the custom step of
    Keras' "training loop from scratch" guide under ``tf.function(jit_compile=True)``."""
    import keras
    import tensorflow as tf
    from keras import layers

    tf.config.experimental.enable_tensor_float_32_execution(False)  # float32, as fwbench

    def conv_bn(x, width, kernel, stride):
        x = layers.Conv2D(width, kernel, strides=stride, padding="same", use_bias=False)(x)
        return layers.BatchNormalization()(x)

    inputs = keras.Input(images.shape[2:])
    x = layers.ReLU()(conv_bn(inputs, arch.STEM_WIDTH, 3, 1))
    for cin, cout, stride in blocks():
        y = conv_bn(layers.ReLU()(conv_bn(x, cout, 3, stride)), cout, 3, 1)
        x = layers.ReLU()(layers.add([y, conv_bn(x, cout, 1, stride) if stride != 1 or cin != cout else x]))
    model = keras.Model(inputs, layers.Dense(arch.NUM_CLASSES)(layers.GlobalAveragePooling2D()(x)))
    optimizer = keras.optimizers.SGD(LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(jit_compile=mode == "compiled")
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    xs, ys = tf.constant(images), tf.constant(labels)
    batches = [(xs[i], ys[i]) for i in range(len(images))]
    return (lambda i: train_step(*batches[i])), lambda: model.trainable_variables[-1].numpy()


def minimal_jax(images, labels, mode):
    """Flax NNX: a ResNet-18 of ``nnx.Conv`` (default ``"SAME"``), ``nnx.Optimizer`` over optax's SGD, and the
    ``@nnx.jit`` step of Flax's tutorials."""
    import jax
    import optax
    from flax import nnx

    jax.config.update("jax_default_matmul_precision", "highest")  # float32, as fwbench

    class ConvBN(nnx.Module):
        def __init__(self, cin, cout, kernel, stride, rngs):
            self.conv = nnx.Conv(cin, cout, (kernel, kernel), strides=stride, use_bias=False, rngs=rngs)
            self.bn = nnx.BatchNorm(cout, rngs=rngs)

        def __call__(self, x):
            return self.bn(self.conv(x))

    class Block(nnx.Module):
        def __init__(self, cin, cout, stride, rngs):
            self.conv1, self.conv2 = ConvBN(cin, cout, 3, stride, rngs), ConvBN(cout, cout, 3, 1, rngs)
            self.shortcut = ConvBN(cin, cout, 1, stride, rngs) if stride != 1 or cin != cout else None

        def __call__(self, x):
            y = self.conv2(nnx.relu(self.conv1(x)))
            return nnx.relu(y + (x if self.shortcut is None else self.shortcut(x)))

    class ResNet18(nnx.Module):
        def __init__(self, rngs):
            self.stem = ConvBN(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1, rngs)
            self.blocks = nnx.List([Block(*b, rngs) for b in blocks()])
            self.fc = nnx.Linear(arch.final_width(), arch.NUM_CLASSES, rngs=rngs)

        def __call__(self, x):
            x = nnx.relu(self.stem(x))
            for block in self.blocks:
                x = block(x)
            return self.fc(x.mean(axis=(1, 2)))

    model = ResNet18(nnx.Rngs(0))
    tx = optax.chain(optax.add_decayed_weights(WEIGHT_DECAY), optax.sgd(LR, momentum=MOMENTUM))
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        def loss_fn(model):
            return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    batches = [(jax.device_put(x), jax.device_put(y)) for x, y in zip(images, labels, strict=True)]
    return (lambda i: train_step(model, optimizer, *batches[i])), lambda: jax.block_until_ready(nnx.state(model))


#: variant → framework → loop
LOOPS: dict[str, dict[str, Loop]] = {
    "trainer": {f: trainer_loop(f) for f in FRAMEWORKS},
    "minimal": {"torch": minimal_torch, "tensorflow": minimal_tensorflow, "jax": minimal_jax},
}


def worker(framework: str, mode: str, variant: str, batch_size: int, steps: int) -> None:
    """Build and compile one loop, then time ``steps`` steps each time a line arrives on stdin; one result line
    (images/s) per round on stdout, after a first line with the set-up time."""
    os.environ.update(framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-idiomatic-cache-")))
    dataset = data.synthetic(batch_size * steps, batch_size)
    images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)
    start = time.perf_counter()
    step, sync = LOOPS[variant][framework](images, labels, mode)  # imports the framework: after the environment
    for i in range(WARMUP_STEPS):
        step(i % steps)
    sync()
    print(MARK + json.dumps({"setup_seconds": time.perf_counter() - start}), flush=True)
    for _ in sys.stdin:
        sync()
        start = time.perf_counter()
        for i in range(steps):
            step(i)
        sync()
        print(MARK + json.dumps({"images_per_second": steps * batch_size / (time.perf_counter() - start)}), flush=True)


class Worker:
    """One worker process of ``script`` and its line protocol."""

    def __init__(self, script: str, framework: str, mode: str, variant: str, batch_size: int, steps: int):
        command = [sys.executable, script, "--worker", framework, mode, variant, str(batch_size), str(steps)]
        self.name = variant
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.setup_seconds = self.result()["setup_seconds"]

    def result(self) -> dict:
        for line in self.process.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK) :])
        raise RuntimeError(f"{self.name} worker exited with {self.process.wait()} (its stderr is above)")

    def round(self) -> float:
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return self.result()["images_per_second"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def compare(
    script: str, framework: str, mode: str, variants: tuple[str, str], batch_size: int, steps: int, pairs: int
) -> dict:
    """Interleaved rounds of two variants, each in its own worker (built one after the other, so that their
    compiles do not overlap): images/s per round and the ratio first ÷ second per pair."""
    workers = [Worker(script, framework, mode, v, batch_size, steps) for v in variants]
    try:
        rates = {v: [] for v in variants}
        for pair in range(pairs):
            for w in workers if pair % 2 == 0 else workers[::-1]:  # alternate who goes first
                rates[w.name].append(w.round())
    finally:
        for w in workers:
            w.close()
    a, b = variants
    ratios = [x / y for x, y in zip(rates[a], rates[b], strict=True)]
    return {"rates": rates, "ratios": ratios, "setup": {w.name: w.setup_seconds for w in workers}}


def report(config: str, variants: tuple[str, str], result: dict) -> str:
    """One line: median images/s of each variant, the median ratio, the ratio of the fastest rounds (other work
    only ever slows a round, so on a busy machine it is the steadier figure), every pair's ratio, the set-up times."""
    a, b = variants
    rates, ratios = result["rates"], result["ratios"]
    pairs = " ".join(f"{r:.3f}" for r in ratios)
    setup = ", ".join(f"{v} {s:.0f} s" for v, s in result["setup"].items())
    return (
        f"{config:<21}{statistics.median(rates[a]):>9.1f}{statistics.median(rates[b]):>9.1f}"
        f"{statistics.median(ratios):>7.3f}{max(rates[a]) / max(rates[b]):>7.3f}  pairs {pairs}  (set-up {setup})"
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[:2]),  # what it compares and how
        formatter_class=HelpWithExamples,
        epilog="examples:\n  python benchmarks/idiomatic_loop.py   # the short default: every configuration\n"
        "  python benchmarks/idiomatic_loop.py --configs tensorflow:compiled --pairs 6 --steps 8\n",
    )
    parser.add_argument(
        "--configs",
        type=csv_of(str, CONFIGS),
        default=list(CONFIGS),
        metavar="F:MODE,…",
        help=f"framework:mode pairs to check (default: all of {', '.join(CONFIGS)})",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="images per step (default 32)")
    parser.add_argument("--steps", type=positive_int, default=5, help="timed steps per round (default 5)")
    parser.add_argument("--pairs", type=positive_int, default=4, help="interleaved pairs of rounds (default 4)")
    parser.add_argument(
        "--min-ratio", type=positive_float, default=0.97, help="exit 1 below this median ratio (default 0.97)"
    )
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)  # internal: framework mode variant batch steps
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, script: str = __file__) -> int:
    """Compare the Trainer with the minimal loop for each configuration; 1 if any median ratio is too low."""
    args = parse_args(argv)
    if args.worker:
        framework, mode, variant, batch_size, steps = args.worker
        worker(framework, mode, variant, int(batch_size), int(steps))
        return 0
    variants = ("trainer", "minimal")
    print(f"batch {args.batch_size}, {args.steps} steps per round, {args.pairs} pairs; images/s, medians")
    print(f"{'framework:mode':<21}{'Trainer':>9}{'minimal':>9}{'ratio':>7}{'best':>7}")
    low = []
    for config in args.configs:
        framework, mode = config.split(":")
        result = compare(script, framework, mode, variants, args.batch_size, args.steps, args.pairs)
        print(report(config, variants, result), flush=True)
        if statistics.median(result["ratios"]) < args.min_ratio:
            low.append(config)
    if low:
        print(f"below {args.min_ratio}: {', '.join(low)}")
        return 1
    print(f"every median ratio is at least {args.min_ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
