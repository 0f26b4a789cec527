"""The ``generator`` console script: ``generator build`` turns the records into the MkDocs site, ``generator check``
checks records as a submission."""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from fwbench.cliargs import EXIT_USAGE, Parser, UsageError, check_creatable, examples, existing_directory
from fwbench.records import RecordError
from generator.build.mkdocs_site import build_site
from generator.records.check import check_paths, counted
from generator.records.check_rules import is_checkout
from generator.records.codesize import source_paths
from generator.records.load import load_roots
from generator.views.answer_table import answer_table
from generator.views.charts import CJK_FONT_HINT, cjk_font
from generator.views.sitedata import REPO_ROOT, SiteData

SITE_URL_ENV = "FWBENCH_SITE_URL"
DEFAULT_RESULTS, DEFAULT_SITE_DIR = [Path("results")], Path("site")


def site_url(args: argparse.Namespace) -> str | None:
    """The URL the site will be served from (--site-url, else $FWBENCH_SITE_URL; None when neither is set);
    UsageError naming where it came from unless it is an http or https URL with a host: mkdocs would refuse it only
    after every record was read."""
    given, where = (
        (args.site_url, "--site-url") if args.site_url else (os.environ.get(SITE_URL_ENV), f"${SITE_URL_ENV}")
    )
    if not given:
        return None
    try:
        parts = urlsplit(given)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port is None or parts.port > 0)
    except ValueError:  # an unclosed [ of an IPv6 host, a port that is no number or out of range
        valid = False
    if not valid:
        raise UsageError(
            f"{where} {given!r}: not an http or https URL with a host (e.g. https://OWNER.github.io/REPO/)"
        )
    return given


def check_source_root(source_root: Path | None) -> None:
    """UsageError naming --source-root when it holds none of the implementation files the code-size page counts:
    every one of them would show as missing."""
    paths = [path for _part, _framework, path in source_paths(source_root)] if source_root is not None else []
    if paths and not any(path.is_file() for path in paths):  # a look, not a read: the build reads them once
        names = ", ".join(path.relative_to(source_root).as_posix() for path in paths)
        raise UsageError(f"--source-root {source_root}: holds none of the implementation files ({names})")


def make_serve_shows(roots: list[Path], site_dir: Path) -> bool:
    """Whether `make serve` shows the site a build of ``roots`` into ``site_dir`` wrote: it renders this repository's
    results/ live, so only a build of those records into its site/ is the same site."""
    served = [REPO_ROOT / root for root in DEFAULT_RESULTS], REPO_ROOT / DEFAULT_SITE_DIR
    return ([Path(root).resolve() for root in roots], site_dir.resolve()) == served


