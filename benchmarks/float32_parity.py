"""Strict float32 on an accelerator: the first losses of JAX and of PyTorch via torchax against fwbench's float64
reference.

For each configuration (a workload, the images its epoch loads and the batch size), each framework trains the first
steps of the first epoch as ``runners.measure.run`` does (``runners.workloads.resnet18.reference_losses.first_losses``:
the first step run and undone, then ``FIRST_LOSSES`` steps) on ``--device`` under the ``fp32`` policy (JAX's matmul
precision ``highest``: no single bf16 pass), all in this one process (a TPU admits one process at a time). Each loss is
compared with the float64 CPU reference of ``fwbench/reference_losses.json`` (computed here, in PyTorch eager on the
CPU as that file's are, where the file has none for the configuration): per framework the largest absolute and
relative difference, and whether every step keeps within the project's fp32 bound for that step (the file's
``bounds.fp32.relative``, which ``generator check`` applies to every record); the two frameworks' losses against each
other besides. Prints a table, writes the figures as JSON to ``--out``, exits 1 when a loss is outside its bound.

    python benchmarks/float32_parity.py --device tpu --out float32_parity.json [--configs resnet18:8192:256,gpt:4096:64]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# run as `python benchmarks/float32_parity.py`: the repository's packages come first
sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from fwbench.cliargs import HelpWithExamples, csv_of  # noqa: E402
from fwbench.installed import package_versions  # noqa: E402
from runners.measure.run import framework_environment  # noqa: E402
from runners.workloads import WORKLOADS  # noqa: E402
from runners.workloads.resnet18 import reference_losses  # noqa: E402
from runners.workloads.resnet18.reference_losses import Key, deviations  # noqa: E402

#: the frameworks that train on a TPU, in the order they run
DEVICE_FRAMEWORKS = ("jax", "torchax")
#: workload:images:batch checked by default: ResNet-18 at the TPU profiles' batch 256, on an epoch size whose float64
#: reference the file holds (each framework's strict-fp32 compile takes most of a minute on a TPU v5e)
DEFAULT_CONFIGS = ("resnet18:8192:256",)
#: the GPT at the TPU profile's batch 64, added with ``--configs``
GPT_CONFIG = "gpt:4096:64"
POLICY = "fp32"
VERSIONS = ("jax", "jaxlib", "libtpu", "flax", "optax", "torch", "torchax")


def config_key(text: str) -> Key:
    """``workload:images:batch`` as the reference file's key (the workload's first data set, one epoch, seed 0);
    ValueError naming the part that is wrong."""
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in WORKLOADS or not all(p.isdigit() and int(p) > 0 for p in parts[1:]):
        raise ValueError(f"{text!r}: expected WORKLOAD:IMAGES:BATCH, WORKLOAD one of {', '.join(WORKLOADS)}")
    workload, images, batch = parts[0], int(parts[1]), int(parts[2])
    if images < batch:
        raise ValueError(f"{text!r}: {images} images make no full batch of {batch}")
    return Key(WORKLOADS[workload].datasets[0], images, 1, 0, batch)


def reference(key: Key, stored: dict) -> tuple[list[float], str]:
    """The float64 first losses of ``key`` and where they come from: the file's, else computed here on the CPU
    (PyTorch eager, as ``python -m runners.workloads.resnet18.reference_losses`` makes them)."""
    for trajectory in stored["trajectories"]:
        if Key(**trajectory["key"]) == key:
            return trajectory["losses"], "fwbench/reference_losses.json"
    frame = stored.get("reference", {"framework": "torch", "mode": "eager"})
    losses = reference_losses.first_losses(frame["framework"], key, "float64", frame["mode"])
    return losses, f"computed here ({frame['framework']} {frame['mode']}, float64, CPU)"


def compare(losses: list[float], expected: list[float], bounds: list[float]) -> dict:
    """The losses against the reference: per step the relative deviation and its bound, the largest absolute and
    relative difference, and whether every step is within its bound."""
    relative = deviations(losses, expected)
    absolute = [abs(a - b) for a, b in zip(losses, expected, strict=False)]
    return {
        "losses": losses,
        "relative": relative,
        "bounds": bounds[: len(relative)],
        "max_absolute": max(absolute),
        "max_relative": max(relative),
        "within_bound": all(d <= b for d, b in zip(relative, bounds, strict=False)),
    }


def check(key: Key, device: str, stored: dict, frameworks: tuple[str, ...]) -> dict:
    """Each framework's first losses of ``key`` on ``device`` under fp32 against the float64 reference, and the
    frameworks' against each other."""
    expected, source = reference(key, stored)
    bounds = stored["bounds"][POLICY]["relative"]
    result = {"key": vars(key), "reference": {"losses": expected, "source": source}, "frameworks": {}}
    for name in frameworks:
        start = time.perf_counter()
        losses = reference_losses.first_losses(name, key, "float32", "compiled", undo_first=True, device=device)
        result["frameworks"][name] = {
            **compare(losses, expected, bounds),
            "seconds": time.perf_counter() - start,
        }
    if len(frameworks) == 2:
        a, b = (result["frameworks"][name]["losses"] for name in frameworks)
        result["between_frameworks"] = {"max_relative": max(deviations(a, b))}
    return result


