"""mkdocs-gen-files script: render the site's pages from the records at build (and `mkdocs serve`) time.

The records are the ones ``generator build`` already loaded (``load.preloaded``, with what its other language's
build already computed from them: ``sitedata.shared_work``), else those under
``FWBENCH_RESULTS`` (default ``results``, relative to the repository). The pages are written in the build's
language, the theme's (``en`` in mkdocs.yml, ``zh`` in mkdocs.zh.yml). The navigation is built from the page
modules (``generator.page.nav``) rather than listed in mkdocs.yml. Nothing generated here is ever written into
``docs/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import mkdocs_gen_files

from generator import i18n
from generator.load import load_results, preloaded
from generator.page import nav
from generator.render import build_pages
from generator.repository import repository_url
from generator.sitedata import REPO_ROOT, shared_work

RESULTS_ENV = "FWBENCH_RESULTS"
FRAMEWORKS_ENV = "FWBENCH_FRAMEWORKS_DIR"


def generate() -> None:
    """Write every generated file through mkdocs-gen-files and set the navigation."""
    results = preloaded.get() or load_results(REPO_ROOT / os.environ.get(RESULTS_ENV, "results"))
    frameworks = os.environ.get(FRAMEWORKS_ENV)
    config = mkdocs_gen_files.config
    language = config.theme["language"]
    files = build_pages(
        results,
        Path(frameworks) if frameworks else None,
        repo_url=repository_url(config.repo_url, REPO_ROOT),
        language=language,
        shared=shared_work.get(),
    )
    for path, content in files.items():
        with mkdocs_gen_files.open(path, "wb" if isinstance(content, bytes) else "w") as handle:
            handle.write(content)
    with i18n.language(language):
        config["nav"] = nav()  # read by mkdocs after the files event, when it builds the navigation


if __name__ in ("__main__", "<run_path>"):  # run by mkdocs-gen-files, not on import
    generate()
