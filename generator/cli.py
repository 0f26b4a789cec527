"""The ``generator`` console script: ``generator build`` turns the records into the MkDocs site, ``generator check``
checks records as a submission."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from fwbench.cliargs import EXIT_USAGE, Parser, UsageError, check_creatable, examples, existing_directory
from fwbench.records import RecordError
from generator.build.mkdocs_site import build_site
from generator.records.check import check_paths
from generator.records.load import load_roots
from generator.views.charts import CJK_FONT_HINT, cjk_font

SITE_URL_ENV = "FWBENCH_SITE_URL"


def cmd_build(args: argparse.Namespace) -> int:
    """Validate the records (all of them, or fail with --strict), then build the site."""
    started = time.perf_counter()
    # nothing is created before the build: one that fails on its records leaves no site behind
    check_creatable(args.site_dir, "--site-dir")
    if args.strict and not cjk_font():
        print(
            "generator build: no font that draws Chinese was found, so the Chinese pages' charts would keep English "
            f"labels (--strict); install one ({CJK_FONT_HINT}) or build without --strict",
            file=sys.stderr,
        )
        return 1
    try:
        results = load_roots(args.results or [Path("results")], strict=args.strict, progress=True)
    except RecordError as exc:
        print(f"generator build: invalid record (--strict): {exc}", file=sys.stderr)
        return 1
    for skipped in results.skipped:
        print(f"generator build: skipped {skipped.message}", file=sys.stderr)
    print(
        f"generator build: {len(results.runs)} runs, {len(results.probes)} probes, "
        f"{len(results.snapshots)} ecosystem snapshots, "
        f"{len(results.bisects)} bisect reports ({len(results.bisect_runs)} runs behind them), "
        f"{len(results.skipped)} skipped"
    )
    if args.this_machine and args.this_machine not in {run.machine_id for run in results.runs}:
        print(
            f"generator build: --this-machine {args.this_machine}: no run record of that machine under "
            f"{', '.join(str(root) for root in args.results or [Path('results')])}, so the home page answers for no "
            "machine first",
            file=sys.stderr,
        )
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s %(message)s")
    from mkdocs.exceptions import MkDocsException

    try:
        build_site(results, args.site_dir, args.frameworks_dir, args.site_url, args.this_machine)
    except MkDocsException as exc:
        print(f"generator build: mkdocs build failed (strict): {exc}", file=sys.stderr)
        return 1
    print(
        f"generator build: site written to {args.site_dir} in {time.perf_counter() - started:.1f} s. "
        "Browse it live with `make serve` (mkdocs serve), or open its index.html from disk."
    )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check records as a submission: one line per failing file, then the notes and a summary; exit 1 on a
    failure."""
    report = check_paths(args.paths, repo=args.repo)
    for line in report.failure_lines() + report.note_lines():
        print(line)
    failing = len(report.failures)
    print(f"generator check: {len(report.files)} files, {len(report.files) - failing} pass, {failing} fail")
    return 1 if failing else 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``generator`` console script."""
    parser = Parser(
        prog="generator",
        description="Build fwbench's MkDocs Material site from the records under results/.",
        **examples("generator build", "generator check results/runs"),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build = sub.add_parser(
        "build",
        help="validate every record, render the pages and charts, run `mkdocs build --strict`",
        description="Load and validate every record under --results (runs, probes, ecosystem), render the "
        "pages through mkdocs-gen-files and build the site in strict mode, in English at its root and in Chinese "
        "under zh/, both from the same records. Invalid records are skipped and listed on the site unless --strict "
        "is given.",
        **examples(
            "generator build                                  # results/ -> site/",
            "generator build --results results --results ~/my-results --site-dir /tmp/site",
            "generator build --site-url https://OWNER.github.io/REPO/",
            'generator build --this-machine "$(runners envs plan --machine-id)"   # as make site builds it',
        ),
    )
    build.add_argument(
        "--results",
        type=existing_directory,
        action="append",
        help="existing directory holding runs/, probes/ and ecosystem/, as `make site` writes them (default: "
        "results); give it again to build one site from several, such as the published records and your own "
        "(a machine in two of them is an error)",
    )
    build.add_argument("--site-dir", type=Path, default=Path("site"), help="output directory (default: site)")
    build.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on the first invalid or unreadable record instead of skipping it, and before any work "
        "when no installed font draws Chinese (the Chinese charts would keep English labels): the build a published "
        "site comes from",
    )
    build.add_argument(
        "--frameworks-dir",
        type=Path,
        default=None,
        help="where the framework implementations live for the code-size page "
        "(default: runners/frameworks in this repository)",
    )
    build.add_argument(
        "--site-url",
        default=os.environ.get(SITE_URL_ENV),
        help="the URL the site will be served from, e.g. https://OWNER.github.io/REPO/ for GitHub Pages: its 404 "
        f"page then works at any depth (default ${SITE_URL_ENV}; unset: links relative to the site root)",
    )
    build.add_argument(
        "--this-machine",
        metavar="MACHINE_ID",
        help="the machine id (its folder under runs/) of the machine building the site, as `make site` gives it "
        "(`runners envs plan --machine-id`): the home page answers for it first, labelled as the machine that "
        "built the site (default: none, every machine alike: the build a published site comes from)",
    )
    build.set_defaults(func=cmd_build)
    check = sub.add_parser(
        "check",
        help="check run records as a submission: schema, provenance, physics, the same work, place",
        description="Check run records, or every record under a folder, as a submission (docs/design.md, "
        "'Submissions'): valid against the schema (upgraded as the build does), complete provenance with a commit "
        "in this repository's history, physically possible figures (MFU at most 1, images/s that add up, the "
        "allocator's peak within NVML's), the first losses within the precision's bound of fwbench's float64 "
        "reference, no record id twice on one machine, each record in its own machine's folder. In a whole results "
        "folder, the probe records, ecosystem snapshots and bisect reports are checked against their own schemas only. "
        "Prints one line per failing file and a note for each rule it could not apply; exits 0 when every file "
        "passes, 1 otherwise.",
        **examples(
            "generator check results/runs",
            "generator check results/runs/nvidia-h200/*.json",
            "generator check results      # everything the site is built from",
        ),
    )
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a record file or a folder of them")
    check.add_argument(
        "--repo",
        type=existing_directory,
        default=Path(__file__).resolve().parents[1],
        help="the git checkout whose history each record's commit must be in (default: this one)",
    )
    check.set_defaults(func=cmd_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``generator`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"generator {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
