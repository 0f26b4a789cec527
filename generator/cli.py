"""The ``generator`` console script: ``generator build`` turns the records into the MkDocs site."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from fwbench.cliargs import existing_directory
from fwbench.environment import variables
from fwbench.records import RecordError
from generator.gen_pages import FRAMEWORKS_ENV, RESULTS_ENV
from generator.i18n import LANGUAGES, SOURCE
from generator.load import Results, load_results, preloaded
from generator.sitedata import REPO_ROOT, shared_work

CONFIG_FILE = REPO_ROOT / "mkdocs.yml"
SITE_URL_ENV = "FWBENCH_SITE_URL"


def language_builds() -> list[tuple[Path, str]]:
    """(mkdocs config, folder under the site directory) per language: the source language's mkdocs.yml at the
    root first (its build empties the site directory), then each translation's mkdocs.<code>.yml in <code>/."""
    return [(CONFIG_FILE, "") if code == SOURCE else (REPO_ROOT / f"mkdocs.{code}.yml", code) for code in LANGUAGES]


def build_site(
    results: Results, site_dir: Path, frameworks_dir: Path | None = None, site_url: str | None = None
) -> None:
    """Run ``mkdocs build --strict`` on the loaded ``results`` into ``site_dir``, once per language: English at
    its root, Chinese under ``zh/``, both from the same records.

    ``site_url`` is where the site will be served (e.g. a GitHub Pages project URL): mkdocs then gives the 404
    page links that work at any depth under it. Raises mkdocs' Abort/ConfigurationError on a broken page or
    link (strict mode).
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # the theme's end-of-life banner is not a build problem
    paths = {RESULTS_ENV: str(results.root.resolve())}
    if frameworks_dir is not None:
        paths[FRAMEWORKS_ENV] = str(frameworks_dir.resolve())
    token, shared = preloaded.set(results), shared_work.set({})
    try:
        with variables(paths):
            for config_file, folder in language_builds():
                overrides = (
                    {"site_url": site_url.rstrip("/") + "/" + (folder + "/" if folder else "")} if site_url else {}
                )
                config = load_config(
                    config_file=str(config_file), site_dir=str((site_dir / folder).resolve()), strict=True, **overrides
                )
                build(config)
    finally:
        preloaded.reset(token)
        shared_work.reset(shared)


def cmd_build(args: argparse.Namespace) -> int:
    """Validate the records (all of them, or fail with --strict), then build the site."""
    started = time.perf_counter()
    try:
        results = load_results(args.results, strict=args.strict, progress=True)
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
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s %(message)s")
    from mkdocs.exceptions import MkDocsException

    try:
        build_site(results, args.site_dir, args.frameworks_dir, args.site_url)
    except MkDocsException as exc:
        print(f"generator build: mkdocs build failed (strict): {exc}", file=sys.stderr)
        return 1
    print(
        f"generator build: site written to {args.site_dir} in {time.perf_counter() - started:.1f} s. "
        "Browse it live with `make serve` (mkdocs serve), or open its index.html from disk."
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``generator`` console script."""
    parser = argparse.ArgumentParser(
        prog="generator",
        description="Build fwbench's MkDocs Material site from the records under results/.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build = sub.add_parser(
        "build",
        help="validate every record, render the pages and charts, run `mkdocs build --strict`",
        description="Load and validate every record under --results (runs, probes, ecosystem), render the "
        "pages through mkdocs-gen-files and build the site in strict mode, in English at its root and in Chinese "
        "under zh/, both from the same records. Invalid records are skipped and listed on the site unless --strict "
        "is given.",
    )
    build.add_argument(
        "--results",
        type=existing_directory,
        default="results",
        help="existing directory holding runs/, probes/ and ecosystem/, as `make site` writes them (default: results)",
    )
    build.add_argument("--site-dir", type=Path, default=Path("site"), help="output directory (default: site)")
    build.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on the first invalid or unreadable record instead of skipping it",
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
    build.set_defaults(func=cmd_build)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``generator`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
