"""1 Who is faster: the answer in one screen per device class — a short paragraph each (the machine that built the
site first, then TPUs, GPUs and CPUs) with its chart right under it — and where everything else is: the verdicts
machine by machine, the figures, the choice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_
from generator.site import Page
from generator.views import answer
from generator.views.answer_charts import group_chart
from generator.views.answer_classes import AnswerGroup, answer_groups
from generator.views.chart_data import titled
from generator.views.sitedata import SiteData

PAGE = Page("index.md", "index.md.j2", N_("1 Who is faster"), None, 1.0)


@dataclass(frozen=True)
class Answer:
    """One group's answer: its paragraph (Markdown), and its chart's path and title where it has one."""

    paragraph: str
    chart: str | None
    title: str


def _answer(site: SiteData, group: AnswerGroup) -> Answer:
    chart = group_chart(group)
    if chart is None:
        return Answer(answer.paragraph(site, group), None, "")
    slug = "this-machine" if group.builder else group.kind
    path = site.add_chart(f"charts/answer-{slug}.png", lambda: chart)
    return Answer(answer.paragraph(site, group), path, titled(chart.title.split("\n")))


def context(site: SiteData) -> dict[str, Any]:
    """The home page's context."""
    return {
        "article": site.article["article"],
        "counts": {
            "runs": len(site.results.runs),
            "machines": len(site.machines),
            "probes": len(site.results.probes),
            "snapshots": len(site.results.snapshots),
        },
        "skipped": site.results.skipped,
        "answers": [_answer(site, group) for group in answer_groups(site)],
        "transformer": bool(site.transformer_tables),
    }
