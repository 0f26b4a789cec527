"""mkdocs-gen-files script: render the site's pages from the records at build (and `mkdocs serve`) time.

The records are the ones ``generator build`` already loaded, handed over with what its other language's build
already computed from them (``generator.build.handoff``); under ``mkdocs serve``, those under ``$FWBENCH_RESULTS``.
The pages are written in the build's language, the theme's (``en`` in mkdocs.yml, ``zh`` in mkdocs.zh.yml). The
navigation is built from the page modules (``generator.site.nav``) rather than listed in mkdocs.yml. Nothing
generated here is ever written into ``docs/``.
"""

from __future__ import annotations

import mkdocs_gen_files

from generator import i18n
from generator.build import handoff
from generator.build.render import build_pages
from generator.site import nav
from generator.views.repository import repository_url
from generator.views.sitedata import REPO_ROOT


def generate() -> None:
    """Write every generated file through mkdocs-gen-files and set the navigation."""
    given = handoff.current or handoff.from_environment(REPO_ROOT)
    config = mkdocs_gen_files.config
    language = config.theme["language"]
    files = build_pages(
        given.results,
        given.source_root,
        repo_url=repository_url(config.repo_url, REPO_ROOT),
        language=language,
        shared=given.shared,
        this_machine=given.this_machine,
    )
    for path, content in files.items():
        with mkdocs_gen_files.open(path, "wb" if isinstance(content, bytes) else "w") as handle:
            handle.write(content)
    with i18n.language(language):
        config["nav"] = nav()  # read by mkdocs after the files event, when it builds the navigation


if __name__ in ("__main__", "<run_path>"):  # run by mkdocs-gen-files, not on import
    generate()
