"""Known platform issues: each issue of ``data/platform_issues.json`` with its size measured from the records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _
from generator.message import and_list
from generator.records import platform_issues
from generator.records.bisects import Bisect, matching
from generator.site import Page
from generator.site.versions import bisect_notes, bisect_records
from generator.spacing import fill, spaced
from generator.verdicts import platform_issue
from generator.views import text_format
from generator.views.findings import size_words
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import label_words
from generator.views.verdict_text import text

#: where the records show an issue's cause: the machines whose runs with the workaround decide a speed-up, those
#: where they do not, and those of the issue's device kind with no run made with the workaround
SHOWN = N_("The workaround speeds {framework} up beyond the noise on {machines}: there the records show this cause.")
NOT_SHOWN = N_(
    "On {machines} its speed-up is not beyond the noise: there the records do not show that this cause slows "
    "{framework}."
)
UNMEASURED = N_("{machines}: no run made with the workaround, so the cause is not measured there.")
#: the same for an issue measured by reproducing its cause: where the setting decides a slow-down, and so on
REPRODUCED = N_("The setting slows {framework} beyond the noise on {machines}: there it reproduces this cause.")
NOT_REPRODUCED = N_(
    "On {machines} its slow-down is not beyond the noise: there the setting does not reproduce this cause."
)
UNREPRODUCED = N_("{machines}: no run made with the setting.")

PAGE = Page("results/platform-issues.md", "platform_issues.md.j2", N_("Known platform issues"), N_("3 Results"), 3.4)


@dataclass(frozen=True)
class Issue:
    """An issue's facts from the data file and its measured size: a grid per machine and setting."""

    facts: dict[str, Any]
    tuning: str  # the variables it is measured with (``platform_issues.tuning_text``)
    reproduces: bool  # measured by reproducing its cause (it has no workaround), not by working round it
    size: str | None  # in words, per machine; bold where the runs decide it
    measured: dict[str, Grid]  # "machine · setting" -> grid
    where: str  # the machines where the records show the cause, where they do not, and where it is not measured
    # the release bisects of the issue's framework, metric and batch size on its device kind, each with its notes
    # (``versions.bisect_notes``)
    bisects: list[tuple[Bisect, str | None]]


def _measured(pairs: list[platform_issues.Pair]) -> dict[str, Grid]:
    grids: dict[str, list[list[str]]] = {}
    headers: dict[str, list[str]] = {}
    for p in pairs:
        where = f"{p.machine_id} · {label_words(p.setting_label)} · {p.column_label}"
        rows, headers[where] = grids.setdefault(where, []), _header(p)
        rows.append(
            [
                str(p.batch_size),
                f"{text_format.compact(p.plain_rate, digits=1)}<br><small>n={p.plain_rate.n}</small>",
                f"{text_format.compact(p.tuned_rate, digits=1)}<br><small>n={p.tuned_rate.n}</small>",
                text_format.cell(text(platform_issue.pair_text(p))),
            ]
        )
    return {where: Grid(headers[where], rows) for where, rows in grids.items()}


def _header(pair: platform_issues.Pair) -> list[str]:
    """A grid's columns: the throughput in its workload's unit, with the workaround (faster) or the reproducing
    setting (slower)."""
    unit = _("tok/s") if pair.tokens else _("img/s")
    tuned, effect = (
        (_("with the setting ({unit})"), _("slower"))
        if pair.reproduces
        else (_("with the workaround ({unit})"), _("faster"))
    )
    return [_("batch"), fill(_("out of the box ({unit})"), unit=unit), fill(tuned, unit=unit), effect]


def _bisects(site: SiteData, facts: dict[str, Any]) -> list[Bisect]:
    """The bisect reports the issue's ``bisect`` field names, on machines of the issue's device kind."""
    wanted = facts.get("bisect")
    if not wanted:
        return []
    return matching(site.bisects, wanted["framework"], wanted["metric"], wanted["batch_size"], facts["device_kind"])


def _machines(ids: list[str]) -> str:
    return text(and_list([f"`{machine}`" for machine in ids]))


def _where(site: SiteData, facts: dict[str, Any], pairs: list[platform_issues.Pair]) -> str:
    """On which machines of the issue's device kind the records show its cause (``verdicts.platform_issue.sizes``
    decides each), on which they do not, and which have no run made with the workaround."""
    measured = platform_issue.sizes(pairs)
    shown = [m.machine_id for m in measured if m.decided]
    not_shown = [m.machine_id for m in measured if not m.decided]
    unmeasured = sorted(
        machine
        for machine, kind in site.device_kinds.items()
        if kind == facts["device_kind"] and machine not in {m.machine_id for m in measured}
    )
    framework = text_format.label(facts["framework"])
    messages = (
        (REPRODUCED, NOT_REPRODUCED, UNREPRODUCED)
        if platform_issues.reproduces(facts)
        else (SHOWN, NOT_SHOWN, UNMEASURED)
    )
    parts = [
        fill(_(message), machines=_machines(ids), framework=framework)
        for message, ids in zip(messages, (shown, not_shown, unmeasured), strict=True)
        if ids
    ]
    return spaced(parts)


def context(site: SiteData) -> dict[str, Any]:
    """The platform issues page's context."""
    data = platform_issues.load_issues()
    issues = []
    for facts in data["issues"]:
        pairs = platform_issues.measured_pairs(facts, site.workload_tables, site.device_kinds)
        size = size_words(pairs)
        bisects = [
            (found, bisect_notes(site, found, bisect_records(found, site.results.bisect_runs)))
            for found in _bisects(site, facts)
        ]
        # the data file names the bisect's finding; which machine it ran on comes from its report
        machines = text(and_list(sorted({found.machine_id for found, _notes in bisects}))) or "—"
        facts = {**facts, "versions": fill(facts["versions"], machines=machines)}
        where = _where(site, facts, pairs)
        tuning, reproduces = platform_issues.tuning_text(facts), platform_issues.reproduces(facts)
        issues.append(Issue(facts, tuning, reproduces, size, _measured(pairs), where, bisects))
    return {"about": data["about"], "issues": issues}
