"""3.2 Memory: every memory figure the records hold, per machine and setting, with what each one counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator import cells, chart_data, fmt
from generator.aggregate import Table
from generator.grid import Grid, batch_grid
from generator.i18n import N_, _, translate
from generator.metrics import MEMORY_METRICS, charted_metric, metrics_of
from generator.page import Page
from generator.sitedata import SiteData
from generator.table_view import TableView, views

PAGE = Page("results/memory.md", "memory.md.j2", N_("3.2 Memory"), N_("3 Results"), 3.2)


@dataclass(frozen=True)
class MemoryTable:
    """One table's grids per mode and metric, its chart, and what its host peak counts."""

    view: TableView
    grids: dict[str, dict[str, Grid]]  # mode -> metric title -> grid
    chart: str | None
    host_bases: list[str]


def host_bases(table: Table) -> list[str]:
    """What the table's host peak RSS figures count, as the records say (``memory.host_peak_basis``); records
    that do not say (older ones) are named as such."""
    said = {(r.record.get("memory") or {}).get("host_peak_basis") for r in table.runs if r.record.get("memory")}
    bases = sorted(b for b in said if b)
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
                table, lambda s: s.memory(charted), f"{translate(MEMORY_METRICS[charted][0])} (MiB)", 1 / fmt.MIB
            ),
        )
    bases = host_bases(table) if "host_peak_rss_bytes" in names else []
    return MemoryTable(view, grids, chart, bases)


def context(site: SiteData) -> dict[str, Any]:
    """The memory page's context."""
    return {
        "metrics": {name: tuple(translate(text) for text in texts) for name, texts in MEMORY_METRICS.items()},
        "tables": [_memory_table(site, v) for v in views(site, site.out_of_box + site.tuned)],
    }
