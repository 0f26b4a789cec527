"""The flags that choose configurations, shared by ``runners run`` (one value each) and ``runners matrix`` (lists).

A profile gives every field of a configuration; these flags override its data set, epochs, sizes and device.
``runners run --config-json`` takes a whole configuration instead, and then none of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fwbench.cliargs import UsageError, non_negative_int, positive_int
from runners.frameworks.precision import PRECISION_POLICIES
from runners.measure import provenance
from runners.measure.profile_devices import DEVICES
from runners.measure.profile_loading import load_profiles, profile_for
from runners.measure.profiles import DATASETS
from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS, workload
from runners.workloads.resnet18.dataset import DATA_DIR_ENV

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
#: the argparse type of each flag that sets a number of a configuration, by its field: ``runners run
#: --config-json`` checks those fields with the same
NUMBER_FIELDS = {
    "batch_size": positive_int,
    "seed": non_negative_int,
    "epochs": positive_int,
    "train_images": positive_int,
    "test_images": positive_int,
}
#: what each data set is, for ``--dataset``'s help
DATASET_NOTES = {
    "synthetic": "offline, CIFAR-shaped, never compared with CIFAR-10",
    "cifar10": "downloaded or found under --data-dir",
    "grammar": "an offline English-like byte stream",
}


def dataset_help() -> str:
    """``--dataset``'s help: each workload's data sets, and each profile's."""
    per_workload = "; ".join(
        f"{w.name}: " + " or ".join(f"{d} ({DATASET_NOTES[d]})" for d in w.datasets) for w in WORKLOADS.values()
    )
    profiles_of: dict[str, list[str]] = {}
    for name, spec in load_profiles().items():
        profiles_of.setdefault(spec["dataset"], []).append(name)
    defaults = "; ".join(f"{dataset} for {', '.join(names)}" for dataset, names in profiles_of.items())
    return f"the data set, one its workload trains on: {per_workload} (default: the profile's: {defaults})"


def add_config_flags(parser: argparse.ArgumentParser, default_profile: str, precision_default: str) -> None:
    """The profile, the flags that override it (``PROFILE_FLAGS``), and where the records go; ``precision_default``
    says in ``--precision``'s help what runs without it."""
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
    parser.add_argument("--dataset", choices=DATASETS, help=dataset_help())
    parser.add_argument("--epochs", type=NUMBER_FIELDS["epochs"], help="timed epochs (default: the profile's)")
    parser.add_argument(
        "--train-images",
        type=NUMBER_FIELDS["train_images"],
        help="training images (the GPT: sequences) requested per epoch; the epoch "
        "trains the whole batches among them, at least one (default: the profile's; quick: 256 on a CPU, 8,192 on "
        "a GPU, 32,768 on a TPU)",
    )
    parser.add_argument(
        "--test-images",
        type=NUMBER_FIELDS["test_images"],
        help="test images evaluated after each epoch (default: the profile's; quick: 128 on a CPU, 1,024 on a GPU "
        "or TPU)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        help="auto: the GPU when NVML sees one, else the TPU when this process can open one, else the CPU; a "
        "device-sized profile (quick) takes that device's sizes; gpu or tpu where there is none is a usage error "
        "(default auto)",
    )
    parser.add_argument(
        "--precision",
        choices=tuple(PRECISION_POLICIES),
        help="precision policy: fp32 (true float32, TF32 off everywhere: the parity reference), default (each "
        "framework as installed: what the article ran) or bf16 (each framework's bfloat16 mixed precision); runs this "
        f"policy alone (default: {precision_default})",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help=f"where CIFAR-10 is looked for and downloaded (default ${DATA_DIR_ENV} or ~/.cache/fwbench/data)",
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


#: ``--device tpu`` where this process can open no TPU chip (``provenance.tpu_info``)
NO_TPU = "--device tpu: no TPU chip this process can open (none in /sys/bus/pci with a /dev/vfio or /dev/accel file)"


def check_device_here(args: argparse.Namespace) -> None:
    """UsageError for ``--device gpu`` where NVML sees no NVIDIA GPU (``NO_NVIDIA_GPU``) or ``--device tpu`` where no
    TPU chip can be opened (``NO_TPU``), before any work: the CPU is never used in an accelerator's place."""
    if args.device == "gpu" and provenance.nvidia_info() is None:
        raise UsageError(NO_NVIDIA_GPU)
    if args.device == "tpu" and provenance.tpu_info() is None:
        raise UsageError(NO_TPU)


def profile_overrides(args: argparse.Namespace) -> dict:
    """The flags shared by ``run`` and ``matrix`` that override the profile (None: the profile's); UsageError for a
    ``--dataset`` or ``--precision`` that the profile's workload does not train with."""
    spec = workload(load_profiles()[chosen_profile(args)].get("workload", DEFAULT_WORKLOAD))
    for flag, value, allowed, verb in (
        ("--dataset", args.dataset, spec.datasets, "trains on"),
        ("--precision", args.precision, spec.precisions, "trains in"),
    ):
        if value is not None and value not in allowed:
            raise UsageError(f"{flag} {value}: the {spec.name} workload {verb} {', '.join(allowed)} only")
    overrides = {dest: getattr(args, dest) for dest in PROFILE_FLAGS.values()}
    return {**overrides, "device": None if args.device == "auto" else args.device}
