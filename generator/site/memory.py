"""3.2 Memory: every memory figure the records hold, per machine and setting, with what each one counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, translate
from generator.records.aggregate import Summary, Table
from generator.records.metrics import MEMORY_METRICS, MIB, charted_metric, metrics_of
from generator.site import Page
from generator.spacing import fill
from generator.views import cells, chart_data
from generator.views.grid import Grid, batch_grid
from generator.views.record_text import recorded
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, setting_word, views

PAGE = Page("results/memory.md", "memory.md.j2", N_("3.2 Memory"), N_("3 Results"), 3.2)


@dataclass(frozen=True)
class MemoryTable:
    """One table's grids per mode and metric, its chart, and what its host peak counts."""

    view: TableView
    grids: dict[str, dict[str, Grid]]  # mode -> metric title -> grid
    chart: str | None
    host_bases: list[str]
    falling: list[str]  # ``JAX: 8,824 MiB at batch 32, 6,264 MiB at batch 256`` where a larger batch peaks lower
    phases: dict[str, Grid]  # mode -> the NVML peak of the first step and of the timed epochs (newer records)


#: a run's phases as ``memory.phases`` names them, with what a reader reads
PHASES = {"first_step": N_("first step"), "timed": N_("timed epochs")}


def falling_peaks(table: Table) -> list[str]:
    """Columns whose NVML process peak is lower at a larger batch size than at a smaller one: the smallest batch's
    figure beside the largest's."""
    found = []
    for column in table.columns:
        peaks = [
            (bs, st.mean)
            for bs in table.batch_sizes
            if (s := table.at(column, bs)) and (st := s.memory("nvml_process_peak_bytes"))
        ]
        if len(peaks) > 1 and peaks[-1][1] < max(p for _bs, p in peaks[:-1]):
            (first, high), (last, low) = max(peaks[:-1], key=lambda p: p[1]), peaks[-1]
            found.append(
                fill(
                    _("{column} {mode}: {high:,.0f} MiB at batch {first}, {low:,.0f} MiB at batch {last}"),
                    column=table.column_label(column),
                    mode=setting_word(column.mode),
                    high=high / MIB,
                    first=first,
                    low=low / MIB,
                    last=last,
                )
            )
    return found


def _phase_cell(summary: Summary | None) -> str:
    """The mean NVML peak of each phase, in MiB, over the configuration's counted runs that recorded phases."""
    phases = [p for r in summary.counted if (p := (r.get("memory") or {}).get("phases"))] if summary else []
    if not phases:
        return "—"
    lines = []
    for phase, words in PHASES.items():
        found = [p[phase]["nvml_peak_bytes"] for p in phases if p.get(phase) and p[phase].get("nvml_peak_bytes")]
        if found:
            lines.append(f"{sum(found) / len(found) / MIB:,.0f}<br><small>{translate(words)}</small>")
    return "<br>".join(lines) or "—"


def phase_grids(table: Table) -> dict[str, Grid]:
    """Mode -> the NVML peak by phase, where the table's records carry ``memory.phases``."""
    if not any((r.record.get("memory") or {}).get("phases") for r in table.runs):
        return {}
    return {mode: batch_grid(table, mode, _phase_cell) for mode in table.modes}


def host_bases(table: Table) -> list[str]:
    """What the table's host peak RSS figures count, as the records say (``memory.host_peak_basis``); records
    that do not say (older ones) are named as such."""
    said = {(r.record.get("memory") or {}).get("host_peak_basis") for r in table.runs if r.record.get("memory")}
    bases = sorted(recorded(b) for b in said if b)
    if None in said:
        bases.append(_("not stated by older records, which may count the benchmark's own process only"))
    return bases


def _memory_table(site: SiteData, view: TableView) -> MemoryTable:
    table = view.table
    names = metrics_of(table.summaries)
    grids = {
        mode: {
            translate(MEMORY_METRICS[name][0]): batch_grid(table, mode, lambda s, n=name: cells.memory_cell(s, n))
            for name in names
        }
        for mode in table.modes
    }
    charted = charted_metric(table.summaries)
    chart = None
    if charted:
        path = f"charts/memory-{table.machine_id}-{table.setting.slug}.png"
        chart = site.add_chart(
            path,
            lambda: chart_data.per_batch(
                table, lambda s: s.memory(charted), f"{translate(MEMORY_METRICS[charted][0])} (MiB)", 1 / MIB
            ),
        )
    bases = host_bases(table) if "host_peak_rss_bytes" in names else []
    return MemoryTable(view, grids, chart, bases, falling_peaks(table), phase_grids(table))


def context(site: SiteData) -> dict[str, Any]:
    """The memory page's context."""
    return {
        "metrics": {name: tuple(translate(text) for text in texts) for name, texts in MEMORY_METRICS.items()},
        "tables": [_memory_table(site, v) for v in views(site, site.out_of_box + site.tuned)],
    }
