"""The flags that choose configurations, shared by ``runners run`` (one value each) and ``runners matrix`` (lists).

A profile gives every field of a configuration; these flags override its data set, epochs, sizes and device.
``runners run --config-json`` takes a whole configuration instead, and then none of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fwbench.cliargs import UsageError, positive_int
from runners import data, provenance
from runners.profiles import DATASETS, DEVICES, load_profiles, profile_for
from runners.recipe import PRECISION_POLICIES
from runners.workloads import WORKLOADS

DEFAULT_RUNS_OUT = Path("results/runs")
#: flag → the ``argparse`` destination of the flags that override a profile (None when not given)
PROFILE_FLAGS = {
    "--dataset": "dataset",
    "--epochs": "epochs",
    "--train-images": "train_images",
    "--test-images": "test_images",
    "--device": "device",
    "--precision": "precision",
}


def add_config_flags(parser: argparse.ArgumentParser, default_profile: str) -> None:
    """The profile, the flags that override it (``PROFILE_FLAGS``), and where the records go."""
    profiles = tuple(load_profiles())
    parser.add_argument(
        "--profile",
        choices=profiles,
        help=f"profile whose settings are the defaults (%(choices)s; default {default_profile})",
    )
    parser.add_argument(
        "--workload",
        choices=tuple(WORKLOADS),
        help="what is trained: resnet18 (ResNet-18 on CIFAR-shaped images, the article's) or gpt (a 6-layer GPT on "
        "bytes); runs the profile's variant for it (quick → quick-gpt, smoke → smoke-gpt) (default: the profile's)",
    )
    parser.add_argument(
        "--dataset",
        choices=DATASETS,
        help="cifar10 (downloaded or found under --data-dir) or "
        "synthetic (offline, CIFAR-shaped, never compared with CIFAR-10)",
    )
    parser.add_argument("--epochs", type=positive_int, help="timed epochs (default: the profile's)")
    parser.add_argument(
        "--train-images",
        type=positive_int,
        help="training images (the GPT: sequences) requested per epoch; the epoch "
        "trains the whole batches among them, at least one (default: the profile's; quick: 256 on a CPU, 8,192 on "
        "a GPU)",
    )
    parser.add_argument(
        "--test-images",
        type=positive_int,
        help="test images evaluated after each epoch (default: the profile's; quick: 128 on a CPU, 1,024 on a GPU)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        help="auto: the GPU when the framework sees one, else CPU; a device-sized profile (quick) "
        "takes its GPU sizes when NVML sees a GPU; gpu where NVML sees no NVIDIA GPU is a usage error (default auto)",
    )
    parser.add_argument(
        "--precision",
        choices=tuple(PRECISION_POLICIES),
        help="precision policy: fp32 (true float32, TF32 off everywhere: the parity reference), default (each "
        "framework as installed: what the article ran) or bf16 (each framework's bfloat16 mixed precision); runs "
        "this policy alone (default: the profile's, and its extra precisions unless batch sizes are given; quick: "
        "fp32 on a CPU, default on a GPU, and bf16 at batch 32)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help=f"where CIFAR-10 is looked for and downloaded (default ${data.DATA_DIR_ENV} or ~/.cache/fwbench/data)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_RUNS_OUT,
        help="results directory; records go to OUT/<machine>/<record>.json (default %(default)s)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.set_defaults(default_profile=default_profile)


def chosen_profile(args: argparse.Namespace) -> str:
    """``--profile`` (else the command's default profile), or its variant for ``--workload`` (``profile_for``)."""
    name = args.profile or args.default_profile
    try:
        return profile_for(name, args.workload)
    except ValueError as exc:
        raise UsageError(f"--workload {args.workload}: {exc}") from None


#: ``--device gpu`` where NVML sees no GPU: every framework would fail to find one, each run writing a failed record
NO_NVIDIA_GPU = "--device gpu: NVML sees no NVIDIA GPU on this machine"


def check_device_here(args: argparse.Namespace) -> None:
    """UsageError (``NO_NVIDIA_GPU``) for ``--device gpu`` where NVML sees no NVIDIA GPU, before any work."""
    if args.device == "gpu" and provenance.nvidia_info() is None:
        raise UsageError(NO_NVIDIA_GPU)


def profile_overrides(args: argparse.Namespace) -> dict:
    """The flags shared by ``run`` and ``matrix`` that override the profile (None: the profile's)."""
    overrides = {dest: getattr(args, dest) for dest in PROFILE_FLAGS.values()}
    return {**overrides, "device": None if args.device == "auto" else args.device}
