"""4.3 Toolchains: curated, dated facts from ``data/toolchains.json``, each with its source; the platforms, accelerator
builds and install sizes from the latest ecosystem snapshot's PyPI figures."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator.data_text import load_data
from generator.i18n import N_
from generator.site import Page
from generator.views import registry
from generator.views.sitedata import SiteData

PAGE = Page("devex/toolchains.md", "toolchains.md.j2", N_("4.3 Toolchains"), N_("4 Developer experience"), 4.3)


def context(site: SiteData) -> dict[str, Any]:
    """The toolchains page's context: the registry's frameworks that every row of the data file covers, and the
    snapshot's PyPI figures where it has them."""
    toolchains = load_data("toolchains.json")
    covered = [fw for fw in FRAMEWORKS if all(fw in row for row in toolchains["rows"])]
    snapshot = site.snapshot.record if site.snapshot else None
    pypi = bool(snapshot and registry.frameworks_in(snapshot))
    stacks = bool(pypi and registry.stack_frameworks(snapshot))
    return {
        "toolchains": toolchains,
        "frameworks": covered,
        "snapshot": snapshot,
        "pypi": pypi,
        "platforms": registry.platform_grid(snapshot) if pypi else None,
        "package_platforms": registry.package_platform_grid(snapshot) if pypi else None,
        "accelerators": registry.accelerator_grid(snapshot) if pypi else None,
        "stacks": registry.stack_grid(snapshot) if stacks else None,
        "provenance": registry.stack_provenance(snapshot) if stacks else None,
        "install_chart": (
            site.add_chart("charts/pypi-install-size.png", lambda: registry.install_chart(snapshot)) if stacks else None
        ),
    }
