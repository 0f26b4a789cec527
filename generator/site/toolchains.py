"""4.3 Toolchains: curated, dated facts from ``data/toolchains.json``, each with its source."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.i18n import N_
from generator.page import Page
from generator.sitedata import SiteData, load_data

PAGE = Page("devex/toolchains.md", "toolchains.md.j2", N_("4.3 Toolchains"), N_("4 Developer experience"), 4.3)


def context(site: SiteData) -> dict[str, Any]:
    """The toolchains page's context."""
    return {"toolchains": load_data("toolchains.json"), "frameworks": FRAMEWORKS}
