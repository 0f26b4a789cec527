"""Render every page of the site from loaded records (no mkdocs needed here), in one language.

``build_pages`` returns ``{docs-relative path: text or bytes}``: each page's Markdown and every file the pages
link to (charts, downloads, record archives). ``gen_pages.py`` hands that to mkdocs-gen-files; the tests read it
directly. Both languages have the same paths: each is its own mkdocs build (see mkdocs.zh.yml).
"""

from __future__ import annotations

import posixpath
from functools import cache, partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from fwbench.decision import MIN_SITTINGS
from fwbench.gap import MIN_EFFECT
from fwbench.sittings import SITTING_GAP_HOURS
from generator import i18n
from generator.message import parenthesised
from generator.records.identity import first_step
from generator.records.load import Results
from generator.site import STATIC_PAGES, Page, page_modules
from generator.spacing import fill_percent, spaced
from generator.views import text_format
from generator.views.charts import draw_all
from generator.views.sitedata import REPO_ROOT, SiteData
from generator.views.verdict_text import text


def relative_link(page: str, target: str) -> str:
    """Link to ``target`` (docs-relative) from ``page``."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


# Jinja's own callables fill a {% trans %} block with ``%``; these fill it spaced as the language sets its words
def _gettext(message: str, /, **values: Any) -> str:  # positional: a block's value may be called "message"
    return fill_percent(i18n.translate(message), values)


def _ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    return fill_percent(i18n.ngettext(singular, plural, n), {"num": n, **values})


@cache
def environment() -> Environment:
    """The Jinja environment of the page templates: strict, Markdown out, helpers for cells and labels, ``words``
    for a language-neutral text (``generator.message``), and the catalogue's translations (``{% trans %}`` blocks
    are trimmed: a paragraph is one message; their values are filled in and spaced as the language sets them,
    ``generator.spacing``). One per process, its templates compiled once: its gettext callables read the language
    being written at each call."""
    env = Environment(
        loader=PackageLoader("generator", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
        autoescape=False,
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True
    env.newstyle_gettext = True  # type: ignore[attr-defined]  # trans blocks hand their values to the callables
    env.globals.update(
        gettext=_gettext,
        ngettext=_ngettext,
        text_format=text_format,
        label=text_format.label,
        first_step=first_step,
        sitting_gap_hours=SITTING_GAP_HOURS,  # what starts a new sitting, as the method page says
        min_effect=MIN_EFFECT,  # the paired rule's (``fwbench.decision``), as the method page states it
        min_sittings=MIN_SITTINGS,
    )
    env.filters.update(
        cell=text_format.cell,
        code=text_format.code_span,
        fence=text_format.fence,
        parenthesised=lambda words, detail: text(parenthesised(words, detail)),
        spaced=spaced,
        title_text=text_format.title_text,
        wrap_code=lambda text: f"`{text}`",
        translate=i18n.translate,
        words=text,
    )
    return env


def render_page(env: Environment, module: Any, site: SiteData) -> str:
    """One page's Markdown: its template with its context and ``rel`` (links relative to the page)."""
    page = module.PAGE
    return env.get_template(page.template).render(**module.context(site), rel=partial(relative_link, page.path))


def source_twin(env: Environment, page: Page) -> str:
    """A translated stand-in for a page written by hand in English (the design page): its title, what it holds,
    and a link to the English page, which a translation would otherwise copy."""
    depth = page.path.count("/") + 1  # up to the translated site's root, then up to the English one
    english = "../" * depth + page.path.removesuffix(".md") + ".html"
    return env.get_template("source_twin.md.j2").render(title=i18n.translate(page.title), english=english)


def build_pages(
    results: Results,
    source_root: Path | None = None,
    repo_root: Path = REPO_ROOT,
    repo_url: str | None = None,
    language: str = i18n.SOURCE,
    shared: dict[str, Any] | None = None,
    this_machine: str | None = None,
) -> dict[str, Any]:
    """Every file of the generated site in ``language``: Markdown pages (str), charts (bytes), CSV and JSON
    downloads. A translated site also gets a stand-in for each page written by hand (``STATIC_PAGES``).
    ``shared`` carries the language-neutral values from one language's build to the next (``SiteData.neutral``);
    ``this_machine``, the machine id of the machine building the site, which the home page answers for first."""
    with i18n.language(language):
        site = SiteData(
            results,
            source_root or repo_root,
            repo_root,
            repo_url,
            shared=shared if shared is not None else {},
            this_machine=this_machine,
        )
        env = environment()
        pages = {module.PAGE.path: render_page(env, module, site) for module in page_modules()}
        if language != i18n.SOURCE:
            pages.update({page.path: source_twin(env, page) for page in STATIC_PAGES})
        return {**site.files, **draw_all(site.charts), **pages}
