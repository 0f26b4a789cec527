"""One page of the site rendered alone, for a test that reads one page: ``build_pages`` renders every page of the
site and draws every chart (in worker processes, about a second each time); this renders the page's template only,
from the same ``SiteData``, and draws nothing. ``pages_undrawn`` is ``build_pages`` without the drawing, for a test
that reads many pages or the downloads. A test of the charts, or of the whole site, builds it all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator import i18n
from generator.build import render
from generator.build.render import environment, render_page
from generator.records.load import Results
from generator.site import page_modules
from generator.views.sitedata import REPO_ROOT, SiteData


def page_alone(
    results: Results,
    path: str,
    language: str = i18n.SOURCE,
    *,
    repo_root: Path = REPO_ROOT,
    repo_url: str | None = None,
    this_machine: str | None = None,
) -> str:
    """The Markdown of the page at docs-relative ``path`` in ``language``, as ``build_pages`` renders it."""
    (module,) = [module for module in page_modules() if module.PAGE.path == path]
    with i18n.language(language):
        site = SiteData(results, REPO_ROOT, repo_root, repo_url, this_machine=this_machine)
        return render_page(environment(), module, site)


def pages_undrawn(results: Results, **options: Any) -> dict[str, Any]:
    """Every file ``build_pages(results, **options)`` makes, each chart's an empty ``bytes``: its path is there,
    its picture not drawn."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "draw_all", lambda charts: dict.fromkeys(charts, b""))
        return render.build_pages(results, **options)
