"""The ``runners`` console script: ``env`` here; ``run`` (``runners.run_cli``), ``matrix``, ``envs``, ``probes``,
``kit`` (the accelerator kit) and ``bisect`` (the release bisect) register their own.

Usage errors (unknown framework, mode or profile, a batch size that is not a positive integer, an
unwritable output directory, a framework missing from the interpreter) print one line naming the
flag and exit with code 2, having written nothing; a failed run or data that cannot be had exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from fwbench.cliargs import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
    examples,
)
from fwbench.tuning import tuning_environment
from runners.measure import provenance
from runners.workloads.resnet18.dataset import DataError


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
    parser = Parser(
        prog="runners",
        description="Benchmark the same CIFAR-10 ResNet-18 (and, with --workload gpt, a small GPT) in PyTorch, "
        "TensorFlow and JAX, and probe their errors.",
        **examples(
            "runners matrix --dry-run        # the plan of make site's matrix here, with a time estimate",
            "runners run --framework jax     # one smoke run, its record under results/runs/<machine>/",
            "runners probes --frameworks torch",
            "runners benchmark-script",
            "runners kit --out /tmp/accelerator-kit   # on a borrowed GPU or TPU",
            "runners bisect --framework jax",
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from runners.run_cli import register as register_run

    register_run(sub)
    from runners.matrix_cli import register as register_matrix

    register_matrix(sub)

    env = sub.add_parser(
        "env",
        help="print this machine's hardware and software provenance as JSON",
        description="Print the hardware, software and tuning variables a record made here would carry, as JSON.",
        **examples("runners env", "runners env > machine.json"),
    )
    env.set_defaults(func=cmd_env)
    from runners.benchmark_script_cli import register as register_benchmark_script
    from runners.bisect.cli import register as register_bisect
    from runners.envs_cli import register as register_envs
    from runners.kit.cli import register as register_kit
    from runners.probes.cli import register as register_probes

    register_envs(sub)
    register_benchmark_script(sub)
    register_probes(sub)
    register_kit(sub)
    register_bisect(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``runners`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # the subcommand as its own parser names it in argparse's errors: ``runners benchmark-script``, ``runners matrix``
    prog = " ".join(["runners", args.command, *([args.action] if hasattr(args, "action") else [])])
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DataError as exc:  # CIFAR-10 cannot be downloaded or read: a failure, nothing the flags can fix
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; finished records are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # The matrix runs each configuration as ``python -m runners.cli run``. Once the record is on disk, the
    # frameworks' interpreter teardown (Inductor's compile workers, TF's thread pools) only delays the next
    # configuration, by up to 2.4 s on a 2-core CPU: flush and leave without it. That skips the atexit handlers
    # too, which delete the files TensorFlow's autograph writes to the temporary directory (two a run), so the
    # process gets a temporary directory of its own, removed here.
    with tempfile.TemporaryDirectory(prefix="fwbench-process-") as scratch:
        os.environ["TMPDIR"] = tempfile.tempdir = scratch
        code = main()
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
