"""The GPT's matmuls alone, in each framework on this CPU: is PyTorch's BLAS what makes its GPT step slow here?

Times every matrix product of one training step of the benchmark's GPT (``runners.workloads.gpt.arch.DEFAULT`` at
quick-gpt's CPU batch of 8 sequences, float32): the qkv, attention-projection, MLP and tied-head products, each
forward (x·W), input gradient (dy·Wᵀ) and weight gradient (xᵀ·dy), and attention's two batched products
(q·kᵀ and the weighted sum of v) with theirs. Each variant runs in its own subprocess, with the runner's CPU
environment and the thread settings the runs use (none set: every framework takes the machine's cores):

- ``torch``: ``torch.matmul``, eager, which calls PyTorch's BLAS (MKL in the wheels) as ``nn.Linear`` does;
- ``tensorflow``: ``tf.linalg.matmul`` eagerly, the op TensorFlow's eager GPT step runs (oneDNN when it is on);
- ``tensorflow-xla``: the same in ``tf.function(jit_compile=True)``, as its compiled step;
- ``jax``: ``jnp.matmul`` in ``jax.jit``, XLA:CPU as installed.

Prints GFLOP/s per shape (median of ``--repeats`` timings after two warm-up calls), each variant's math backend
(``runners.measure.math_backend``) and other processes' CPU share while it ran. On a shared machine that share swings
within seconds, so ``--rounds N`` measures every variant N times, interleaved, and shows each one's quietest round.
Environment variables set when it is started (``MKL_*``, ``OMP_*``, ``XLA_FLAGS``, ``LD_PRELOAD`` …) reach every
variant; ``--torch-threads`` sets ``torch.set_num_threads``. A benchmark script, not a test: it prints figures and
writes nothing. Which code path MKL chose it names under ``MKL_VERBOSE=1`` (one product is enough:
``MKL_VERBOSE=1 python -c "import torch; torch.ones(64, 64) @ torch.ones(64, 64)"``); on an AMD CPU it says "Intel(R)
Architecture processors", not its AVX-512 path, which it takes on an Intel CPU of the same ISA. What that path costs
shows on an Intel CPU with AVX-512, where ``MKL_ENABLE_INSTRUCTIONS=AVX2`` caps MKL at it (a run of ``runners`` made
so is labelled tuned): compare ``--variants torch`` with and without the cap.

    python benchmarks/investigations/platform_issues/gpt_matmul_shapes.py
        [--variants torch,tensorflow,tensorflow-xla,jax] [--repeats 20] [--rounds 3]
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
from runners.measure import machine_load
from runners.measure.math_backend import math_backend
from runners.measure.run import framework_environment
from runners.workloads.gpt.arch import DEFAULT, MLP_RATIO, VOCAB

#: quick-gpt's batch on a CPU (runners/measure/profiles.json)
CPU_BATCH = 8
VARIANTS = ("torch", "tensorflow", "tensorflow-xla", "jax")


def gemms(batch: int = CPU_BATCH) -> list[tuple[str, int, int, int, int, bool, bool]]:
    """(name, batches, m, k, n, transpose a, transpose b) of every distinct product in one training step: each
    dense layer's forward x·W (m tokens × k in → n out), input gradient dy·Wᵀ and weight gradient xᵀ·dy, and
    attention's q·kᵀ and p·v with their gradients, batched over batch × heads."""
    tokens, d, hidden, heads = batch * DEFAULT.context, DEFAULT.width, MLP_RATIO * DEFAULT.width, DEFAULT.heads
    shapes = []
    for layer, k, n in (("qkv", d, 3 * d), ("attn.proj", d, d), ("mlp.fc", d, hidden), ("mlp.proj", hidden, d),
                        ("head", d, VOCAB)):  # fmt: skip
        shapes += [
            (f"{layer} fwd", 1, tokens, k, n, False, False),
            (f"{layer} dx", 1, tokens, n, k, False, True),
            (f"{layer} dw", 1, k, tokens, n, True, False),
        ]
    b, t, hw = batch * heads, DEFAULT.context, DEFAULT.head_width
    shapes += [
        ("q·kᵀ fwd", b, t, hw, t, False, True),
        ("q·kᵀ dq", b, t, t, hw, False, False),
        ("q·kᵀ dk", b, t, t, hw, True, False),
        ("p·v fwd", b, t, t, hw, False, False),
        ("p·v dp", b, t, hw, t, False, True),
        ("p·v dv", b, t, t, hw, True, False),
    ]
    return shapes


