"""The ``runners`` console script: ``run``, ``matrix``, ``env`` and ``probes``.

Usage errors (unknown framework, mode or profile, a batch size that is not a positive integer, an
unwritable output directory, a framework missing from the interpreter) print one line naming the
flag and exit with code 2, having written nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from fwbench.cliargs import non_negative_int, positive_int
from fwbench.records import write_record
from runners import data, provenance
from runners.frameworks import FRAMEWORKS, IMPORT_NAMES, MODES
from runners.profiles import DATASETS, DEVICES, expand, load_profiles

DEFAULT_RUNS_OUT = Path("results/runs")


class UsageError(ValueError):
    """Bad command-line input; the message names the flag."""


def csv_of(kind, allowed: tuple[str, ...] | None = None):
    """An argparse type for comma-separated values, each checked by ``kind`` and ``allowed``."""
    def parse(text: str) -> list:
        items = [kind(part.strip()) for part in text.split(",") if part.strip()]
        bad = [i for i in items if allowed and i not in allowed]
        if not items or bad:
            raise argparse.ArgumentTypeError(f"unknown value(s) {', '.join(map(str, bad)) or repr(text)}; "
                                             f"choose from {', '.join(allowed or ())}")
        return items
    return parse


def ensure_writable(directory: Path) -> None:
    """Create ``directory`` if needed and check a file can be written there, else UsageError naming --out."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise UsageError(f"--out: cannot write to {directory} ({exc.strerror or exc})") from exc


