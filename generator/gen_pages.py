"""mkdocs-gen-files script: render the site's pages from the records at build (and `mkdocs serve`) time.

The results directory comes from ``FWBENCH_RESULTS`` (default ``results``, relative to the repository);
nothing generated here is ever written into ``docs/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import mkdocs_gen_files

from generator.load import load_results
from generator.pages import REPO_ROOT, build_pages

RESULTS_ENV = "FWBENCH_RESULTS"
FRAMEWORKS_ENV = "FWBENCH_FRAMEWORKS_DIR"


def generate() -> None:
    """Load the records and write every generated file through mkdocs-gen-files."""
    results = load_results(REPO_ROOT / os.environ.get(RESULTS_ENV, "results"))
    frameworks = os.environ.get(FRAMEWORKS_ENV)
    files = build_pages(results, frameworks_dir=Path(frameworks) if frameworks else None)
    for path, content in files.items():
        mode = "wb" if isinstance(content, bytes) else "w"
        with mkdocs_gen_files.open(path, mode) as handle:
            handle.write(content)


if __name__ in ("__main__", "<run_path>"):  # run by mkdocs-gen-files, not on import
    generate()
