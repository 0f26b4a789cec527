"""6.1 Community: Stack Overflow and pypistats.org figures from the latest ecosystem snapshot beside the article's."""

from __future__ import annotations

from typing import Any

from generator.i18n import N_, _
from generator.records.ecosystem import history
from generator.site import Page
from generator.views import chart_data
from generator.views.ecosystem import source_sections, sources_on, unreached_sources
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData

PAGE = Page("beyond/community.md", "community.md.j2", N_("6.1 Community"), N_("6 Beyond performance"), 6.1)


def article_grid(article: dict[str, Any]) -> Grid:
    """The article's 6.1 figures: a row per tag."""
    so = article["stackoverflow"]
    rows = [[tag, f"{count:,}+", str(so["first_answer_mean_minutes"][tag])] for tag, count in so["questions"].items()]
    return Grid([_("tag"), _("questions in the past year"), _("mean minutes to a first answer")], rows)


def context(site: SiteData) -> dict[str, Any]:
    """The community page's context."""
    snapshot = site.snapshot.record if site.snapshot else None
    series = history(site.results.snapshots, "stackoverflow", "total_questions")
    chart = (
        site.add_chart(
            "charts/history-stackoverflow-total_questions.png",
            lambda: chart_data.history(series, _("questions ever asked with the tag")),
        )
        if series
        else None
    )
    return {
        "snapshot": snapshot,
        "sections": source_sections(snapshot, sources_on(PAGE.path)),
        "unreached": unreached_sources(snapshot, PAGE.path),
        "article": article_grid(site.article),
        "history": chart,
    }