def add_config_flags(parser: argparse.ArgumentParser, many: bool) -> None:
    """Flags shared by ``run`` (one value each) and ``matrix`` (comma-separated lists)."""
    profiles = tuple(load_profiles())
    parser.add_argument("--profile", default="quick" if many else "smoke", choices=profiles,
                        help="profile whose settings are the defaults (%(choices)s; default %(default)s)")
    parser.add_argument("--dataset", choices=DATASETS, help="cifar10 (downloaded or found under --data-dir) or "
                        "synthetic (offline, CIFAR-shaped, never compared with CIFAR-10)")
    parser.add_argument("--epochs", type=positive_int, help="timed epochs (default: the profile's)")
    parser.add_argument("--train-images", type=positive_int, help="training images requested per epoch; the epoch "
                        "trains the whole batches among them (default: the profile's; quick: 256 on a CPU, 8,192 on "
                        "a GPU)")
    parser.add_argument("--test-images", type=positive_int, help="test images evaluated after each epoch (default: "
                        "the profile's; quick: 128 on a CPU, 1,024 on a GPU)")
    parser.add_argument("--device", choices=DEVICES, default="auto",
                        help="auto: the GPU when the framework sees one, else CPU; a device-sized profile (quick) "
                        "takes its GPU sizes when NVML sees a GPU (default auto)")
    parser.add_argument("--data-dir", type=Path, help=f"where CIFAR-10 is looked for and downloaded "
                        f"(default ${data.DATA_DIR_ENV} or ~/.cache/fwbench/data)")
    parser.add_argument("--out", type=Path, default=DEFAULT_RUNS_OUT,
                        help="results directory; records go to OUT/<machine>/<record>.json (default %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def profile_overrides(args: argparse.Namespace) -> dict:
    return {"dataset": args.dataset, "epochs": args.epochs, "train_images": args.train_images,
            "test_images": args.test_images, "device": None if args.device == "auto" else args.device}


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
    if args.mode not in MODES[args.framework]:
        raise UsageError(f"--mode {args.mode}: {args.framework} has only {', '.join(MODES[args.framework])}")
    if importlib.util.find_spec(IMPORT_NAMES[args.framework]) is None:
        raise UsageError(f"--framework {args.framework}: not installed in {sys.executable}")
    ensure_writable(args.out)
    (config,) = expand(args.profile, frameworks=[args.framework], modes=[args.mode], batch_sizes=[args.batch_size],
                       seeds=[args.seed], **profile_overrides(args))
    if config.train_images < config.batch_size:
        raise UsageError(f"--batch-size {config.batch_size}: larger than --train-images {config.train_images}")
    from runners.record import record_path, run_order
    from runners.run import measure_or_fail

    quiet_wait = load_profiles()[args.profile]["quiet_wait_seconds"] if args.quiet_wait is None else args.quiet_wait
    record = measure_or_fail(config, args.data_dir, progress=not args.no_progress,
                             run_order=run_order(*args.run_position) if args.run_position else None,
                             quiet_wait_s=quiet_wait)
    path = write_record(record_path(args.out, record["hardware"]["machine_id"], config), record)
    print(path)
    return 0 if record["status"] == "ok" else 1


def parse_pythons(values: list[str]) -> dict[str, str]:
    pythons = {}
    for value in values:
        framework, sep, path = value.partition("=")
        if not sep or framework not in FRAMEWORKS or not path:
            raise UsageError(f"--python {value!r}: expected FRAMEWORK=/path/to/python with FRAMEWORK one of "
                             f"{', '.join(FRAMEWORKS)}")
        if not Path(path).is_file():
            raise UsageError(f"--python {value!r}: no interpreter at {path}")
        pythons[framework] = path
    return pythons


def cmd_matrix(args: argparse.Namespace) -> int:
    """Run a profile's configurations, each in a fresh subprocess; resume what is done; summarise."""
    from runners.matrix import (
        LocalExecutor,
        breakdown_line,
        interleaved_order,
        order_line,
        run_matrix,
        summary_table,
        time_breakdown,
    )

    pythons = parse_pythons(args.python)
    ensure_writable(args.out)
    configs = expand(args.profile, frameworks=args.frameworks, modes=args.modes, batch_sizes=args.batch_sizes,
                     seeds=args.seeds, **profile_overrides(args))
    if not configs:
        raise UsageError("--frameworks/--modes: the selection leaves no configuration to run")
    too_big = [c for c in configs if c.train_images < c.batch_size]
    if too_big:
        raise UsageError(f"--batch-sizes {too_big[0].batch_size}: larger than --train-images "
                         f"{too_big[0].train_images}")
    timeout = args.timeout or load_profiles()[args.profile]["timeout"]
    executor = LocalExecutor(pythons=pythons, timeout_s=timeout, data_dir=args.data_dir)
    order = interleaved_order(configs)
    print(order_line(order), flush=True)
    results = run_matrix(order, args.out, executor, force=args.force, progress=not args.no_progress)
    print(summary_table(results))
    failed = [r for _, r, _ in results if r and r["status"] != "ok"]
    print(f"{len(results)} configurations: {sum(1 for _, r, _ in results if r and r['status'] == 'ok')} ok, "
          f"{len(failed)} failed, {sum(1 for _, r, _ in results if r is None)} skipped; records in {args.out}")
    ran = [r for _, r, note in results if r and not note]  # not the resumed ones: their time was spent before
    if ran:
        print(f"time of the runs made now: {breakdown_line(time_breakdown(ran))}")
    return 1 if failed else 0


def cmd_env(args: argparse.Namespace) -> int:
    """Print this machine's provenance (hardware, software, tuning variables set) as JSON."""
    print(json.dumps({"hardware": provenance.hardware_info(), "software": provenance.software_info(),
                      "tuning_environment": provenance.tuning_environment()}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all ``runners`` subcommands."""
    parser = argparse.ArgumentParser(
        prog="runners",
        description="Benchmark the same CIFAR-10 ResNet-18 in PyTorch, TensorFlow and JAX, and probe their errors.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="measure one configuration in this process and write one run record",
                         description="Train one configuration here and write one fwbench.run/2 record. Timing "
                         "covers training steps only (data resident on the device before the clock); compile time "
                         "is its own figure; evaluation runs after each epoch, outside the clock.")
    run.add_argument("--framework", required=True, choices=FRAMEWORKS)
    run.add_argument("--mode", default="compiled", choices=("compiled", "eager"),
                     help="compiled: torch.compile / tf.function(jit_compile=True) / jax.jit; eager: the "
                     "framework's baseline (not JAX)")
    run.add_argument("--batch-size", type=positive_int, default=32)
    run.add_argument("--seed", type=non_negative_int, default=0, help="weights init and data order (default 0)")
    run.add_argument("--run-position", type=run_position, metavar="K/N",
                     help="this configuration's place in a matrix's execution order (set by runners matrix)")
    run.add_argument("--quiet-wait", type=non_negative_int, metavar="SECONDS",
                     help="wait up to SECONDS for other processes to leave the CPUs before starting; the run starts "
                     "anyway after that and its record says busy (default: the profile's; 0: never wait)")
    add_config_flags(run, many=False)
    run.set_defaults(func=cmd_run)

    matrix = sub.add_parser("matrix", help="run a profile's configurations, each in a fresh subprocess",
                            description="Expand a profile (and the lists given) into configurations and run each "
                            "in a fresh subprocess. Configurations with an ok record are skipped (resume); failures "
                            "(OOM, exception, crash, timeout) become records and the matrix goes on. Configurations "
                            "run round-robin over frameworks within each batch size, the first framework rotating "
                            "from one batch size to the next; each run records its place in that order. A "
                            "configuration's processes die with the matrix, also when it is killed.")
    matrix.add_argument("--frameworks", type=csv_of(str, FRAMEWORKS), help="e.g. torch,jax (default: profile)")
    matrix.add_argument("--modes", type=csv_of(str, ("compiled", "eager")), help="e.g. compiled,eager")
    matrix.add_argument("--batch-sizes", type=csv_of(positive_int), help="e.g. 32,64,128,256")
    matrix.add_argument("--seeds", type=csv_of(non_negative_int), help="e.g. 0,1,2")
    matrix.add_argument("--python", action="append", default=[], metavar="FRAMEWORK=PATH",
                        help="interpreter for one framework (repeatable); default the current one")
    matrix.add_argument("--timeout", type=positive_int, help="seconds per configuration (default: profile's)")
    matrix.add_argument("--force", action="store_true", help="rerun configurations that already have ok records")
    add_config_flags(matrix, many=True)
    matrix.set_defaults(func=cmd_matrix)

    env = sub.add_parser("env", help="print this machine's hardware and software provenance as JSON")
    env.set_defaults(func=cmd_env)
    from runners.probes.cli import register as register_probes

    register_probes(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``runners`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, data.DataError) as exc:
        print(f"runners {args.command}: error: {exc}", file=sys.stderr)
        return 2
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
