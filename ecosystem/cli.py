"""The `ecosystem` command: `collect` a dated snapshot of community statistics, `show` the latest one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ecosystem.collect import SOURCES, Settings, collect
from ecosystem.errors import OfflineError
from ecosystem.redact import redact
from ecosystem.show import show
from ecosystem.snapshot import ok_count, save_snapshot
from fwbench.cliargs import positive_float, positive_int
from fwbench.records import RecordError

_MAX_FAILURES_LISTED = 10

_COLLECT_EPILOG = """\
credentials (optional, read from the environment, never written anywhere):
  GITHUB_TOKEN        raises GitHub's limit from 60 to 5000 requests/hour and enables star growth
                      through GraphQL; without it star growth comes from an older snapshot, if any
  STACK_EXCHANGE_KEY  raises the Stack Exchange quota from 300 to 10000 requests/day

exit status: 0 a complete snapshot was written; 1 offline, partial or not written; 2 usage error.
A snapshot never replaces a better one of the same day, and earlier days are never modified.
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `ecosystem` command."""
    parser = argparse.ArgumentParser(prog="ecosystem", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{collect,show}")

    run = commands.add_parser("collect", help="collect Stack Overflow, GitHub and PyPI statistics",
                              description="Collect Stack Overflow, GitHub and PyPI statistics into "
                                          "<out>/<UTC date>.json (schema fwbench.ecosystem/1).",
                              epilog=_COLLECT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--only", choices=SOURCES, help="collect this source only (default: all)")
    run.add_argument("--window-days", type=positive_int, default=365,
                     help="the window of the *_in_window metrics, in days (default: %(default)s)")
    run.add_argument("--sample", type=positive_int, default=300,
                     help="questions per tag sampled for the time to first answer (default: %(default)s)")
    run.add_argument("--out", type=Path, default=Path("results/ecosystem"),
                     help="snapshot directory (default: %(default)s)")
    run.add_argument("--max-wait", type=positive_float, default=60.0,
                     help="longest single wait in seconds for a backoff, retry or rate-limit reset; a source "
                          "that asks for more is recorded as failed (default: %(default)s)")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    view = commands.add_parser("show", help="print the latest snapshot and its change since the previous one")
    view.add_argument("--out", type=Path, default=Path("results/ecosystem"),
                      help="snapshot directory (default: %(default)s)")
    return parser


def _collect(args: argparse.Namespace) -> int:
    settings = Settings(out_dir=args.out, sources=(args.only,) if args.only else SOURCES,
                        window_days=args.window_days, sample=args.sample, max_wait=args.max_wait)
    try:
        record = collect(settings, progress=not args.no_progress)
    except OfflineError as exc:
        print(f"ecosystem: {exc}", file=sys.stderr)
        return 1
    for failure in record["failures"][:_MAX_FAILURES_LISTED]:
        print(f"ecosystem: failed {failure['source']} {failure['subject']} {failure['metric']}: "
              f"{failure['reason']}", file=sys.stderr)
    if len(record["failures"]) > _MAX_FAILURES_LISTED:
        print(f"ecosystem: … and {len(record['failures']) - _MAX_FAILURES_LISTED} more failures "
              "(listed in the snapshot's 'failures')", file=sys.stderr)
    if ok_count(record) == 0:
        print("ecosystem: no metric was collected; nothing written", file=sys.stderr)
        return 1
    result = save_snapshot(args.out, record)
    print(f"ecosystem: {result.message}", file=sys.stdout if result.written else sys.stderr)
    return 0 if result.written and record["complete"] else 1


def _show(args: argparse.Namespace) -> int:
    try:
        table = show(args.out)
    except RecordError as exc:
        print(f"ecosystem: {exc}", file=sys.stderr)
        return 1
    if table is None:
        print(f"ecosystem: no snapshot in {args.out}; run `ecosystem collect --out {args.out}` first",
              file=sys.stderr)
        return 1
    print(table)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ecosystem` console script."""
    args = build_parser().parse_args(argv)
    try:
        return _collect(args) if args.command == "collect" else _show(args)
    except Exception as exc:  # last line of defence: an unexpected error must not print a credential
        print(f"ecosystem: {type(exc).__name__}: {redact(str(exc))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
