"""The site's pages: one module each in this package, found here, and the navigation built from them.

A page module holds ``PAGE`` (where the page goes, its template, its place in the navigation) and
``context(site)``, which builds what its template shows from ``SiteData``. Adding a page is adding a module
and its template; nothing else lists the pages. Titles and sections are English, marked for the catalogue
(``N_``); the navigation shows them in the language being written.

Site layer: a page may import ``fwbench``, the shared bottom modules, ``generator.records``, ``generator.verdicts``,
``generator.views`` and the other pages; never ``generator.build``.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

from generator.i18n import N_, translate


@dataclass(frozen=True)
class Page:
    """Where a page goes (docs-relative path), its template, and its place in the navigation."""

    path: str
    template: str | None  # None: a static page of docs/
    title: str  # English, marked with N_
    section: str | None  # the navigation section (English, marked with N_), None at the top level
    order: float


#: pages written by hand under docs/, placed in the same navigation
STATIC_PAGES = (Page("design.md", None, N_("Design"), N_("Appendix"), 99.0),)


def page_modules() -> list[ModuleType]:
    """Every page module of ``generator.site``, in navigation order."""
    found = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)]
    return sorted((m for m in found if hasattr(m, "PAGE")), key=lambda m: m.PAGE.order)


def nav() -> list[dict]:
    """The mkdocs ``nav`` in the language being written: the pages in order, consecutive pages of one section
    grouped under it."""
    pages = sorted([m.PAGE for m in page_modules()] + list(STATIC_PAGES), key=lambda p: p.order)
    entries: list[dict] = []
    for page in pages:
        item = {translate(page.title): page.path}
        section = translate(page.section) if page.section else None
        if section is None:
            entries.append(item)
        elif entries and section in entries[-1] and isinstance(entries[-1][section], list):
            entries[-1][section].append(item)
        else:
            entries.append({section: [item]})
    return entries
