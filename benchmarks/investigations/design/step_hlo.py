"""What XLA makes of one ResNet-18 training step in JAX and in PyTorch via torchax: where does torchax's gap come from?

On the TPU v5e, PyTorch via torchax trains fwbench's ResNet-18 at 0.75–0.95× JAX's images per second, for the same
network, optimizer and precision (the records under results/runs/tpu-*). Both steps are one ``jax.jit`` program, so
the difference is in the programs XLA compiles. This script builds both trainers (``runners.workloads.make_trainer``,
the same weights), compiles each one's training step for one batch on this machine's JAX device (the TPU where one is
present, else the CPU: its programs are the CPU's, a rough guide only), and prints for each:

- XLA's own cost analysis: floating-point operations and bytes accessed per step (a memory-bound step is slowed by
  bytes, not FLOPs);
- the optimised program's instructions by kind: convolutions, transposes and copies (layout changes: PyTorch's
  NCHW against Flax's NHWC), reductions (batch norm's statistics: the torchax trainer computes the running
  statistics from each BatchNorm layer's input besides torchax's own batch statistics), fusions, and all;

and torchax's figure over JAX's. A benchmark script, not a test: it prints and writes nothing. One process builds
both, so it may hold a TPU alone.

    python benchmarks/investigations/design/step_hlo.py [--batch-size 256] [--precision default|bf16|fp32]
        [--device auto|cpu|tpu]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

import jax
import numpy as np

from fwbench.cliargs import positive_int
from runners.frameworks.precision import PRECISION_POLICIES
from runners.workloads import make_trainer
from runners.workloads.resnet18 import arch, data
from runners.workloads.resnet18.dataset import epoch_batches

#: the instruction kinds the table shows, in its order (any other kind counts in "all" only)
KINDS = ("convolution", "transpose", "copy", "reduce", "fusion")
COMPARED = ("jax", "torchax")
#: an instruction of HLO text: ``%name = type opcode(operands…)``, or ``name = …`` in newer dumps
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*.+?\s([a-z][\w\-]*)\(", re.MULTILINE)


def instruction_kinds(hlo_text: str) -> Counter:
    """How many instructions of each opcode an HLO module's text holds, in every computation (fused ones too):
    ``reduce-window`` counts apart from ``reduce``."""
    return Counter(INSTRUCTION.findall(hlo_text))


def step_profile(compiled) -> dict[str, float]:
    """The figures of one compiled step: XLA's FLOPs and bytes accessed, and its instructions by ``KINDS``."""
    costs = compiled.cost_analysis()
    kinds = instruction_kinds(compiled.as_text())
    return {
        "flops": costs.get("flops", float("nan")),
        "bytes accessed": costs.get("bytes accessed", float("nan")),
        **{kind: kinds.get(kind, 0) for kind in KINDS},
        "all": sum(kinds.values()),
    }


def compiled_step(framework: str, batch_size: int, precision: str, device: str):
    """``framework``'s ResNet-18 training step, compiled for one batch of ``batch_size`` synthetic images."""
    trainer = make_trainer("resnet18", framework, arch.init_weights(0), "compiled", device=device, precision=precision)
    dataset = data.synthetic(batch_size, 1)
    images, labels = epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)
    ((x, y),) = trainer.to_device(images, labels)
    state = trainer.stats if framework == "jax" else trainer.buffers  # the running statistics, as each names them
    lowered = trainer.step_fn.lower(trainer.params, state, trainer.opt_state, x, y, np.float32(0.1))
    return lowered.compile()


def table(profiles: dict[str, dict[str, float]]) -> str:
    """The profiles side by side, with torchax's over JAX's."""
    rows = [f"{'':16}{'JAX':>16}{'torchax':>16}{'torchax / JAX':>16}"]
    for key in profiles["jax"]:
        a, b = profiles["jax"][key], profiles["torchax"][key]
        ratio = f"{b / a:.3f}" if a else "—"
        rows.append(f"{key:16}{a:>16,.0f}{b:>16,.0f}{ratio:>16}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring.")
    parser.add_argument("--batch-size", type=positive_int, default=256, help="images per step (default 256)")
    parser.add_argument(
        "--precision", choices=sorted(PRECISION_POLICIES), default="default", help="both trainers' policy (default)"
    )
    parser.add_argument("--device", choices=("auto", "cpu", "tpu"), default="auto", help="JAX's device (auto)")
    args = parser.parse_args(argv)
    profiles = {
        name: step_profile(compiled_step(name, args.batch_size, args.precision, args.device)) for name in COMPARED
    }
    device = jax.devices()[0] if args.device == "auto" else jax.devices(args.device)[0]  # the trainers' choice
    print(f"one training step, batch {args.batch_size}, precision {args.precision}, on {device.device_kind}")
    print(table(profiles))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
