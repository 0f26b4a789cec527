"""4.1 Debugging: each framework's probe score first (with and without the silently cast probes), then per
machine a bug × framework matrix of outcomes and a bar chart of their scores, then every captured message,
verbatim, per bug and framework."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import FRAMEWORKS, label
from fwbench.probe_outcome import reports_planted_bug
from generator.i18n import N_, _
from generator.records import probes as probe_view
from generator.records.load import Loaded
from generator.records.probes import BugRow, ProbeScores
from generator.site import Page
from generator.views.chart_data import bars, runs_word, titled
from generator.views.charts import Chart
from generator.views.markdown_table import Grid
from generator.views.record_text import recorded, score_part
from generator.views.sitedata import SiteData
from generator.views.table_view import device_title

PAGE = Page("devex/debugging.md", "debugging.md.j2", N_("4.1 Debugging"), N_("4 Developer experience"), 4.1)
#: an outcome's tone -> (Material icon, the admonition type of its message block)
TONES = {
    "good": ("material-check-circle", "success"),
    "bad": ("material-close-circle", "failure"),
    "neutral": ("material-information-outline", "info"),
}


@dataclass(frozen=True)
class Message:
    """One probe's captured output as its block shows it."""

    probe: Loaded
    outcome: str  # readable
    kind: str  # the admonition type: success, failure, info
    cast_evidence: str | None
    score: dict  # under the current rubric (probe_view.probe_score)
    reports_bug: bool | None  # False: an error about something else, which scores 0


@dataclass(frozen=True)
class MachineProbes:
    """One machine's probes: its rubric, the matrix per mode, and the messages per bug and framework."""

    machine_id: str
    device: str
    rubric: str
    matrix: dict[str, Grid]  # mode -> grid
    charts: dict[str, tuple[str, str]]  # mode -> (alt text, path) of its scores' bar chart
    bugs: list[tuple[BugRow, dict[str, list[Message]]]]  # (bug, framework label -> messages by mode)


def summary_grid(scores: ProbeScores) -> Grid:
    """Frameworks as columns: the ranked score without silently cast probes, the score with them, and the counts
    of each (the same for every framework), then each framework's silently cast probes and those left out. No cell
    is bold: the page names no leader (Which to choose weighs the scores, with its own margin)."""
    present = [fw for fw in FRAMEWORKS if fw in scores.with_cast]
    every_cast = "— " + _("(every probe was cast)")
    rows = [
        [
            _("score without silently cast probes"),
            *(f"{scores[fw]:.0%}" if fw in scores else every_cast for fw in present),
        ],
        [_("score with them"), *(f"{scores.with_cast[fw]:.0%}" for fw in present)],
        [_("probes in the first score"), *(str(scores.ranked[fw]) for fw in present)],
        [_("probes in the second score"), *(str(scores.scored[fw]) for fw in present)],
        [_("silently cast"), *(str(scores.cast[fw]) for fw in present)],
        [_("left out: not run by every framework"), *(str(scores.left_out[fw]) for fw in present)],
    ]
    return Grid(["", *(label(fw) for fw in present)], rows)


def _cell(probe: Loaded | None, scores: ProbeScores) -> str:
    if probe is None:
        return _("not run")
    category = scores.shown_category(probe)
    icon, _kind = TONES[probe_view.outcome_tone(category)]
    score = probe_view.probe_score(probe.record)
    return (
        f":{icon}:{{ .fw-{probe_view.outcome_tone(category)} }} {probe_view.outcome_label(category)} "
        f"<small>{score['total']:g}/{score['max']:g}</small>"
    )


def _scores_chart(site: SiteData, machine_id: str, rows: list[BugRow], frameworks: list[str], mode: str) -> str:
    """The path of a bar chart of each probe's score in ``mode`` on the machine, per bug and framework, as a share
    of the rubric's maximum, titled with the machine, the mode and n (one probe per bar)."""
    machine = device_title(site.machine_by_id.get(machine_id), machine_id)
    title = titled([machine, _(mode), runs_word({1})])

    def share(probe: Loaded) -> float:
        score = probe_view.probe_score(probe.record)
        return 100 * score["total"] / score["max"] if score["max"] else 0.0

    def build() -> Chart:
        values = {
            fw: [(place, share(probe), 0.0) for place, row in enumerate(rows) if (probe := row.probes.get((fw, mode)))]
            for fw in frameworks
        }
        return bars([row.title for row in rows], values, _("score (per cent of the rubric's maximum)"), title)

    return site.add_chart(f"charts/debugging-{machine_id}-{mode}.png", build)


def _machine(site: SiteData, machine_id: str, found: list[Loaded]) -> MachineProbes:
    scores = site.probe_scores
    rows = probe_view.bug_rows(found)
    frameworks = [fw for fw in FRAMEWORKS if any(fw == f for row in rows for f, _ in row.probes)]
    modes = sorted({m for row in rows for _, m in row.probes}, key=lambda m: m != "compiled")
    matrix = {
        mode: Grid(
            [_("bug"), *(label(fw) for fw in frameworks)],
            [[row.title, *(_cell(row.probes.get((fw, mode)), scores) for fw in frameworks)] for row in rows],
            text=tuple(range(len(frameworks) + 1)),
        )
        for mode in modes
    }
    bugs = []
    for row in rows:
        messages: dict[str, list[Message]] = defaultdict(list)
        for (fw, _mode), probe in row.probes.items():
            category = scores.shown_category(probe)
            messages[label(fw)].append(
                Message(
                    probe,
                    probe_view.outcome_label(category),
                    TONES[probe_view.outcome_tone(category)][1],
                    probe_view.cast_evidence_text(probe.record) if str(probe.path) in scores.evidence else None,
                    probe_view.probe_score(probe.record),
                    reports_planted_bug(probe.record),
                )
            )
        bugs.append((row, dict(messages)))
    machine = site.machine_by_id.get(machine_id)
    charts = {mode: _scores_chart(site, machine_id, rows, frameworks, mode) for mode in modes}
    return MachineProbes(
        machine_id,
        device_title(machine, machine_id),
        recorded(found[0].record["score"]["rubric"]),
        matrix,
        {mode: (site.charts[path].title, path) for mode, path in charts.items()},
        bugs,
    )


def context(site: SiteData) -> dict[str, Any]:
    """The debugging page's context."""
    by_machine: dict[str, list[Loaded]] = defaultdict(list)
    for probe in sorted(probe_view.todays(site.results.probes), key=probe_view.probe_order):
        by_machine[probe.machine_id].append(probe)
    scores = site.probe_scores
    return {
        "summary": summary_grid(scores) if scores.with_cast else None,
        "score_part": score_part,
        "machines": [_machine(site, machine_id, found) for machine_id, found in sorted(by_machine.items())],
    }
