"""Each framework's ``Trainer`` step against a minimal training loop written as that framework's tutorials write it.

``benchmarks/harness_overhead.py`` times the runner around the same ``Trainer.train_step``; this script asks the
question it cannot: is fwbench's model and step itself as fast as the plain loop a user of the framework would
write? For each framework and mode, two worker processes (so that neither's threads, allocator or caches disturb the
other) each build one loop and compile it; then they take turns (A B, B A, …), each timing ``--steps`` steps between
two syncs, and each pair gives a ratio Trainer ÷ minimal. Prints images/s, the median ratio (and that of the
fastest rounds) and every pair's ratio; exits 1 when a median ratio is below ``--min-ratio`` (0.97). A benchmark, not
a test: on a busy machine single pairs stray far beyond the 3 % margin, so read the median with its pairs.

With ``--device`` (cpu, gpu, tpu or auto) it checks JAX alone, in one process (a TPU admits one process at a time):
the ``Trainer`` and the minimal loop are built one after the other, on the device JAX resolves to, under the
precision policy ``--precision`` (``default``, ``bf16`` or ``fp32``), and take turns as above. Prints each one's
images/s and MFU (the records' rule: ``runners.measure.record.mfu_section``, the peaks of
``runners/measure/device_peaks.json``; none on a CPU), and the ratio Trainer ÷ minimal with its 95 % interval over the
pairs (``fwbench.decision``'s paired interval); ``--out`` writes the same as JSON.

The minimal loops (the ``minimal_*`` functions) are the tutorials' code, not fwbench's: their own ResNet-18 of the
same shape (``runners.workloads.resnet18.arch``), the framework's default initialisation and layer defaults, SGD with
momentum 0.9 and weight decay 5e-4 as the framework spells it. Where they compute something else than fwbench, and what
that costs:

- **Padding at stride 2.** Keras' and Flax's ``"SAME"`` pads (0, 1) at stride 2 where fwbench (PyTorch's rule)
  pads (1, 1) (``runners.workloads.resnet18.recipe.conv_padding``): same shapes and FLOPs, so no cost of its own;
  fwbench's TensorFlow model pads explicitly there and uses ``"same"`` wherever it is symmetric.
- **Weight decay.** Keras' ``SGD(weight_decay=…)`` is decoupled and folds the rate into the velocity; fwbench
  writes PyTorch's coupled rule out. Both are a few elementwise operations per parameter, fused by XLA.
- **BatchNorm.** Keras' defaults (momentum 0.99, epsilon 1e-3) where fwbench uses PyTorch's (0.1, 1e-5):
  constants only.
- **Bookkeeping.** fwbench's step also returns the count of correct predictions (an argmax over batch × 10
  logits); the minimal loops return the loss alone.
- **Precision and device.** Both use true float32 (TF32 off), as fwbench's ``fp32`` policy does, and the
  framework's default device (a GPU where it sees one): the one line in each minimal loop that is not the
  tutorial's, so that on a GPU both compute in the same precision. JAX's minimal loop takes its device and
  precision from fwbench's ``training_device`` (the same settings as the ``Trainer``), and under ``bf16`` builds
  its layers as Flax's mixed precision does (``dtype=bfloat16``, float32 parameters).

    python benchmarks/idiomatic_loop.py [--configs torch:eager,torch:compiled,tensorflow:compiled,jax:compiled]
        [--batch-size 32] [--steps 5] [--pairs 4] [--min-ratio 0.97]
    python benchmarks/idiomatic_loop.py --device tpu --precision bf16 --batch-size 256 --steps 100 --pairs 4
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# run as `python benchmarks/idiomatic_loop.py`: the repository's packages come first
sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from fwbench.cliargs import HelpWithExamples, csv_of, positive_float, positive_int  # noqa: E402
from fwbench.decision import decide_sitting  # noqa: E402
from fwbench.frameworks import FRAMEWORKS  # noqa: E402
from runners.frameworks.precision import PRECISION_POLICIES  # noqa: E402
from runners.measure.record import mfu_section  # noqa: E402
from runners.measure.run import framework_environment  # noqa: E402
from runners.workloads.resnet18 import arch, data  # noqa: E402

#: every (framework, mode) checked by default: the modes the article times
CONFIGS = ("torch:eager", "torch:compiled", "tensorflow:compiled", "jax:compiled")
#: what ``--device`` checks, in one process
ONE_PROCESS_CONFIG = "jax:compiled"
#: learning rate of every timed step (a constant: the rate's value costs nothing)
LR = 0.01
#: the tutorials' SGD: momentum and (coupled in PyTorch and optax, decoupled in Keras) weight decay
MOMENTUM, WEIGHT_DECAY = 0.9, 5e-4
#: warm-up steps before the first timed round: the compile, then one step with everything compiled
WARMUP_STEPS = 2
#: distinct batches resident on the device, taken in turn (at batch 256, 16 batches are 50 MB of float32 images)
DEVICE_BATCHES = 16
#: what a worker's result line starts with (frameworks may print to stdout too)
MARK = "@@ "
VARIANTS = ("trainer", "minimal")

#: a loop: (images, labels) as NumPy, mode, and where the framework lets it choose, precision policy and device →
#: (step(i) running the i-th batch, sync)
Loop = Callable[..., tuple[Callable[[int], object], Callable[[], object]]]


def blocks() -> list[tuple[int, int, int]]:
    """(in width, out width, stride) of the eight BasicBlocks, from ``runners.workloads.resnet18.arch``."""
    out, cin = [], arch.STEM_WIDTH
    for width, stride in arch.STAGES:
        for b in range(arch.BLOCKS_PER_STAGE):
            out.append((cin, width, stride if b == 0 else 1))
            cin = width
    return out


def trainer_loop(framework: str) -> Loop:
    """fwbench's own step: ``make_trainer`` and ``Trainer.train_step``, exactly as the runner calls it."""

    def build(images, labels, mode, precision="fp32", device="auto"):
        from runners.workloads import make_trainer

        trainer = make_trainer("resnet18", framework, arch.init_weights(0), mode, device, precision=precision)
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


