"""``runners run``: one configuration measured in this process, its record written (usage errors as
``runners.cli`` says: one line naming the flag, exit 2, nothing written)."""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from fwbench.cliargs import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    aliases_text,
    check_creatable,
    ensure_writable,
    examples,
    framework_name,
    non_negative_int,
)
from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES, framework
from fwbench.records import write_record
from fwbench.tuning import tuning_environment
from runners.frameworks.trainer import check_mode
from runners.measure import provenance
from runners.measure.config_flags import (
    NUMBER_FIELDS,
    PROFILE_FLAGS,
    add_config_flags,
    check_device_here,
    chosen_profile,
    profile_overrides,
)
from runners.measure.profile_devices import for_device
from runners.measure.profile_loading import load_profiles, profile
from runners.measure.profiles import RunConfig, expand, given_overrides


def register(sub) -> None:
    """Add ``runners run`` to the subcommands ``sub``."""
    run = sub.add_parser(
        "run",
        help="measure one configuration in this process and write one run record",
        description="Train one configuration here and write one fwbench.run/3 record. Timing "
        "covers training steps only (data resident on the device before the clock); compile time "
        "is its own figure; evaluation runs after each epoch, outside the clock.",
        **examples(
            "runners run --framework torch",
            "runners run --framework jax --profile quick --batch-size 64 --device cpu",
            "runners run --framework tensorflow --precision bf16   # bfloat16 mixed precision",
            'runners run --config-json "$(cat config.json)"   # a whole configuration, as the matrix passes it',
        ),
    )
    run.add_argument(
        "--framework",
        type=framework_name,
        metavar="FRAMEWORK",
        help=f"the one framework to measure, from {', '.join(FRAMEWORKS)} ({aliases_text()}; required without "
        "--config-json)",
    )
    run.add_argument(
        "--mode",
        choices=TRAINING_MODES,
        help="compiled: torch.compile / tf.function(jit_compile=True) / jax.jit; eager: the "
        "framework's baseline (not JAX) (default compiled)",
    )
    run.add_argument(
        "--batch-size",
        type=NUMBER_FIELDS["batch_size"],
        help="images (the GPT: sequences) per step (default: the profile's first for the device; smoke: 32, "
        "smoke-gpt: 8)",
    )
    run.add_argument("--seed", type=NUMBER_FIELDS["seed"], help="weights init and data order (default 0)")
    run.add_argument(
        "--config-json",
        metavar="JSON",
        help="the whole configuration as RunConfig's JSON (how runners matrix passes it), instead of --framework, "
        "--mode, --batch-size, --seed, --profile and the flags that override a profile; its framework version and "
        "tuning variables must be this interpreter's",
    )
    run.add_argument(
        "--run-position",
        type=run_position,
        metavar="K/N",
        help="this configuration's place in a matrix's execution order (set by runners matrix)",
    )
    run.add_argument(
        "--dry-run", action="store_true", help="print the configuration and where its record would go; run nothing"
    )
    # runners.measure.placeholder_record: a record written without training, to test the executors
    run.add_argument("--placeholder-record", action="store_true", help=argparse.SUPPRESS)
    run.add_argument(
        "--quiet-wait",
        type=non_negative_int,
        metavar="SECONDS",
        help="wait up to SECONDS for other processes to leave the CPUs before starting; the run starts "
        "anyway after that and its record says busy (default: the profile's; 0: never wait)",
    )
    run.add_argument(
        "--compile-cache",
        type=Path,
        metavar="DIR",
        help="keep the framework's compiler caches in DIR, shared by the runs given the same DIR: a run that finds "
        "its framework's entries there records its compile as warm (PyTorch's Inductor and Triton caches, JAX's "
        "persistent cache, XLA's persistent cache in TensorFlow) (default: a fresh temporary directory, a cold "
        "compile)",
    )
    add_config_flags(
        run,
        default_profile="smoke",
        precision_default="the profile's; smoke: fp32; quick: fp32 on a CPU, default on a GPU or TPU",
    )
    run.set_defaults(func=cmd_run)


