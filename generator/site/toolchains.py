"""4.3 Toolchains: curated, dated facts from ``data/toolchains.json``, each with its source."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.data_text import load_data
from generator.i18n import N_
from generator.site import Page
from generator.views.sitedata import SiteData

PAGE = Page("devex/toolchains.md", "toolchains.md.j2", N_("4.3 Toolchains"), N_("4 Developer experience"), 4.3)


def context(site: SiteData) -> dict[str, Any]:
    """The toolchains page's context: the registry's frameworks that every row of the data file covers."""
    toolchains = load_data("toolchains.json")
    covered = [fw for fw in FRAMEWORKS if all(fw in row for row in toolchains["rows"])]
    return {"toolchains": toolchains, "frameworks": covered}
