"""The ``runners`` console script: ``run``, ``matrix``, ``env``, ``envs`` and ``probes``.

Usage errors (unknown framework, mode or profile, a batch size that is not a positive integer, an
unwritable output directory, a framework missing from the interpreter) print one line naming the
flag and exit with code 2, having written nothing; a failed run or data that cannot be had exits 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fwbench.cliargs import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_frameworks_flag,
    csv_of,
    ensure_writable,
    examples,
    framework_values,
    non_negative_int,
    positive_float,
    positive_int,
)
from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES, framework
from fwbench.records import write_record
from fwbench.time_breakdown import breakdown_line, time_breakdown
from fwbench.tuning import tuning_environment
from runners import data, provenance
from runners.frameworks.trainer import check_mode
from runners.profiles import DATASETS, DEVICES, RunConfig, expand, load_profiles

if TYPE_CHECKING:
    from runners.matrix import Executor, LocalExecutor, Target

DEFAULT_RUNS_OUT = Path("results/runs")


def add_config_flags(parser: argparse.ArgumentParser, many: bool) -> None:
    """Flags shared by ``run`` (one value each) and ``matrix`` (comma-separated lists)."""
    profiles = tuple(load_profiles())
    parser.add_argument(
        "--profile",
        default="quick" if many else "smoke",
        choices=profiles,
        help="profile whose settings are the defaults (%(choices)s; default %(default)s)",
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
        help="training images requested per epoch; the epoch "
        "trains the whole batches among them (default: the profile's; quick: 256 on a CPU, 8,192 on "
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
        default="auto",
        help="auto: the GPU when the framework sees one, else CPU; a device-sized profile (quick) "
        "takes its GPU sizes when NVML sees a GPU (default auto)",
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


def profile_overrides(args: argparse.Namespace) -> dict:
    """The flags shared by ``run`` and ``matrix`` that override the profile (None: the profile's)."""
    return {
        "dataset": args.dataset,
        "epochs": args.epochs,
        "train_images": args.train_images,
        "test_images": args.test_images,
        "device": None if args.device == "auto" else args.device,
    }


def run_position(text: str) -> tuple[int, int]:
    """``--run-position K/N``: the configuration's 1-based place K among the N a matrix runs."""
    position, _, total = text.partition("/")
    try:
        position, total = int(position), int(total)
    except ValueError:
        position = total = 0
    if not 1 <= position <= total:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N (e.g. 3/12), got {text!r}")
    return position, total


def cmd_run(args: argparse.Namespace) -> int:
    """Measure one configuration in this process and write its record; print the record's path."""
    try:
        check_mode(args.framework, args.mode)
    except ValueError as exc:
        raise UsageError(f"--mode {args.mode}: {exc}") from None
    if importlib.util.find_spec(framework(args.framework).import_name) is None:
        raise UsageError(f"--framework {args.framework}: not installed in {sys.executable}")
    if args.dry_run:
        from runners.dry_run import refuse_results_dir

        refuse_results_dir(args.out)
    ensure_writable(args.out)
    (config,) = expand(
        args.profile,
        frameworks=[args.framework],
        modes=[args.mode],
        batch_sizes=[args.batch_size],
        seeds=[args.seed],
        **profile_overrides(args),
    )
    if config.train_images < config.batch_size:
        raise UsageError(f"--batch-size {config.batch_size}: larger than --train-images {config.train_images}")
    from runners.record import record_path, run_order
    from runners.run import measure_or_fail

    quiet_wait = load_profiles()[args.profile]["quiet_wait_seconds"] if args.quiet_wait is None else args.quiet_wait
    order = run_order(*args.run_position) if args.run_position else None
    if args.dry_run:
        from runners.dry_run import dry_run_record

        record = dry_run_record(config, order)
    else:
        record = measure_or_fail(
            config, args.data_dir, progress=not args.no_progress, run_order=order, quiet_wait_s=quiet_wait
        )
    path = write_record(record_path(args.out, record["hardware"]["machine_id"], config), record)
    print(path)
    return EXIT_OK if record["status"] == "ok" else EXIT_FAILURE


def parse_pythons(values: list[str], here: bool = True) -> dict[str, str]:
    """``--python FRAMEWORK=PATH`` values as {framework: interpreter}; UsageError for a bad one, or for a path that
    is no file when the interpreters are ``here`` (not on the nodes of a cluster)."""
    pythons = dict(framework_values(values, "--python", "FRAMEWORK=/path/to/python"))
    for name, path in pythons.items():
        if here and not Path(path).is_file():
            raise UsageError(f"--python {f'{name}={path}'!r}: no interpreter at {path}")
    return pythons


def cmd_matrix(args: argparse.Namespace) -> int:
    """Run a profile's configurations, each in a fresh process, here or on a Ray cluster; resume what is done;
    summarise."""
    from runners.matrix import LocalExecutor, survey

    on_ray = check_executor_flags(args)
    if args.dry_run:
        from runners.dry_run import refuse_results_dir

        refuse_results_dir(args.out)
    local = LocalExecutor(
        pythons=parse_pythons(args.python, here=not on_ray),
        timeout_s=args.timeout or load_profiles()[args.profile]["timeout"],
        data_dir=args.data_dir and args.data_dir.absolute(),
        dry_run=args.dry_run,
    )
    selection = {
        "versions": framework_versions(args, local, on_ray),
        "frameworks": args.frameworks,
        "modes": args.modes,
        "batch_sizes": args.batch_sizes,
        "seeds": args.seeds,
        **profile_overrides(args),
    }
    if not on_ray:
        from runners.matrix import Target, interleaved_order

        here = survey(local, args.profile, args.device, selection)
        plan = [(Target((here.hardware["machine_id"],), here.not_installed), interleaved_order(here.configs))]
        return run_and_summarise(args, plan, local)
    from runners.ray_executor import RayExecutor, cluster_line, plan_of, ray_session, survey_cluster

    with ray_session(args.ray_address):
        nodes = survey_cluster(local, args.profile, args.device, selection, args.accelerator_type)
        print(cluster_line(nodes), flush=True)
        return run_and_summarise(args, plan_of(nodes, args.per_kind), RayExecutor(local, nodes))


def framework_versions(args: argparse.Namespace, local: LocalExecutor, on_ray: bool) -> dict[str, list] | None:
    """The versions of each framework the matrix runs (``--versions``, else the profile's ``versions``), None for
    the installed ones only. Builds the environments they need first, into ``local.interpreters``; UsageError for
    a version that cannot be had, before any run starts."""
    from runners import envs
    from runners.envs_cli import parse_versions

    requested = parse_versions(args.versions)
    profile_versions = load_profiles()[args.profile].get("versions")
    if not requested and profile_versions:
        requested = {name: list(profile_versions) for name in args.frameworks or FRAMEWORKS}
    if not requested:
        return None
    if on_ray:
        raise UsageError("--versions: only with the local executor (the environments are built on this machine)")
    versions = {}
    try:
        for name, wanted in requested.items():
            resolved = envs.resolve(name, wanted, local.framework_version(name))
            for version, own_environment in resolved:
                if version is None:
                    raise UsageError(
                        f"--versions {name}={envs.INSTALLED}: {name} is not installed in {local.python_for(name)}"
                    )
                if own_environment:
                    python = envs.build(name, version, log=lambda line: print(line, flush=True))
                    local.interpreters[name, version] = str(python)
            versions[name] = [version for version, _ in resolved]
    except envs.EnvError as exc:
        raise UsageError(f"--versions: {exc}") from None
    return versions


def check_executor_flags(args: argparse.Namespace) -> bool:
    """Whether the matrix runs on Ray; UsageError for a Ray flag without ``--executor ray``, or for ``--executor
    ray`` where Ray is not installed."""
    if args.executor != "ray":
        given = [
            flag
            for flag, value in (
                ("--ray-address", args.ray_address),
                ("--per-kind", args.per_kind),
                ("--accelerator-type", args.accelerator_type),
            )
            if value
        ]
        if given:
            raise UsageError(f"{given[0]}: only with --executor ray")
        return False
    if importlib.util.find_spec("ray") is None:
        from runners.ray_executor import RAY_EXTRA

        raise UsageError(
            f"--executor ray: Ray is not installed in {sys.executable}; install the extra (pip install '{RAY_EXTRA}')"
        )
    return True


def run_and_summarise(args: argparse.Namespace, plan: list[tuple[Target, list[RunConfig]]], executor: Executor) -> int:
    """Run the matrices of ``plan`` (one per target) through ``executor``; print the orders, then the summary."""
    from runners.matrix import node_lines, order_line, run_matrix, side_by_side, summary_table

    configs = [config for _, order in plan for config in order]
    if not configs:
        raise UsageError("--frameworks/--modes: the selection leaves no configuration to run")
    too_big = [c for c in configs if c.train_images < c.batch_size]
    if too_big:
        raise UsageError(f"--batch-sizes {too_big[0].batch_size}: larger than --train-images {too_big[0].train_images}")
    ensure_writable(args.out)
    for target, order in plan:
        print((f"{target.label}: " if len(plan) > 1 else "") + order_line(order), flush=True)
    results = run_matrix(plan, args.out, executor, force=args.force, progress=not args.no_progress)
    print(summary_table(results))
    records = [r.record for r in results if r.record]
    failed = [r for r in records if r["status"] != "ok"]
    print(
        f"{len(results)} configurations: {len(records) - len(failed)} ok, {len(failed)} failed, "
        f"{len(results) - len(records)} skipped; records in {args.out}"
    )
    for line in node_lines(results):
        print(line)
    ran = [r.record for r in results if r.record and not r.note]  # not the resumed: their time was spent before
    if ran and not side_by_side(ran):  # the breakdown adds up the time of runs made one after the other
        print(f"time of the runs made now: {breakdown_line(time_breakdown(ran))}")
    return EXIT_FAILURE if failed else EXIT_OK


def cmd_env(args: argparse.Namespace) -> int:
    """Print this machine's provenance (hardware, software, tuning variables set) as JSON."""
    print(
        json.dumps(
            {
                "hardware": provenance.hardware_info(),
                "software": provenance.software_info(),
                "tuning_environment": tuning_environment(),
            },
            indent=2,
        )
    )
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all ``runners`` subcommands."""
    parser = argparse.ArgumentParser(
        prog="runners",
        description="Benchmark the same CIFAR-10 ResNet-18 in PyTorch, TensorFlow and JAX, and probe their errors.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="measure one configuration in this process and write one run record",
        description="Train one configuration here and write one fwbench.run/2 record. Timing "
        "covers training steps only (data resident on the device before the clock); compile time "
        "is its own figure; evaluation runs after each epoch, outside the clock.",
        **examples(
            "runners run --framework torch", "runners run --framework jax --profile quick --batch-size 64 --device cpu"
        ),
    )
    run.add_argument("--framework", required=True, choices=FRAMEWORKS, help="the one framework to measure")
    run.add_argument(
        "--mode",
        default="compiled",
        choices=TRAINING_MODES,
        help="compiled: torch.compile / tf.function(jit_compile=True) / jax.jit; eager: the "
        "framework's baseline (not JAX)",
    )
    run.add_argument("--batch-size", type=positive_int, default=32)
    run.add_argument("--seed", type=non_negative_int, default=0, help="weights init and data order (default 0)")
    run.add_argument(
        "--run-position",
        type=run_position,
        metavar="K/N",
        help="this configuration's place in a matrix's execution order (set by runners matrix)",
    )
    run.add_argument("--dry-run", action="store_true", help=argparse.SUPPRESS)  # runners.dry_run: no training
    run.add_argument(
        "--quiet-wait",
        type=non_negative_int,
        metavar="SECONDS",
        help="wait up to SECONDS for other processes to leave the CPUs before starting; the run starts "
        "anyway after that and its record says busy (default: the profile's; 0: never wait)",
    )
    add_config_flags(run, many=False)
    run.set_defaults(func=cmd_run)

    matrix = sub.add_parser(
        "matrix",
        help="run a profile's configurations, each in a fresh subprocess",
        description="Expand a profile (and the lists given) into configurations and run each "
        "in a fresh subprocess, on this machine or, with --executor ray, on the nodes of a Ray "
        "cluster, each record stored under the machine that ran it. Configurations with an ok "
        "record of the same framework version are skipped (resume); failures (OOM, exception, "
        "crash, timeout) become records and the matrix goes on. Configurations run round-robin "
        "over frameworks within each batch size, the first framework rotating from one batch "
        "size to the next; each run records its place in that order. A configuration's processes "
        "die with the matrix, also when it is killed.",
        **examples(
            "runners matrix",
            "runners matrix --profile article --frameworks torch,jax --seeds 0,1,2",
            "runners matrix --python jax=/opt/jax/bin/python --timeout 900",
            "runners matrix --profile versions",
            "runners matrix --versions torch=2.2.1,installed --versions jax=0.4.26,installed --batch-sizes 32",
            "runners matrix --executor ray --ray-address auto --profile article --per-kind",
        ),
    )
    add_frameworks_flag(matrix)
    matrix.add_argument("--modes", type=csv_of(str, TRAINING_MODES), metavar="A,B", help="e.g. compiled,eager")
    matrix.add_argument("--batch-sizes", type=csv_of(positive_int), metavar="A,B", help="e.g. 32,64,128,256")
    matrix.add_argument("--seeds", type=csv_of(non_negative_int), metavar="A,B", help="e.g. 0,1,2")
    matrix.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="FRAMEWORK=PATH",
        help="interpreter for one framework (repeatable); default the current one",
    )
    matrix.add_argument(
        "--versions",
        action="append",
        default=[],
        metavar="FRAMEWORK=V1,V2",
        help="run these versions of a framework side by side (repeatable), each other than the installed one in "
        "an environment of its own (runners envs), built first when missing; a version is a release, 'article' or "
        "'installed' (default: the profile's versions, else the installed ones)",
    )
    matrix.add_argument(
        "--timeout", type=positive_float, metavar="SECONDS", help="per configuration (default: the profile's)"
    )
    matrix.add_argument("--force", action="store_true", help="rerun configurations that already have ok records")
    matrix.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local: one configuration at a time on this machine (default); ray: on the nodes of a "
        "Ray cluster, one GPU (or one CPU-only node) per configuration, several at once; needs the "
        "extra fwbench[ray]",
    )
    matrix.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster to run on (auto: the one started on this machine; default $RAY_ADDRESS, "
        "else a Ray instance started on this machine for the run)",
    )
    matrix.add_argument(
        "--accelerator-type",
        metavar="KIND",
        help="only the nodes with this GPU kind (Ray's accelerator_type, e.g. H100)",
    )
    matrix.add_argument(
        "--per-kind",
        action="store_true",
        help="run the whole matrix once on every machine kind of the cluster (nodes of one machine id are one kind)",
    )
    matrix.add_argument("--dry-run", action="store_true", help=argparse.SUPPRESS)  # runners.dry_run: no training
    add_config_flags(matrix, many=True)
    matrix.set_defaults(func=cmd_matrix)

    env = sub.add_parser(
        "env",
        help="print this machine's hardware and software provenance as JSON",
        description="Print the hardware, software and tuning variables a record made here would carry, as JSON.",
        **examples("runners env", "runners env > machine.json"),
    )
    env.set_defaults(func=cmd_env)
    from runners.envs_cli import register as register_envs
    from runners.probes.cli import register as register_probes

    register_envs(sub)
    register_probes(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``runners`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"runners {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except data.DataError as exc:  # CIFAR-10 cannot be downloaded or read: a failure, nothing the flags can fix
        print(f"runners {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"runners {args.command}: interrupted; finished records are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # The matrix runs each configuration as ``python -m runners.cli run``. Once the record is on disk, the
    # frameworks' interpreter teardown (Inductor's compile workers, TF's thread pools) only delays the next
    # configuration, by up to 2.4 s on a 2-core CPU: flush and leave without it.
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