#: flag → ``argparse`` destination of every flag that chooses ``runners run``'s configuration (``--config-json``
#: replaces them all)
RUN_CONFIG_FLAGS = {
    "--framework": "framework",
    "--mode": "mode",
    "--batch-size": "batch_size",
    "--seed": "seed",
    "--profile": "profile",
    "--workload": "workload",
    **PROFILE_FLAGS,
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


def run_config(args: argparse.Namespace) -> RunConfig:
    """The configuration ``runners run`` measures: ``--config-json``'s as it is (what the matrix passes), else the
    profile's after the flags. UsageError naming the flag for one that cannot run here."""
    if args.config_json is None:
        if args.framework is None:
            raise UsageError("--framework: required (or --config-json)")
        check_runnable(args.framework, args.mode or "compiled")
        check_device_here(args)
        name, overrides = chosen_profile(args), profile_overrides(args)
        (config,) = expand(
            name,
            frameworks=[args.framework],
            modes=[args.mode or "compiled"],
            batch_sizes=[
                args.batch_size or for_device({**profile(name), **given_overrides(overrides)}, "batch_sizes")[0]
            ],
            seeds=[args.seed or 0],
            extra_precisions={},  # one configuration: the profile's precision, or --precision's
            **overrides,
        )
        return config
    flags_given = [flag for flag, dest in RUN_CONFIG_FLAGS.items() if getattr(args, dest) is not None]
    if flags_given:
        raise UsageError(f"{flags_given[0]}: not with --config-json, which holds the whole configuration")
    try:
        config = RunConfig.from_json(args.config_json)
        framework(config.framework)
        profile(config.profile)
        for field, check in NUMBER_FIELDS.items():  # as the field's flag would check it
            try:
                check(str(getattr(config, field)))
            except argparse.ArgumentTypeError as exc:
                raise ValueError(f"{field}: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"--config-json: {exc}") from None
    check_runnable(config.framework, config.mode)
    here = provenance.framework_version(config.framework), tuple(tuning_environment().items())
    if here != (config.framework_version, config.tuning):  # the record would misstate what ran
        raise UsageError(
            f"--config-json: {config.framework} {config.framework_version} with tuning {dict(config.tuning)}, but "
            f"this interpreter has {config.framework} {here[0]} with tuning {dict(here[1])}"
        )
    return config


def check_runnable(name: str, mode: str) -> None:
    """UsageError unless framework ``name`` trains in ``mode`` and is installed in this interpreter."""
    try:
        check_mode(name, mode)
    except ValueError as exc:
        raise UsageError(f"--mode {mode}: {exc}") from None
    if not findable(framework(name).import_name):
        raise UsageError(f"--framework {name}: not installed in {sys.executable}")


def findable(module: str) -> bool:
    """Whether the dotted ``module`` can be imported here, found without importing it or its parents: importing
    flax (for ``flax.nnx``) would import JAX before ``runners.measure.run`` sets JAX's environment, which JAX reads
    once, on import (its compilation cache among it)."""
    top, *parts = module.split(".")
    spec = importlib.util.find_spec(top)
    for depth in range(1, len(parts) + 1):
        if spec is None or spec.submodule_search_locations is None:
            return False
        name = ".".join([top, *parts[:depth]])
        spec = importlib.machinery.PathFinder.find_spec(name, spec.submodule_search_locations)
    return spec is not None


def cmd_run(args: argparse.Namespace) -> int:
    """Measure one configuration in this process and write its record; print the record's path."""
    config = run_config(args)
    outputs = {"--out": args.out, "--compile-cache": args.compile_cache}
    for flag, directory in outputs.items():  # all of them, before any is created (the dry run's too)
        if directory is not None:
            check_creatable(directory, flag)
    if args.dry_run:
        return preview_run(config, args.out)
    if args.placeholder_record:
        from runners.measure.placeholder_record import refuse_results_dir

        refuse_results_dir(args.out)
    for flag, directory in outputs.items():
        if directory is not None:
            ensure_writable(directory, flag)
    from runners.measure.output_lock import output_lock
    from runners.measure.record import record_path, run_order
    from runners.measure.run import measure_or_fail

    quiet_wait = load_profiles()[config.profile]["quiet_wait_seconds"] if args.quiet_wait is None else args.quiet_wait
    order = run_order(*args.run_position) if args.run_position else None
    with output_lock(args.out):  # one writer per folder (runners.measure.output_lock)
        if args.placeholder_record:
            from runners.measure.placeholder_record import placeholder_record

            record = placeholder_record(config, order)
        else:
            record = measure_or_fail(
                config,
                args.data_dir,
                progress=not args.no_progress,
                run_order=order,
                quiet_wait_s=quiet_wait,
                compile_cache=args.compile_cache,
            )
        path = write_record(record_path(args.out, record["hardware"]["machine_id"], config), record)
    if record["status"] != "ok" and not args.placeholder_record:  # the reason first: the record is where the detail is
        failure = record["failure"]
        print(f"runners run: {record['status']}: {failure['exception_type']}: {failure['message']}", file=sys.stderr)
    print(path)
    return EXIT_OK if record["status"] == "ok" else EXIT_FAILURE


def preview_run(config, out: Path) -> int:
    """``runners run --dry-run``: the configuration that would run and where its record would go; writes nothing."""
    from runners.measure.provenance import hardware_for
    from runners.measure.record import record_path

    print(f"dry run: nothing runs and nothing is written\nconfiguration: {config.to_json()}")
    print(f"record: {record_path(out, hardware_for(config.device)['machine_id'], config)}")
    return EXIT_OK
