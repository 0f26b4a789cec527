"""Known platform issues: each issue of ``data/platform_issues.json`` with its size measured from the records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _
from generator.records import platform_issues
from generator.records.bisects import Bisect, matching
from generator.site import Page
from generator.verdicts import platform_issue
from generator.views import fmt
from generator.views.findings import size_words
from generator.views.grid import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import label_words
from generator.views.verdict_text import text

PAGE = Page("results/platform-issues.md", "platform_issues.md.j2", N_("Known platform issues"), N_("3 Results"), 3.4)


@dataclass(frozen=True)
class Issue:
    """An issue's facts from the data file and its measured size: a grid per machine and setting."""

    facts: dict[str, Any]
    workaround: str
    size: str | None  # in words, per machine; bold where the runs decide it
    measured: dict[str, Grid]  # "machine · setting" -> grid
    bisects: list[Bisect]  # the release bisects of the issue's framework, metric and batch size on its device kind


def _measured(pairs: list[platform_issues.Pair]) -> dict[str, Grid]:
    grids: dict[str, list[list[str]]] = {}
    for p in pairs:
        rows = grids.setdefault(f"{p.machine_id} · {label_words(p.setting_label)} · {p.column_label}", [])
        rows.append(
            [
                str(p.batch_size),
                f"{fmt.compact(p.plain_rate, digits=1)}<br><small>n={p.plain_rate.n}</small>",
                f"{fmt.compact(p.tuned_rate, digits=1)}<br><small>n={p.tuned_rate.n}</small>",
                fmt.cell(text(platform_issue.pair_text(p))),
            ]
        )
    header = [_("batch"), _("out of the box (img/s)"), _("with the workaround (img/s)"), _("faster")]
    return {where: Grid(header, rows) for where, rows in grids.items()}


def _bisects(site: SiteData, facts: dict[str, Any]) -> list[Bisect]:
    """The bisect reports the issue's ``bisect`` field names, on machines of the issue's device kind."""
    wanted = facts.get("bisect")
    if not wanted:
        return []
    return matching(site.bisects, wanted["framework"], wanted["metric"], wanted["batch_size"], facts["device_kind"])


def context(site: SiteData) -> dict[str, Any]:
    """The platform issues page's context."""
    data = platform_issues.load_issues()
    issues = []
    for facts in data["issues"]:
        pairs = platform_issues.measured_pairs(facts, site.tables, site.device_kinds)
        size = size_words(pairs)
        workaround = platform_issues.workaround_text(facts)
        issues.append(Issue(facts, workaround, size, _measured(pairs), _bisects(site, facts)))
    return {"about": data["about"], "issues": issues}
