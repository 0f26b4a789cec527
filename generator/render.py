"""Render every page of the site from loaded records (no mkdocs needed here).

``build_pages`` returns ``{docs-relative path: text or bytes}``: each page's Markdown and every file the pages
link to (charts, downloads, record archives). ``gen_pages.py`` hands that to mkdocs-gen-files; the tests read it
directly.
"""

from __future__ import annotations

import posixpath
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from generator import fmt
from generator.charts import draw_all
from generator.load import Results
from generator.page import page_modules
from generator.sitedata import REPO_ROOT, SiteData


def relative_link(page: str, target: str) -> str:
    """Link to ``target`` (docs-relative) from ``page``."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def environment() -> Environment:
    """The Jinja environment of the page templates: strict, Markdown out, helpers for cells and labels."""
    env = Environment(loader=PackageLoader("generator", "templates"), trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True, undefined=StrictUndefined, autoescape=False)
    env.globals.update(fmt=fmt, label=fmt.label)
    env.filters.update(cell=fmt.cell, code=fmt.code_span, fence=fmt.fence, title_text=fmt.title_text)
    return env


def render_page(env: Environment, module: Any, site: SiteData) -> str:
    """One page's Markdown: its template with its context and ``rel`` (links relative to the page)."""
    page = module.PAGE
    return env.get_template(page.template).render(**module.context(site), rel=partial(relative_link, page.path))


def build_pages(results: Results, frameworks_dir: Path | None = None, repo_root: Path = REPO_ROOT,
                repo_url: str | None = None) -> dict[str, Any]:
    """Every file of the generated site: Markdown pages (str), charts (bytes), CSV and JSON downloads."""
    site = SiteData(results, frameworks_dir or repo_root / "runners" / "frameworks", repo_root, repo_url)
    env = environment()
    pages = {module.PAGE.path: render_page(env, module, site) for module in page_modules()}
    return {**site.files, **draw_all(site.charts), **pages}