def cmd_build(args: argparse.Namespace) -> int:
    """Validate the records (all of them, or fail with --strict), then build the site."""
    started = time.perf_counter()
    url = site_url(args)
    check_source_root(args.source_root)
    # nothing is created before the build: one that fails on its records leaves no site behind
    check_creatable(args.site_dir, "--site-dir")
    if args.strict and not cjk_font():
        print(
            "generator build: no font that draws Chinese was found, so the Chinese pages' charts would keep English "
            f"labels (--strict); install one ({CJK_FONT_HINT}) or build without --strict",
            file=sys.stderr,
        )
        return 1
    roots = args.results or DEFAULT_RESULTS
    try:
        results = load_roots(roots, strict=args.strict, progress=True)
    except RecordError as exc:
        print(f"generator build: invalid record (--strict): {exc}", file=sys.stderr)
        return 1
    for skipped in results.skipped:
        print(f"generator build: skipped {skipped.message}", file=sys.stderr)
    print(
        f"generator build: {counted(len(results.runs), 'run')}, {counted(len(results.probes), 'probe')}, "
        f"{counted(len(results.snapshots), 'ecosystem snapshot')}, {counted(len(results.bisects), 'bisect report')} "
        f"({counted(len(results.bisect_runs), 'run')} behind them), {len(results.skipped)} skipped"
    )
    if args.this_machine and args.this_machine not in {run.machine_id for run in results.runs}:
        print(
            f"generator build: --this-machine {args.this_machine}: no run record of that machine under "
            f"{', '.join(map(str, roots))}, so the home page answers for no machine first",
            file=sys.stderr,
        )
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s %(message)s")
    from mkdocs.exceptions import MkDocsException

    try:
        build_site(results, args.site_dir, args.source_root, url, args.this_machine)
    except MkDocsException as exc:
        print(f"generator build: mkdocs build failed (strict): {exc}", file=sys.stderr)
        return 1
    served = make_serve_shows(roots, args.site_dir)
    browse = "Browse it live with `make serve` (mkdocs serve), or open" if served else "Open"
    print(
        f"generator build: site written to {args.site_dir} in {time.perf_counter() - started:.1f} s. "
        f"{browse} {args.site_dir.resolve() / 'index.html'} in a browser."
    )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check records as a submission: one line per failing file, then the notes and a summary; exit 1 on a
    failure."""
    if args.repo is not None and not is_checkout(args.repo):
        raise UsageError(f"--repo {args.repo}: not a git checkout (no .git in it)")
    report = check_paths(args.paths, repo=args.repo or REPO_ROOT)
    for line in report.failure_lines() + report.note_lines():
        print(line)
    print(f"generator check: {report.summary_line()}")
    return 1 if report.failures else 0


def cmd_answer(args: argparse.Namespace) -> int:
    """Print the current answer as a Markdown table (the README's), from the records and the site's own verdicts."""
    results = load_roots(args.results or DEFAULT_RESULTS)
    for skipped in results.skipped:
        print(f"generator answer: skipped {skipped.message}", file=sys.stderr)
    site = SiteData(results, REPO_ROOT)
    print(answer_table(site, datetime.datetime.now(datetime.timezone.utc).date()), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``generator`` console script."""
    parser = Parser(
        prog="generator",
        description="Build fwbench's MkDocs Material site from the records under results/.",
        **examples("generator build", "generator check results/runs", "generator answer"),
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
            'generator build --this-machine "$(runners benchmark-script --machine-id)"   # as make site builds it',
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
    build.add_argument("--site-dir", type=Path, default=DEFAULT_SITE_DIR, help="output directory (default: site)")
    build.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on the first invalid or unreadable record instead of skipping it, and before any work "
        "when no installed font draws Chinese (the Chinese charts would keep English labels): the build a published "
        "site comes from",
    )
    build.add_argument(
        "--source-root",
        type=existing_directory,
        default=None,
        help="existing repository root whose framework implementations the code-size page counts: each framework's "
        "model, runners/frameworks/<framework>/resnet18_model.py, and training step, "
        "runners/frameworks/<framework>/resnet18.py (default: this repository)",
    )
    build.add_argument(
        "--site-url",
        help="the http or https URL the site will be served from, e.g. https://OWNER.github.io/REPO/ for GitHub Pages: "
        f"its 404 page then works at any depth (default ${SITE_URL_ENV}; unset: links relative to the site root)",
    )
    build.add_argument(
        "--this-machine",
        metavar="MACHINE_ID",
        help="the machine id (its folder under runs/) of the machine building the site, as `make site` gives it "
        "(`runners benchmark-script --machine-id`): the home page answers for it first, labelled as the machine that "
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
        "passes, 1 otherwise, 2 when a PATH does not exist or holds no record, or --repo is not a git checkout.",
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
        help="the git checkout whose history each record's commit must be in (default: this one; where this one is "
        "no checkout, as in an installed copy, the commits are not looked up and a note says so)",
    )
    check.set_defaults(func=cmd_check)
    answer = sub.add_parser(
        "answer",
        help="print the current answer as a Markdown table, as the README shows it",
        description="Print which framework trains fastest on each machine and precision (accelerators first), at "
        "every batch size, as the home page judges it from the records under --results: a small Markdown table, "
        "dated, for the README.",
        **examples("generator answer", "generator answer --results results --results ~/my-results"),
    )
    answer.add_argument(
        "--results",
        type=existing_directory,
        action="append",
        help="existing directory of records, as for `generator build` (default: results); give it again for more",
    )
    answer.set_defaults(func=cmd_answer)
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
