"""``runners benchmark-script``: the shell script ``make site`` runs to benchmark this machine
(``runners.matrix.site_plan`` writes it), or with ``--machine-id`` the machine id its matrices write under."""

from __future__ import annotations

import argparse
from pathlib import Path

from fwbench.cliargs import EXIT_OK, UsageError, examples, moment, positive_float
from runners.envs import gpu as envs_gpu
from runners.envs import versions as envs
from runners.envs_cli import nvidia_gpu, workload_list
from runners.matrix import site_plan
from runners.measure import provenance
from runners.measure.config_flags import DEFAULT_RUNS_OUT, NO_TPU
from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS


def cmd_benchmark_script(args: argparse.Namespace) -> int:
    """Print the script ``make site`` runs to benchmark this machine (``--fake-gpu``: one with that GPU)."""
    if (args.fake_gpu is None) != (args.cuda_driver is None):
        raise UsageError("--fake-gpu and --cuda-driver: both or neither")
    if args.fake_gpu is not None:
        gpu = envs_gpu.Gpu(args.fake_gpu, envs_gpu.cuda_version(args.cuda_driver))
    else:
        gpu = envs_gpu.detect()
    tpu = None if gpu else tpu_here(args)
    if args.machine_id:
        print(provenance.hardware_for("tpu")["machine_id"] if tpu else site_plan.machine_id_of(gpu))
        return EXIT_OK
    try:
        lines = site_plan.plan(
            gpu, args.out, tpu=tpu, budget=args.budget, workloads=args.workloads, deadline=args.deadline
        )
        print(*lines, sep="\n")
    except envs.EnvError as exc:
        raise UsageError(str(exc)) from None
    return EXIT_OK


def tpu_here(args: argparse.Namespace) -> str | None:
    """The TPU chip the plan is for: this machine's where one can be opened (``--device`` auto or tpu), or with
    ``--device tpu --dry-run`` a TPU's plan where there is none; UsageError for ``--device tpu`` without either."""
    if args.device == "cpu":
        return None
    found = provenance.tpu_info()
    if found:
        return f"{found['device_name']} ({found['device_count']} chip{'s' if found['device_count'] > 1 else ''})"
    if args.device == "tpu" and not args.dry_run:
        raise UsageError(f"{NO_TPU}; --dry-run prints a TPU's plan anyway")
    return "a TPU (dry run: none here)" if args.device == "tpu" else None


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``runners benchmark-script`` to the ``runners`` parser."""
    plan = sub.add_parser(
        "benchmark-script",
        help="print the shell script make site runs to benchmark this machine (GPU, TPU or CPU)",
        description="Print, as a shell script, what make site runs to benchmark this machine: where NVML sees an "
        "NVIDIA GPU (or --fake-gpu names one), build each framework's CUDA environment and run the quick matrix on "
        "the GPU through them; on a TPU VM (or with --device tpu --dry-run) install JAX's TPU build and torchax and "
        "run the quick matrix on the TPU; else the quick matrix on the CPU; one matrix per workload, with its budget "
        "or its share of the deadline. Writes nothing itself: the script's matrices write their records under --out.",
        **examples(
            "runners benchmark-script",
            "runners benchmark-script --fake-gpu 'NVIDIA H200' --cuda-driver 13.0",
            "runners benchmark-script --device tpu --dry-run",
        ),
    )
    plan.add_argument(
        "--fake-gpu",
        type=nvidia_gpu,
        metavar="NAME",
        help="plan for a machine with this NVIDIA GPU, named as NVML names it (with --cuda-driver)",
    )
    plan.add_argument("--cuda-driver", metavar="MAJOR.MINOR", help="the faked GPU's driver CUDA version, e.g. 13.0")
    plan.add_argument(
        "--device",
        choices=("auto", "cpu", "tpu"),
        default="auto",
        help="auto: the GPU where NVML sees one, else the TPU where one can be opened, else the CPU; tpu: a TPU's "
        "plan (an error where none can be opened, unless --dry-run); cpu: the CPU's plan (default auto)",
    )
    plan.add_argument(
        "--dry-run", action="store_true", help="with --device tpu: print a TPU's plan on a machine without one"
    )
    plan.add_argument(
        "--machine-id",
        action="store_true",
        help="print only the machine id the plan's matrices write under (the GPU's, else this CPU's), which make site "
        "gives generator build --this-machine",
    )
    plan.add_argument(
        "--out", type=Path, default=DEFAULT_RUNS_OUT, help="where the matrix writes (default %(default)s)"
    )
    plan.add_argument("--budget", type=positive_float, metavar="MINUTES", help="each matrix's --budget (default: none)")
    plan.add_argument(
        "--deadline",
        type=moment,
        metavar="TIME",
        help="the time the matrices must end by (ISO 8601 with its zone), shared equally among the workloads, "
        "each matrix's --deadline its share's end (make site's: its start + SITE_MINUTES, less the site's build)",
    )
    plan.add_argument(
        "--workloads",
        type=workload_list,
        default=(DEFAULT_WORKLOAD,),
        metavar="W1,W2",
        help=f"the workloads to run, a matrix each, from {', '.join(WORKLOADS)} (default {DEFAULT_WORKLOAD}: "
        "the article's ResNet-18; make site's SITE_WORKLOADS)",
    )
    plan.set_defaults(func=cmd_benchmark_script)
