"""6.2 Documentation: the article's characterisations, in fwbench's words, and why fwbench measures nothing here."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.i18n import N_
from generator.page import Page
from generator.sitedata import SiteData, load_data

PAGE = Page("beyond/documentation.md", "documentation.md.j2", N_("6.2 Documentation"), N_("6 Beyond performance"), 6.2)


def context(site: SiteData) -> dict[str, Any]:
    """The documentation page's context: ``data/documentation.json``."""
    return {"documentation": load_data("documentation.json"), "frameworks": FRAMEWORKS}