def table(results: list[dict]) -> str:
    """One line per configuration and framework: the largest differences and the verdict against the bound."""
    lines = [f"{'configuration':<32}{'framework':<10}{'max |Δ|':>10}{'max rel':>10}{'bounds':>24}  within"]
    for result in results:
        key = result["key"]
        config = f"{key['dataset']} {key['images']} at {key['batch_size']}"
        for name, found in result["frameworks"].items():
            bounds = ",".join(f"{b:.0e}" for b in found["bounds"])
            lines.append(
                f"{config:<32}{name:<10}{found['max_absolute']:>10.2e}{found['max_relative']:>10.2e}{bounds:>24}"
                f"  {'yes' if found['within_bound'] else 'NO'}  ({found['seconds']:.0f} s)"
            )
        if "between_frameworks" in result:
            lines.append(f"{config:<32}{'between':<10}{'':>10}{result['between_frameworks']['max_relative']:>10.2e}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=HelpWithExamples,
        epilog="examples:\n  python benchmarks/float32_parity.py --device tpu --out float32_parity.json\n"
        f"  python benchmarks/float32_parity.py --device tpu --configs {DEFAULT_CONFIGS[0]},{GPT_CONFIG} --out p.json\n"
        "  python benchmarks/float32_parity.py --device cpu --configs resnet18:64:32,gpt:16:8 --out /tmp/p.json\n",
    )
    parser.add_argument("--device", choices=("auto", "cpu", "gpu", "tpu"), default="auto", help="where to train")
    parser.add_argument(
        "--configs",
        type=csv_of(str),
        default=list(DEFAULT_CONFIGS),
        metavar="W:IMAGES:BATCH,…",
        help=f"configurations to check (default {','.join(DEFAULT_CONFIGS)}; the GPT: {GPT_CONFIG})",
    )
    parser.add_argument(
        "--frameworks",
        type=csv_of(str, DEVICE_FRAMEWORKS),
        default=list(DEVICE_FRAMEWORKS),
        help=f"frameworks to check (default {','.join(DEVICE_FRAMEWORKS)})",
    )
    parser.add_argument("--out", type=Path, required=True, help="where the figures go, as JSON")
    args = parser.parse_args(argv)
    try:
        args.keys = [config_key(text) for text in args.configs]
    except ValueError as exc:
        parser.error(f"--configs {exc}")
    if not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: no folder {args.out.parent}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Check every configuration, print the table, write the JSON; 1 if a loss is outside its bound."""
    args = parse_args(argv)
    os.environ.update(framework_environment(args.device, tempfile.mkdtemp(prefix="fwbench-parity-cache-")))
    from runners.frameworks.jax.resnet18 import device_description, training_device

    stored = reference_losses.read_data()
    results = [check(key, args.device, stored, tuple(args.frameworks)) for key in args.keys]
    hardware = device_description(training_device(args.device, POLICY, np.dtype("float32")))
    summary = {
        "policy": POLICY,
        "device_kind": hardware["device_kind"],
        "device_name": hardware["device_name"],
        "versions": package_versions(VERSIONS),
        "bound_source": f"fwbench/reference_losses.json bounds.{POLICY}.relative",
        "results": results,
        "within_bound": all(f["within_bound"] for r in results for f in r["frameworks"].values()),
    }
    print(f"strict fp32 on {hardware['device_name'] or hardware['device_kind']} against the float64 reference")
    print(table(results))
    args.out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{'every loss within its bound' if summary['within_bound'] else 'a loss outside its bound'}; {args.out}")
    return 0 if summary["within_bound"] else 1


if __name__ == "__main__":
    sys.exit(main())
