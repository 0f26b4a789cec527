"""6.2 Documentation: the article's characterisations, in fwbench's words, why fwbench measures nothing here, and
which of section 6's figures need a network this project could not reach (from the latest snapshot's failures)."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.data_text import load_data
from generator.i18n import N_, translate
from generator.site import Page, community, maintenance
from generator.views.ecosystem import unreached_sources
from generator.views.sitedata import SiteData

PAGE = Page("beyond/documentation.md", "documentation.md.j2", N_("6.2 Documentation"), N_("6 Beyond performance"), 6.2)


def context(site: SiteData) -> dict[str, Any]:
    """The documentation page's context: ``data/documentation.json``, for the frameworks the article speaks of, and
    the sources the latest snapshot could not reach."""
    documentation = load_data("documentation.json")
    snapshot = site.snapshot.record if site.snapshot else None
    return {
        "documentation": documentation,
        "frameworks": [fw for fw in FRAMEWORKS if fw in documentation["article"]],
        "snapshot": snapshot,
        "unreached": unreached_sources(snapshot),
        "titles": {page.path: translate(page.title) for page in (community.PAGE, maintenance.PAGE)},
    }