def minimal_jax(images, labels, mode, precision="fp32", device="auto"):
    """Flax NNX: a ResNet-18 of ``nnx.Conv`` (default ``"SAME"``), ``nnx.Optimizer`` over optax's SGD, and the step
    of Flax's performance guide: ``nnx.split`` once, one ``jax.jit`` of a pure function of the state, donated."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    from runners.frameworks.jax_train import training_device

    target = training_device(device, precision, np.dtype("float32"))  # fp32: matmul precision "highest"
    dtype = jnp.bfloat16 if precision == "bf16" else None  # Flax's mixed precision: float32 parameters

    class ConvBN(nnx.Module):
        def __init__(self, cin, cout, kernel, stride, rngs):
            self.conv = nnx.Conv(cin, cout, (kernel, kernel), strides=stride, use_bias=False, dtype=dtype, rngs=rngs)
            self.bn = nnx.BatchNorm(cout, dtype=dtype, rngs=rngs)

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
            self.fc = nnx.Linear(arch.final_width(), arch.NUM_CLASSES, dtype=dtype, rngs=rngs)

        def __call__(self, x):
            x = nnx.relu(self.stem(x))
            for block in self.blocks:
                x = block(x)
            return self.fc(x.mean(axis=(1, 2)))

    with jax.default_device(target):
        model = ResNet18(nnx.Rngs(0))
        tx = optax.chain(optax.add_decayed_weights(WEIGHT_DECAY), optax.sgd(LR, momentum=MOMENTUM))
        optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    graphdef, state = nnx.split((model, optimizer))

    @functools.partial(jax.jit, donate_argnums=0)
    def train_step(state, x, y):
        model, optimizer = nnx.merge(graphdef, state)

        def loss_fn(model):
            logits = model(x).astype(jnp.float32)  # the loss in float32
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    state = jax.device_put(state, target)
    batches = [(jax.device_put(x, target), jax.device_put(y, target)) for x, y in zip(images, labels, strict=True)]

    def step(i):
        nonlocal state
        loss, state = train_step(state, *batches[i])
        return loss

    return step, lambda: jax.block_until_ready(state)


#: variant → framework → loop
LOOPS: dict[str, dict[str, Loop]] = {
    "trainer": {f: trainer_loop(f) for f in FRAMEWORKS},
    "minimal": {"torch": minimal_torch, "tensorflow": minimal_tensorflow, "jax": minimal_jax},
}


class Built:
    """One loop built and warmed up in this process (``options``: the JAX loops' precision and device), timed a
    round at a time: ``steps`` steps between two syncs, over ``DEVICE_BATCHES`` batches taken in turn."""

    def __init__(self, framework: str, mode: str, variant: str, batch_size: int, steps: int, **options):
        self.name, self.batch_size, self.steps = variant, batch_size, steps
        count = min(steps, DEVICE_BATCHES)
        dataset = data.synthetic(batch_size * count, batch_size)
        images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)
        start = time.perf_counter()
        self.step, self.sync = LOOPS[variant][framework](images, labels, mode, **options)  # imports the framework
        self.count = count
        for i in range(WARMUP_STEPS):
            self.step(i % count)
        self.sync()
        self.setup_seconds = time.perf_counter() - start

    def round(self) -> float:
        """Images/s over one round."""
        self.sync()
        start = time.perf_counter()
        for i in range(self.steps):
            self.step(i % self.count)
        self.sync()
        return self.steps * self.batch_size / (time.perf_counter() - start)

    def close(self) -> None:
        """Nothing to end: the loop lives in this process."""


def worker(framework: str, mode: str, variant: str, batch_size: int, steps: int) -> None:
    """Build and compile one loop, then time a round each time a line arrives on stdin; one result line
    (images/s) per round on stdout, after a first line with the set-up time."""
    os.environ.update(framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-idiomatic-cache-")))
    loop = Built(framework, mode, variant, batch_size, steps)
    print(MARK + json.dumps({"setup_seconds": loop.setup_seconds}), flush=True)
    for _ in sys.stdin:
        print(MARK + json.dumps({"images_per_second": loop.round()}), flush=True)


class Worker:
    """One worker process of ``script`` and its line protocol (the same methods as ``Built``)."""

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


def interleave(make: Callable[[str], Built | Worker], pairs: int) -> dict:
    """Interleaved rounds of the two variants, each made by ``make`` (one after the other, so that their compiles
    do not overlap): images/s per round and the ratio Trainer ÷ minimal per pair."""
    loops = []
    try:
        for variant in VARIANTS:
            loops.append(make(variant))
        rates = {v: [] for v in VARIANTS}
        for pair in range(pairs):
            for loop in loops if pair % 2 == 0 else loops[::-1]:  # alternate who goes first
                rates[loop.name].append(loop.round())
    finally:
        for loop in loops:
            loop.close()
    a, b = VARIANTS
    ratios = [x / y for x, y in zip(rates[a], rates[b], strict=True)]
    return {"rates": rates, "ratios": ratios, "setup": {loop.name: loop.setup_seconds for loop in loops}}


def report(config: str, result: dict) -> str:
    """One line: median images/s of each variant, the median ratio, the ratio of the fastest rounds (other work
    only ever slows a round, so on a busy machine it is the steadier figure), every pair's ratio, the set-up times."""
    a, b = VARIANTS
    rates, ratios = result["rates"], result["ratios"]
    pairs = " ".join(f"{r:.3f}" for r in ratios)
    setup = ", ".join(f"{v} {s:.0f} s" for v, s in result["setup"].items())
    return (
        f"{config:<21}{statistics.median(rates[a]):>9.1f}{statistics.median(rates[b]):>9.1f}"
        f"{statistics.median(ratios):>7.3f}{max(rates[a]) / max(rates[b]):>7.3f}  pairs {pairs}  (set-up {setup})"
    )


def in_workers(args: argparse.Namespace, script: str) -> int:
    """Compare the Trainer with the minimal loop for each configuration, each loop in a worker process of its own;
    1 if any median ratio is below ``--min-ratio``."""
    print(f"batch {args.batch_size}, {args.steps} steps per round, {args.pairs} pairs; images/s, medians")
    print(f"{'framework:mode':<21}{'Trainer':>9}{'minimal':>9}{'ratio':>7}{'best':>7}")
    low = []
    for config in args.configs:
        framework, mode = config.split(":")
        result = interleave(
            lambda variant, f=framework, m=mode: Worker(script, f, m, variant, args.batch_size, args.steps),
            args.pairs,
        )
        print(report(config, result), flush=True)
        if statistics.median(result["ratios"]) < args.min_ratio:
            low.append(config)
    if low:
        print(f"below {args.min_ratio}: {', '.join(low)}")
        return 1
    print(f"every median ratio is at least {args.min_ratio}")
    return 0


def summary(args: argparse.Namespace, result: dict, hardware: dict) -> dict:
    """The one-process comparison's figures: each variant's median images/s and its MFU on ``hardware`` (the
    records' rule), every round, the median ratio Trainer ÷ minimal and the 95 % interval of the pairs' mean ratio
    (log scale, as ``fwbench.decision`` judges rounds; None with fewer than three pairs)."""
    rates = {v: statistics.median(r) for v, r in result["rates"].items()}
    gap = decide_sitting("this process", result["ratios"]).gap
    return {
        "framework": ONE_PROCESS_CONFIG.split(":")[0],
        "device_kind": hardware["device_kind"],
        "device_name": hardware["device_name"],
        "precision": args.precision,
        "batch_size": args.batch_size,
        "steps_per_round": args.steps,
        "pairs": args.pairs,
        "images_per_second": rates,
        "mfu": {v: mfu_section(args.precision, hardware, rate) for v, rate in rates.items()},
        "setup_seconds": result["setup"],
        "rounds": result["rates"],
        "ratios": result["ratios"],
        "ratio": statistics.median(result["ratios"]),
        "ratio_interval": None if gap is None else [gap.low, gap.high],
    }


def printed(figures: dict) -> str:
    """The figures as the lines the script prints."""
    lines = [
        f"{figures['framework']} on {figures['device_name'] or figures['device_kind']}, precision "
        f"{figures['precision']}, batch {figures['batch_size']}, {figures['steps_per_round']} steps per round, "
        f"{figures['pairs']} pairs; medians",
        f"{'variant':<10}{'images/s':>11}{'MFU':>7}{'set-up s':>10}",
    ]
    for variant in VARIANTS:
        mfu = figures["mfu"][variant]["value"]
        lines.append(
            f"{variant:<10}{figures['images_per_second'][variant]:>11.1f}{'n/a' if mfu is None else f'{mfu:.3f}':>7}"
            f"{figures['setup_seconds'][variant]:>10.1f}"
        )
    mfu = figures["mfu"][VARIANTS[0]]  # the same peak for both
    if mfu["value"] is None:
        lines.append(f"MFU n/a: {mfu['reason']}")
    else:
        lines.append(f"MFU: {mfu['basis']} ({mfu['peak_flops_per_second'] / 1e12:.1f} TFLOP/s)")
    low_high = figures["ratio_interval"]
    interval = "" if low_high is None else f", 95 % interval of the mean {low_high[0]:.3f}–{low_high[1]:.3f}"
    pairs = " ".join(f"{r:.3f}" for r in figures["ratios"])
    lines.append(f"ratio Trainer ÷ minimal: median {figures['ratio']:.3f}{interval}; pairs {pairs}")
    return "\n".join(lines)


def in_one_process(args: argparse.Namespace) -> int:
    """JAX's Trainer against its minimal loop in this process, on ``--device`` under ``--precision``; 1 if the
    median ratio is below ``--min-ratio``."""
    os.environ.update(framework_environment(args.device, tempfile.mkdtemp(prefix="fwbench-idiomatic-cache-")))
    framework, mode = ONE_PROCESS_CONFIG.split(":")
    options = {"precision": args.precision, "device": args.device}
    result = interleave(lambda v: Built(framework, mode, v, args.batch_size, args.steps, **options), args.pairs)
    from runners.frameworks.jax_train import device_description, training_device

    figures = summary(
        args, result, device_description(training_device(args.device, args.precision, np.dtype("float32")))
    )
    print(printed(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    below = figures["ratio"] < args.min_ratio
    print(f"{'below' if below else 'at least'} {args.min_ratio}")
    return int(below)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[:3]),  # what it compares, how, and in one process
        formatter_class=HelpWithExamples,
        epilog="examples:\n  python benchmarks/idiomatic_loop.py   # the short default: every configuration\n"
        "  python benchmarks/idiomatic_loop.py --configs tensorflow:compiled --pairs 6 --steps 8\n"
        "  python benchmarks/idiomatic_loop.py --device tpu --precision bf16 --batch-size 256 --steps 100\n",
    )
    parser.add_argument(
        "--configs",
        type=csv_of(str, CONFIGS),
        metavar="F:MODE,…",
        help=f"framework:mode pairs to check (default: all of {', '.join(CONFIGS)}; with --device, "
        f"{ONE_PROCESS_CONFIG} alone)",
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "gpu", "tpu"),
        help=f"check {ONE_PROCESS_CONFIG} in this one process, on this device (a TPU admits one process)",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISION_POLICIES,
        default="fp32",
        help="with --device: the precision policy both loops run (default fp32)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="images per step (default 32)")
    parser.add_argument("--steps", type=positive_int, default=5, help="timed steps per round (default 5)")
    parser.add_argument("--pairs", type=positive_int, default=4, help="interleaved pairs of rounds (default 4)")
    parser.add_argument(
        "--min-ratio", type=positive_float, default=0.97, help="exit 1 below this median ratio (default 0.97)"
    )
    parser.add_argument("--out", type=Path, help="with --device: write the figures as JSON here")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)  # internal: framework mode variant batch steps
    args = parser.parse_args(argv)
    if args.device is None:
        if args.precision != "fp32" or args.out:
            parser.error("--precision and --out need --device (the workers run fp32 and print only)")
        args.configs = args.configs or list(CONFIGS)
    elif args.configs not in (None, [ONE_PROCESS_CONFIG]):
        parser.error(f"--device checks {ONE_PROCESS_CONFIG} alone, not {','.join(args.configs)}")
    return args


def main(argv: list[str] | None = None, script: str = __file__) -> int:
    """Compare the Trainer with the minimal loop: in workers, or with ``--device`` in this process."""
    args = parse_args(argv)
    if args.worker:
        framework, mode, variant, batch_size, steps = args.worker
        worker(framework, mode, variant, int(batch_size), int(steps))
        return 0
    return in_one_process(args) if args.device else in_workers(args, script)


if __name__ == "__main__":
    sys.exit(main())
