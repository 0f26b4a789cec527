"""The `ecosystem` command: `collect` a dated snapshot of community statistics, `show` the latest one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ecosystem.collect import SOURCES, Settings, collect
from ecosystem.errors import MalformedAnswer, OfflineError
from ecosystem.redact import redact
from ecosystem.show import show
from ecosystem.snapshot import ok_count, save_snapshot
from fwbench.cliargs import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
    add_frameworks_flag,
    check_creatable,
    csv_of,
    examples,
    positive_float,
    positive_int,
)
from fwbench.frameworks import FRAMEWORKS
from fwbench.records import RecordError

_MAX_FAILURES_LISTED = 10
_DEFAULT_OUT = "results/ecosystem"

_COLLECT_EPILOG = f"""\
examples:
  ecosystem collect --out {_DEFAULT_OUT}
      every source, for every framework
  ecosystem collect --frameworks jax,torch --sources github --no-progress
      GitHub only, for JAX (with Flax) and PyTorch, without a progress bar
  ecosystem collect --sources pypi
      PyPI's JSON API only: release cadence, support windows, platforms, vulnerabilities, install sizes

credentials (optional, read from the environment, never written anywhere):
  GITHUB_TOKEN        raises GitHub's limit from 60 to 5000 requests/hour (star growth comes from
                      GitHub's star history with or without it)
  STACK_EXCHANGE_KEY  raises the Stack Exchange quota from 300 to 10000 requests/day

exit status: 0 a complete snapshot was written; 1 offline, partial or not written (an answer not in its API's
documented shape writes nothing and names the package and field); 2 usage error.
A snapshot never replaces a better one of the same day, and earlier days are never modified.
"""

_SHOW_EPILOG = f"""\
examples:
  ecosystem show
  ecosystem show --out {_DEFAULT_OUT}

exit status: 0 printed; 1 no snapshot yet (--out missing or empty) or an unreadable one;
2 usage error (--out is not a directory).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `ecosystem` command."""
    parser = Parser(
        prog="ecosystem",
        description=__doc__,
        **examples("ecosystem collect --out results/ecosystem && ecosystem show"),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{collect,show}")

    run = commands.add_parser(
        "collect",
        help="collect Stack Overflow, GitHub, pypistats.org and PyPI statistics",
        description="Collect Stack Overflow, GitHub, pypistats.org and PyPI statistics into "
        "<out>/<UTC date>.json (schema fwbench.ecosystem/1).",
        epilog=_COLLECT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_frameworks_flag(run)
    run.add_argument(
        "--sources",
        type=csv_of(str, SOURCES),
        metavar="A,B",
        help=f"comma-separated sources to collect, from {', '.join(SOURCES)} (default: all; sources, not "
        "frameworks: see --frameworks)",
    )
    run.add_argument(
        "--window-days",
        type=positive_int,
        default=365,
        help="the window of the *_in_window metrics, in days (default: %(default)s)",
    )
    run.add_argument(
        "--sample",
        type=positive_int,
        default=300,
        help="questions per tag sampled for the time to first answer (default: %(default)s)",
    )
    run.add_argument(
        "--out",
        type=Path,
        default=Path(_DEFAULT_OUT),
        help="snapshot directory, created if needed (default: %(default)s)",
    )
    run.add_argument(
        "--max-wait",
        type=positive_float,
        default=60.0,
        help="longest single wait in seconds for a backoff, retry or rate-limit reset; a source "
        "that asks for more is recorded as failed (default: %(default)s)",
    )
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    view = commands.add_parser(
        "show",
        help="print the latest snapshot and its change since the previous one",
        description="Print the latest snapshot in --out and its change since the previous one.",
        epilog=_SHOW_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    view.add_argument(
        "--out", type=snapshot_directory, default=_DEFAULT_OUT, help="snapshot directory (default: %(default)s)"
    )
    return parser


def snapshot_directory(text: str) -> Path:
    """An argparse type for the directory `show` reads: one that does not exist yet holds no snapshot yet (exit 1,
    as in a fresh clone), but a path that exists and is not a directory is a usage error."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a directory")
    return path


def _collect(args: argparse.Namespace) -> int:
    # before any request: a collection whose snapshot cannot be written would only spend the API quotas
    check_creatable(args.out, "--out")
    settings = Settings(
        out_dir=args.out,
        sources=tuple(args.sources or SOURCES),
        frameworks=tuple(args.frameworks or FRAMEWORKS),
        window_days=args.window_days,
        sample=args.sample,
        max_wait=args.max_wait,
    )
    try:
        record = collect(settings, progress=not args.no_progress)
    except OfflineError as exc:
        print(f"ecosystem: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except MalformedAnswer as exc:
        print(f"ecosystem: {exc}; nothing was written", file=sys.stderr)
        return EXIT_FAILURE
    for failure in record["failures"][:_MAX_FAILURES_LISTED]:
        print(
            f"ecosystem: failed {failure['source']} {failure['subject']} {failure['metric']}: {failure['reason']}",
            file=sys.stderr,
        )
    if len(record["failures"]) > _MAX_FAILURES_LISTED:
        print(
            f"ecosystem: … and {len(record['failures']) - _MAX_FAILURES_LISTED} more failures "
            "(listed in the snapshot's 'failures')",
            file=sys.stderr,
        )
    if ok_count(record) == 0:
        print("ecosystem: no metric was collected; nothing written", file=sys.stderr)
        return EXIT_FAILURE
    result = save_snapshot(args.out, record)
    print(f"ecosystem: {result.message}", file=sys.stdout if result.written else sys.stderr)
    return EXIT_OK if result.written and record["complete"] else EXIT_FAILURE


def _show(args: argparse.Namespace) -> int:
    try:
        table = show(args.out)
    except RecordError as exc:
        print(f"ecosystem: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    if table is None:
        print(
            f"ecosystem: no snapshot yet in {args.out}; make one with `ecosystem collect --out {args.out}`",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    print(table)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ecosystem` console script."""
    args = build_parser().parse_args(argv)  # argparse exits 2 on a bad flag or value
    try:
        return _collect(args) if args.command == "collect" else _show(args)
    except UsageError as exc:
        print(f"ecosystem {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # last line of defence: an unexpected error must not print a credential
        print(f"ecosystem: {type(exc).__name__}: {redact(str(exc))}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
