"""The ``runners`` console script: ``run``, ``matrix``, ``env`` and ``probes``."""

from __future__ import annotations

import argparse
import json
import sys

from runners import provenance


def cmd_env(args: argparse.Namespace) -> int:
    """Print this machine's provenance (hardware, software) as JSON."""
    print(json.dumps({"hardware": provenance.hardware_info(), "software": provenance.software_info()}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all ``runners`` subcommands."""
    parser = argparse.ArgumentParser(
        prog="runners",
        description="Benchmark the same CIFAR-10 ResNet-18 in PyTorch, TensorFlow and JAX, and probe their errors.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    env = sub.add_parser("env", help="print this machine's hardware and software provenance as JSON")
    env.set_defaults(func=cmd_env)
    from runners.probes.cli import register as register_probes

    register_probes(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``runners`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
