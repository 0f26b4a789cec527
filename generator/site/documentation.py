"""6.2 Documentation: the article's characterisations, in fwbench's words, and why fwbench measures nothing here."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.data_text import load_data
from generator.i18n import N_
from generator.site import Page
from generator.views.sitedata import SiteData

PAGE = Page("beyond/documentation.md", "documentation.md.j2", N_("6.2 Documentation"), N_("6 Beyond performance"), 6.2)


def context(site: SiteData) -> dict[str, Any]:
    """The documentation page's context: ``data/documentation.json``, for the frameworks the article speaks of."""
    documentation = load_data("documentation.json")
    return {"documentation": documentation, "frameworks": [fw for fw in FRAMEWORKS if fw in documentation["article"]]}
