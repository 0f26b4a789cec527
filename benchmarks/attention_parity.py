"""Each framework's fused attention against its written-out attention, in strict float32, at a GPT size on one device.

The parity tests check the fused paths on the CPU at the small model's size (``tests/runners/test_gpt_parity.py``).
On an accelerator, at the size a team trains, the fused paths run other kernels: JAX's ``dot_product_attention`` as
XLA fuses it, its Pallas flash-attention kernel for TPUs, PyTorch's ``scaled_dot_product_attention`` as torchax
composes it. For each framework (``--frameworks``), this script makes the GPT parity capture
(``runners.workloads.gpt.parity.capture``: the logits of one batch and of the batch with a later token changed, then
the weights after each clipped AdamW step, from the same weights and batches) with the written-out attention, then
with each fused path the framework has, all under the ``fp32`` policy (JAX's matmul precision ``highest``) in this
one process (a TPU admits one process at a time), and prints each fused path's worst relative difference from the
written-out one in the logits, the losses and the per-step updates, and how far an earlier position's logits moved
when a later token changed (a causal model: 0). ``--out`` writes the figures as JSON (``fwbench.parity_files``),
to commit under ``results/parity/<machine>/``. Exits 1 where a fused path lets a later token reach an earlier
position.

    python benchmarks/attention_parity.py --device tpu --size gpt2-small \\
        --out results/parity/tpu-v5-lite-1x1/attention-<date>.json
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

# run as `python benchmarks/attention_parity.py`: the repository's packages come first
sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from fwbench.cliargs import csv_of, positive_int  # noqa: E402
from fwbench.parity_files import write_parity  # noqa: E402
from runners.measure.run import framework_environment, run_hardware  # noqa: E402
from runners.workloads.gpt import arch, attention, parity  # noqa: E402

#: the frameworks that train on a TPU, in the order they run
DEVICE_FRAMEWORKS = ("jax", "torchax")
POLICY = "fp32"


def fused_paths(framework: str) -> list[str]:
    """The attention paths of ``framework`` other than the written-out one (``attention.PATHS``)."""
    return [
        path
        for path, builders in attention.PATHS.items()
        if path != attention.WRITTEN_OUT and (builders is None or framework in builders)
    ]


def framework_checks(framework: str, config: arch.GPTConfig, device: str, steps: int, batch_size: int) -> list[dict]:
    """``framework``'s fused paths against its written-out attention: one row per fused path."""

    def captured(path: str) -> dict[str, np.ndarray]:
        found = parity.capture(
            framework, "compiled", "float32", steps, POLICY, batch_size, path, config=config, device=device
        )
        gc.collect()  # the trainer's device buffers go before the next one's
        return found

    reference = captured(attention.WRITTEN_OUT)
    rows = []
    for path in fused_paths(framework):
        found = captured(path)
        before, after = parity.mask_leak(found)
        rows.append(
            {
                "framework": framework,
                "attention": path,
                "reference": attention.WRITTEN_OUT,
                **parity.compare(found, reference, steps),
                "later_token_moves_earlier_logits": before,
                "later_token_moves_its_logits": after,
            }
        )
        print(printed(rows[-1]), flush=True)
    return rows


def printed(row: dict) -> str:
    return (
        f"{row['framework']} {row['attention']} vs {row['reference']} (float32): logits {row['logits']:.1e}, "
        f"loss {row['loss']:.1e}, update {row['update']:.1e}; an earlier position moved by "
        f"{row['later_token_moves_earlier_logits']:.1e} when a later token changed"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring.")
    parser.add_argument("--device", choices=("auto", "cpu", "gpu", "tpu"), default="auto", help="where (auto)")
    parser.add_argument("--size", choices=sorted(arch.SIZES), default="gpt2-small", help="the GPT's size (gpt2-small)")
    parser.add_argument(
        "--frameworks",
        type=csv_of(str, DEVICE_FRAMEWORKS),
        default=DEVICE_FRAMEWORKS,
        help=f"comma-separated, of {','.join(DEVICE_FRAMEWORKS)} (both)",
    )
    parser.add_argument("--steps", type=positive_int, default=1, help="AdamW steps after the forward pass (1)")
    parser.add_argument("--batch-size", type=positive_int, default=parity.PARITY_BATCH, help="sequences a step")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    os.environ.update(framework_environment(args.device, tempfile.mkdtemp(prefix="fwbench-parity-cache-")))
    from runners.frameworks.jax.resnet18 import device_description, training_device

    config = arch.SIZES[args.size]
    rows = [
        row
        for framework in args.frameworks
        for row in framework_checks(framework, config, args.device, args.steps, args.batch_size)
    ]
    if args.out:
        hardware = run_hardware(device_description(training_device(args.device, POLICY, np.dtype("float32"))))
        fields = {
            "command": " ".join(["python", "benchmarks/attention_parity.py", *(argv or sys.argv[1:])]),
            "device_name": hardware["device_name"],
            "machine_id": hardware["machine_id"],
            "size": args.size,
            "precision": POLICY,
            "steps": args.steps,
            "batch_size": args.batch_size,
        }
        write_parity(args.out, fields, rows)
    leaks = [row for row in rows if row["later_token_moves_earlier_logits"] > 0]
    for row in leaks:
        print(f"not causal: {row['framework']} {row['attention']}", file=sys.stderr)
    return 1 if leaks else 0


if __name__ == "__main__":
    raise SystemExit(main())