def operands(batches: int, m: int, k: int, n: int, ta: bool, tb: bool) -> tuple[np.ndarray, np.ndarray]:
    """Random float32 operands, stored transposed where the product transposes them."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((batches, k, m) if ta else (batches, m, k), dtype=np.float32)
    b = rng.standard_normal((batches, n, k) if tb else (batches, k, n), dtype=np.float32)
    return (a[0], b[0]) if batches == 1 else (a, b)


def product_torch(a, b, ta, tb, threads):
    import torch

    if threads:
        torch.set_num_threads(threads)
    a, b = torch.from_numpy(a), torch.from_numpy(b)
    a, b = a.transpose(-2, -1) if ta else a, b.transpose(-2, -1) if tb else b  # views: BLAS's transpose flags
    return lambda: torch.matmul(a, b)


def product_tensorflow(a, b, ta, tb, threads, jit: bool = False):
    import tensorflow as tf

    a, b = tf.constant(a), tf.constant(b)

    def product(a, b):
        return tf.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb)

    run = tf.function(product, jit_compile=True) if jit else product
    return lambda: run(a, b).numpy()


def product_jax(a, b, ta, tb, threads):
    import jax
    import jax.numpy as jnp

    a, b = jnp.asarray(a), jnp.asarray(b)
    run = jax.jit(lambda a, b: jnp.matmul(jnp.swapaxes(a, -2, -1) if ta else a, jnp.swapaxes(b, -2, -1) if tb else b))
    return lambda: run(a, b).block_until_ready()


PRODUCTS = {
    "torch": product_torch,
    "tensorflow": product_tensorflow,
    "tensorflow-xla": lambda *args: product_tensorflow(*args, jit=True),
    "jax": product_jax,
}


def measure(variant: str, repeats: int, threads: int | None) -> dict:
    """Median seconds of each product in this process, the math backend and other processes' CPU share."""
    rows, before = [], machine_load.counters()
    for name, batches, m, k, n, ta, tb in gemms():
        run = PRODUCTS[variant](*operands(batches, m, k, n, ta, tb), ta, tb, threads)
        run(), run()  # compile, first touch
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        rows.append({"name": name, "gflop": 2 * batches * m * k * n / 1e9, "seconds": statistics.median(times)})
    load = machine_load.sample_since(before, 0.0)
    return {"rows": rows, "math_backend": math_backend(), "other_cpu_percent": load["other_cpu_percent"]}


def run_variant(variant: str, repeats: int, threads: int | None) -> dict:
    """``measure`` in a fresh subprocess with the runner's CPU environment."""
    with tempfile.TemporaryDirectory(prefix="fwbench-compile-cache-") as cache:
        env = {**os.environ, **framework_environment("cpu", cache)}
        command = [sys.executable, __file__, "--one", variant, "--repeats", str(repeats)]
        command += ["--torch-threads", str(threads)] if threads else []
        out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def backend_line(variant: str, backend: dict) -> str:
    """One line on what computed the variant's products."""
    report = backend.get(variant.partition("-")[0], {})
    return f"{variant}: {json.dumps(report)}; libraries {backend.get('loaded_libraries')}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=csv_of(str, VARIANTS), default=list(VARIANTS), metavar="A,B")
    parser.add_argument("--repeats", type=positive_int, default=20)
    parser.add_argument(
        "--rounds", type=positive_int, default=1, help="measure each variant this often; show its quietest"
    )
    parser.add_argument("--torch-threads", type=positive_int, help="torch.set_num_threads (default: PyTorch's own)")
    parser.add_argument("--one", choices=VARIANTS, help=argparse.SUPPRESS)  # internal: one variant here
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeats, args.torch_threads)))
        return 0
    rounds = [[run_variant(v, args.repeats, args.torch_threads) for v in args.variants] for _ in range(args.rounds)]
    results = {
        v: min((r[i] for r in rounds), key=lambda result: result["other_cpu_percent"])
        for i, v in enumerate(args.variants)
    }
    print(
        "others CPU % in each round: "
        + "; ".join(
            f"{v} " + ", ".join(f"{r[i]['other_cpu_percent']:.0f}" for r in rounds) for i, v in enumerate(args.variants)
        )
    )
    print(f"GPT {DEFAULT}, batch {CPU_BATCH}, float32; GFLOP/s, median of {args.repeats}, quietest of {args.rounds}")
    print(f"{'product':<14}{'b×m×k×n':>22}" + "".join(f"{v:>15}" for v in args.variants))
    totals = dict.fromkeys(args.variants, 0.0)
    for i, (name, batches, m, k, n, _, _) in enumerate(gemms()):
        cells = ""
        for variant in args.variants:
            row = results[variant]["rows"][i]
            totals[variant] += row["seconds"]
            cells += f"{row['gflop'] / row['seconds']:>15.1f}"
        print(f"{name:<14}{f'{batches}×{m}×{k}×{n}':>22}{cells}")
    print(f"{'all, ms':<36}" + "".join(f"{totals[v] * 1e3:>15.1f}" for v in args.variants))
    print(f"{'others CPU %':<36}" + "".join(f"{results[v]['other_cpu_percent']:>15.1f}" for v in args.variants))
    for variant in args.variants:
        print(backend_line(variant, results[variant]["math_backend"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
