"""XLA:CPU convolution gradients: why JAX trains ResNet-18 slowly on a CPU.

Times the forward pass, the input gradient (dx) and the weight gradient (dw) of every distinct 3×3
convolution shape in the CIFAR ResNet-18 (batch 32, float32, one jitted function each) in:

- ``jax``: jaxlib as installed (out of the box, what the benchmark measures);
- ``jax-no-ynn``: the same with ``XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=`` (XLA's YNNPACK
  convolution fusion off, so convolutions take XLA's Eigen path);
- ``tensorflow``: ``tf.function(jit_compile=True)``, TF's own XLA, for reference.

Each variant runs in its own subprocess (XLA reads its flags once, at start-up). Prints GFLOP/s per
shape and pass, and the ratio dw ÷ forward time: near 1 is healthy, far above 1 means the weight
gradient falls off the fast path. A benchmark script, not a test: this machine's noise is ±10–50 %.

    python benchmarks/investigations/platform_issues/xla_cpu_conv.py [--variants jax,jax-no-ynn,tensorflow]
        [--batch-size 32] [--repeats 5]
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

from fwbench.cliargs import csv_of, positive_int
from runners.measure.run import framework_environment

#: (channels, input height/width, stride) of ResNet-18's distinct 3×3 convolutions on 32×32 images
SHAPES = ((64, 32, 1), (64, 32, 2), (128, 16, 1), (128, 16, 2), (256, 8, 1), (256, 8, 2), (512, 4, 1))
#: variant -> (framework, XLA_FLAGS)
VARIANTS = {
    "jax": ("jax", ""),
    "jax-no-ynn": ("jax", "--xla_cpu_experimental_ynn_fusion_type="),
    "tensorflow": ("tensorflow", ""),
}


def conv_passes_jax(x: np.ndarray, w: np.ndarray, stride: int) -> dict:
    """Jitted forward, dx and dw of one NHWC/HWIO convolution with symmetric padding 1."""
    import jax

    def conv(x, w):
        return jax.lax.conv_general_dilated(
            x, w, (stride, stride), ((1, 1), (1, 1)), dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    x, w = jax.numpy.asarray(x), jax.numpy.asarray(w)
    g = jax.numpy.ones_like(conv(x, w))
    forward = jax.jit(conv)
    dx = jax.jit(lambda x, w, g: jax.vjp(lambda x: conv(x, w), x)[1](g)[0])
    dw = jax.jit(lambda x, w, g: jax.vjp(lambda w: conv(x, w), w)[1](g)[0])
    return {
        "forward": (lambda: forward(x, w).block_until_ready()),
        "dx": (lambda: dx(x, w, g).block_until_ready()),
        "dw": (lambda: dw(x, w, g).block_until_ready()),
    }


def conv_passes_tensorflow(x: np.ndarray, w: np.ndarray, stride: int) -> dict:
    """The same three passes through ``tf.function(jit_compile=True)``."""
    import tensorflow as tf

    padding = [[0, 0], [1, 1], [1, 1], [0, 0]]
    x, w = tf.constant(x), tf.constant(w)
    g = tf.ones_like(tf.nn.conv2d(x, w, stride, padding))

    @tf.function(jit_compile=True)
    def forward(x, w):
        return tf.nn.conv2d(x, w, stride, padding)

    @tf.function(jit_compile=True)
    def gradient(x, w, g, wrt_weights: bool):
        with tf.GradientTape() as tape:
            tape.watch(w if wrt_weights else x)
            out = tf.nn.conv2d(x, w, stride, padding)
        return tape.gradient(out, w if wrt_weights else x, output_gradients=g)

    return {
        "forward": (lambda: forward(x, w).numpy()),
        "dx": (lambda: gradient(x, w, g, False).numpy()),
        "dw": (lambda: gradient(x, w, g, True).numpy()),
    }


#: framework -> the three passes of one convolution in it
PASSES = {"jax": conv_passes_jax, "tensorflow": conv_passes_tensorflow}


def measure_variant(framework: str, batch_size: int, repeats: int) -> list[dict]:
    """Median milliseconds of each pass for every shape, in this process."""
    passes_for = PASSES[framework]
    rng = np.random.default_rng(0)
    rows = []
    for channels, size, stride in SHAPES:
        x = rng.normal(size=(batch_size, size, size, channels)).astype(np.float32)
        w = (rng.normal(size=(3, 3, channels, channels)) * 0.01).astype(np.float32)
        out_size = size // stride
        gflop = 2 * batch_size * out_size * out_size * 9 * channels * channels / 1e9
        row = {"channels": channels, "size": size, "stride": stride, "gflop": gflop}
        for name, run in passes_for(x, w, stride).items():
            run()  # compile
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                run()
                times.append(time.perf_counter() - start)
            row[name] = statistics.median(times) * 1e3
        rows.append(row)
    return rows


def main() -> int:
    """Measure each variant in a subprocess and print a row per shape."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variants",
        type=csv_of(str, tuple(VARIANTS)),
        default=list(VARIANTS),
        metavar="A,B",
        help=f"comma-separated, from {', '.join(VARIANTS)} (default: all)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32)
    parser.add_argument("--repeats", type=positive_int, default=5)
    parser.add_argument("--one", choices=tuple(PASSES), help=argparse.SUPPRESS)  # internal: one framework here
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_variant(args.one, args.batch_size, args.repeats)))
        return 0
    print(f"{'variant':<12}{'conv (C, H, stride)':<22}{'fwd GF/s':>9}{'dx GF/s':>9}{'dw GF/s':>9}{'dw/fwd':>8}")
    for variant in args.variants:
        framework, flags = VARIANTS[variant]
        with tempfile.TemporaryDirectory(prefix="fwbench-compile-cache-") as cache:
            # the runner's own environment on the CPU (quiet logs, no preallocation), with this variant's XLA flags
            env = {**os.environ, **framework_environment("cpu", cache), "XLA_FLAGS": flags}
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    framework,
                    "--batch-size",
                    str(args.batch_size),
                    "--repeats",
                    str(args.repeats),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
        for r in json.loads(out.stdout.strip().splitlines()[-1]):
            shape = f"{r['channels']}, {r['size']}, {r['stride']}"
            rates = "".join(f"{r['gflop'] / r[p] * 1e3:>9.0f}" for p in ("forward", "dx", "dw"))
            print(f"{variant:<12}{shape:<22}{rates}{r['dw'] / r['forward']:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
