"""6.3 Maintenance: release cadence, support windows and known vulnerabilities from PyPI, and GitHub figures, from
the latest ecosystem snapshot, beside the article's star growth; how often an upgrade changed a result or an error
message (the probes across releases and the release bisects)."""

from __future__ import annotations

from typing import Any

from generator.i18n import N_, _
from generator.records.ecosystem import history
from generator.site import Page
from generator.views import chart_data, registry
from generator.views.ecosystem import source_sections, sources_on, unreached_sources
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.upgrades import upgrades_grid

PAGE = Page("beyond/maintenance.md", "maintenance.md.j2", N_("6.3 Maintenance"), N_("6 Beyond performance"), 6.3)


def context(site: SiteData) -> dict[str, Any]:
    """The maintenance page's context."""
    snapshot = site.snapshot.record if site.snapshot else None
    growth = site.article["star_growth"]["percent_per_year"]
    series = history(site.results.snapshots, "github", "stars")
    chart = (
        site.add_chart("charts/history-github-stars.png", lambda: chart_data.history(series, _("GitHub stars")))
        if series
        else None
    )
    article = Grid([_("repository"), _("star growth per year")], [[repo, f"{pct} %"] for repo, pct in growth.items()])
    pypi = bool(snapshot and registry.frameworks_in(snapshot))
    return {
        "snapshot": snapshot,
        "sections": source_sections(snapshot, sources_on(PAGE.path)),
        "unreached": unreached_sources(snapshot, PAGE.path),
        "article": article,
        "history": chart,
        "pypi": pypi,
        "cadence": registry.cadence_grid(snapshot) if pypi else None,
        "support": registry.support_grid(snapshot) if pypi else None,
        "pure": ", ".join(f"`{p}`" for p in registry.pure_packages(snapshot)) if pypi else "",
        "vulnerabilities": registry.vulnerability_grid(snapshot) if pypi else None,
        "upgrades": upgrades_grid(site.results.probes, site.bisects),
        "releases_chart": (
            site.add_chart("charts/pypi-releases-per-year.png", lambda: registry.releases_chart(snapshot))
            if pypi
            else None
        ),
    }
