"""``runners matrix``: a profile's configurations, each in a fresh process, here or on a Ray cluster, summarised.

The command reads its flags, builds the environments of other framework versions (``runners.envs.matrix``),
surveys the machines (``runners.matrix.survey``, ``runners.executors.ray_cluster``), runs the plan through an
executor (``runners.matrix.driver.run_matrix``, with its repeats and budget) and prints the summary
(``runners.matrix.summary``); with ``--dry-run`` it prints the plan instead (``runners.matrix.plan_preview``) and writes
nothing. The matrix's modules are imported only when the command runs: every ``runners run`` builds this parser too.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fwbench.cliargs import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    add_frameworks_flag,
    check_creatable,
    csv_of,
    ensure_writable,
    examples,
    framework_values,
    future_moment,
    non_negative_int,
    positive_float,
    positive_int,
)
from fwbench.frameworks import TRAINING_MODES
from runners.matrix.repeats import repeats_value
from runners.measure.config_flags import add_config_flags, check_device_here, chosen_profile, profile_overrides
from runners.measure.profile_devices import per_device
from runners.measure.profile_loading import load_profiles
from runners.measure.profiles import RunConfig

if TYPE_CHECKING:
    from runners.executors.boundary import Executor, Target
    from runners.matrix.budget import Budget


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
    from runners.envs.matrix import cuda_interpreters, matrix_versions
    from runners.envs.versions import parse_versions
    from runners.executors.local import LocalExecutor
    from runners.matrix.budget import Budget

    budget = Budget(args.budget, args.deadline)  # counted from here: building environments and surveying count too
    on_ray = check_executor_flags(args)
    if not on_ray:  # a cluster's GPUs are on its nodes, whatever this machine has
        check_device_here(args)
    overrides = profile_overrides(args)
    check_creatable(args.out, "--out")  # before any environment is built, and in a dry run too
    if args.placeholder_record:
        from runners.measure.placeholder_record import refuse_results_dir

        refuse_results_dir(args.out)
    profile, device = chosen_profile(args), args.device or "auto"
    local = LocalExecutor(
        pythons=parse_pythons(args.python, here=not on_ray),
        timeout_s=args.timeout or load_profiles()[profile]["timeout"],
        data_dir=args.data_dir and args.data_dir.absolute(),
        placeholder_records=args.placeholder_record,
        cuda=cuda_interpreters(device, on_ray),
    )
    to_build: list[str] = []  # --dry-run: the environments a matrix would build
    build = planned_build(to_build) if args.dry_run else None
    selection = {
        "versions": matrix_versions(parse_versions(args.versions), profile, args.frameworks, local, on_ray, build),
        "frameworks": args.frameworks,
        "modes": args.modes,
        "batch_sizes": args.batch_sizes,
        "seeds": args.seeds,
        **overrides,
    }
    if not on_ray:
        from runners.executors.boundary import Target
        from runners.matrix.order import interleaved_order
        from runners.matrix.survey import survey

        here = survey(local, profile, device, selection)
        plan = [(Target((here.hardware["machine_id"],), here.not_installed), interleaved_order(here.configs))]
        if args.dry_run:
            return print_preview(args, plan, budget, to_build)
        return run_and_summarise(args, plan, local, budget)
    from runners.executors.ray import RayExecutor
    from runners.executors.ray_cluster import cluster_line, plan_of, ray_session, survey_cluster

    with ray_session(args.ray_address):
        nodes = survey_cluster(local, profile, device, selection, args.accelerator_type)
        print(cluster_line(nodes), flush=True)
        return run_and_summarise(args, plan_of(nodes, args.per_kind), RayExecutor(local, nodes), budget)


def planned_build(to_build: list[str]):
    """A ``build`` for ``matrix_versions`` that builds nothing: it notes each environment not built yet in
    ``to_build`` and hands back where it would be (nothing runs in a dry run)."""
    from runners.envs import versions as envs

    def build(name: str, version: str, log=None) -> Path:
        if done := envs.built(name, version):
            return done
        to_build.append(f"{name} {version} in {envs.env_path(name, version)}")
        return envs.env_path(name, version)

    return build


def print_preview(args: argparse.Namespace, plan: list[tuple[Target, list[RunConfig]]], budget: Budget, to_build):
    """Print the plan of a dry run (``runners.matrix.plan_preview``); write nothing."""
    from runners.matrix.plan_preview import preview
    from runners.matrix.repeats import repeats_of

    check_plan(plan)
    ((target, order),) = plan
    repeats = repeats_of(load_profiles()[chosen_profile(args)], args.repeats)
    for line in preview(target, order, args.out, repeats, budget, to_build):
        print(line)
    return EXIT_OK


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
        from runners.executors.ray_cluster import RAY_EXTRA

        raise UsageError(
            f"--executor ray: Ray is not installed in {sys.executable}; install the extra (pip install '{RAY_EXTRA}')"
        )
    if args.dry_run:
        raise UsageError("--dry-run: only with the local executor (a cluster's plan is known once its nodes are)")
    return True


def check_plan(plan: list[tuple[Target, list[RunConfig]]]) -> None:
    """UsageError for a plan with no configuration, or with a batch larger than the training images."""
    configs = [config for _, order in plan for config in order]
    if not configs:
        raise UsageError("--frameworks/--modes: the selection leaves no configuration to run")
    too_big = [c for c in configs if c.epoch_train_images < c.batch_size]
    if too_big:
        raise UsageError(f"--batch-sizes {too_big[0].batch_size}: larger than --train-images {too_big[0].train_images}")


def run_and_summarise(
    args: argparse.Namespace, plan: list[tuple[Target, list[RunConfig]]], executor: Executor, budget: Budget
) -> int:
    """Run the matrices of ``plan`` (one per target) through ``executor``, with the profile's repeats (or
    ``--repeats``) within ``budget``; print the orders, then the summary."""
    from runners.matrix.driver import run_matrix
    from runners.matrix.order import order_line
    from runners.matrix.repeats import repeats_of
    from runners.matrix.summary import report
    from runners.measure.output_lock import output_lock

    check_plan(plan)
    ensure_writable(args.out)
    with output_lock(args.out):  # one matrix per folder (runners.measure.output_lock)
        for target, order in plan:
            print((f"{target.label}: " if len(plan) > 1 else "") + order_line(order), flush=True)
        repeats = repeats_of(load_profiles()[chosen_profile(args)], args.repeats)
        matrix = run_matrix(
            plan, args.out, executor, force=args.force, progress=not args.no_progress, repeats=repeats, budget=budget
        )
    for line in report(matrix, args.out):
        print(line)
    return EXIT_FAILURE if any(r.record and r.record["status"] != "ok" for r in matrix.results) else EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``runners matrix`` to the ``runners`` parser."""
    matrix = sub.add_parser(
        "matrix",
        help="run a profile's configurations, each in a fresh subprocess",
        description="Expand a profile (and the lists given) into configurations and run each "
        "in a fresh subprocess, on this machine or, with --executor ray, on the nodes of a Ray "
        "cluster, each record stored under the machine that ran it. Configurations with an ok "
        "record of the same framework version are skipped (resume); failures (OOM, exception, "
        "crash, timeout) become records and the matrix goes on. Configurations run in a Latin square "
        "over frameworks within each batch size, the first framework shifting by one from one batch "
        "size to the next and from one round to the next; each run records its place in that order. With "
        "--repeats auto (the "
        "quick profile's default) the configurations whose comparison at a batch size is still "
        "undecided in this sitting (the leader's throughput over the runner-up's, paired round by round: its 95 % "
        "interval neither beyond 1.05× nor within it, or n < 3; quick also compares, at its largest batch size, the "
        "warm runs' compile time and memory peak, which the choose page judges) run again, round after round, with "
        "warm compile caches, until it is decided or the cap is reached (max_repeats paired rounds in the sitting, "
        "both runs of a round on a quiet machine; at most twice as many runs in it), the smallest and largest "
        "batch size in the main precision (first runs and repeats) before the others (the middle batch sizes, an "
        "extra precision), so that a --budget too short for all decides those two; a repeat that the runs before "
        "it in its round made needless (its comparison decided) is not made. A matrix decides within its sitting "
        "(runs without an hour's pause, on one boot); its lines say whether earlier sittings' records decided the "
        "same. Every record carries what its matrix planned. The last lines say why the matrix stopped and how "
        "each comparison ended. A configuration's processes die with the matrix, also when it is killed.",
        **examples(
            "runners matrix",
            "runners matrix --profile quick --dry-run",
            "runners matrix --repeats 3 --budget 20",
            "runners matrix --deadline 2026-12-02T18:00:00+01:00",
            "runners matrix --precision bf16 --batch-sizes 32,256   # one precision alone, no extra precisions",
            "runners matrix --profile article --frameworks torch,jax --seeds 0,1,2",
            "runners matrix --python jax=/opt/jax/bin/python --timeout 900",
            "runners matrix --profile versions",
            "runners matrix --versions torch=2.2.1,installed --versions jax=0.4.26,installed --batch-sizes 32",
            "runners matrix --executor ray --ray-address auto --profile article --per-kind",
        ),
    )
    add_frameworks_flag(matrix)
    quick = load_profiles()["quick"]  # the default profile, whose lists the help quotes

    def listed(field: str) -> str:
        value = quick[field]
        values = (
            "; ".join(f"{device}: {','.join(map(str, v))}" for device, v in value.items())
            if per_device(value)
            else ",".join(map(str, value))
        )
        return f"default: the profile's; quick: {values}"

    matrix.add_argument(
        "--modes",
        type=csv_of(str, TRAINING_MODES),
        metavar="A,B",
        help=f"comma-separated, from {', '.join(TRAINING_MODES)} ({listed('modes')})",
    )
    matrix.add_argument(
        "--batch-sizes",
        type=csv_of(positive_int),
        metavar="A,B",
        help=f"comma-separated, e.g. 32,256; no extra precisions then ({listed('batch_sizes')})",
    )
    matrix.add_argument("--seeds", type=csv_of(non_negative_int), metavar="A,B", help=f"e.g. 0,1,2 ({listed('seeds')})")
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
        "--repeats",
        type=repeats_value,
        metavar="N|auto",
        help="runs of each configuration: N, or auto: again while its comparison is undecided, until the "
        "profile's max_repeats of its runs count, at most twice as many in all (default: the profile's; quick: "
        "auto, 5 that count, at most 10)",
    )
    matrix.add_argument(
        "--budget",
        type=positive_float,
        metavar="MINUTES",
        help="start no run that would end past this many minutes (expected from this machine's records, else the "
        "profile's guess); run the command again to go on where it stopped",
    )
    matrix.add_argument(
        "--deadline",
        type=future_moment,
        metavar="TIME",
        help="start no run that would end past this time (ISO 8601 with its zone: 2026-12-02T15:00:00Z); make site "
        "gives its own, so that its set-up and probes count too; with --budget, the nearer one stops the matrix",
    )
    matrix.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (configurations, repeats, environments to build, a time estimate) and write nothing",
    )
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
    # runners.measure.placeholder_record: every run writes a record without training, to test the executors
    matrix.add_argument("--placeholder-record", action="store_true", help=argparse.SUPPRESS)
    add_config_flags(
        matrix,
        default_profile="quick",
        precision_default="the profile's, and its extra precisions unless --batch-sizes is given; quick: fp32 on a "
        "CPU, default on a GPU or TPU, and bf16 at batch 32 (on a TPU bf16 at every batch size, fp32 at 256)",
    )
    matrix.set_defaults(func=cmd_matrix)
