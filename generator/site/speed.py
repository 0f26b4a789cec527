"""3.1 Speed: throughput, seconds per epoch and compile time per machine and setting, tuned runs apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator import cells, chart_data
from generator.aggregate import Summary
from generator.grid import Grid, batch_grid
from generator.i18n import N_, _
from generator.page import Page
from generator.sitedata import SiteData
from generator.table_view import TableView, views

PAGE = Page("results/speed.md", "speed.md.j2", N_("3.1 Speed"), N_("3 Results"), 3.1)


@dataclass(frozen=True)
class SpeedTable:
    """One table's grids per mode, its chart, and its failed configurations."""

    view: TableView
    grids: dict[str, dict[str, Grid]]  # mode -> title -> grid
    chart: str
    failures: list[Summary]
    mfu: list[str]


def _grids(view: TableView, mode: str) -> dict[str, Grid]:
    table = view.table
    seconds = batch_grid(table, mode, cells.time_cell)
    speedup = [_("speed-up, smallest → largest batch"), *(cells.speedup_cell(table, c) for c in table.columns_in(mode))]
    return {
        _("Images per second"): batch_grid(table, mode, cells.rate_cell),
        _("Seconds per epoch"): Grid(seconds.header, [*seconds.rows, speedup]),
        _("Compile time"): batch_grid(table, mode, cells.compile_cell),
    }


def _speed_table(site: SiteData, view: TableView) -> SpeedTable:
    table = view.table
    chart = site.add_chart(
        f"charts/speed-{table.machine_id}-{table.setting.slug}.png",
        lambda: chart_data.per_batch(table, lambda s: s.images_per_second, _("images per second")),
    )
    mfu = [
        _("{column} {mode} batch {batch}: {mfu:.1%} (n={n})").format(
            column=table.column_label(s.key.column), mode=s.key.mode, batch=s.key.batch_size, mfu=s.mfu.mean, n=s.mfu.n
        )
        for s in table.summaries
        if s.mfu
    ]
    return SpeedTable(
        view,
        {mode: _grids(view, mode) for mode in table.modes},
        chart,
        [s for s in table.summaries if s.n_ok == 0],
        mfu,
    )


def context(site: SiteData) -> dict[str, Any]:
    """The speed page's context: every table, out of the box first, then the tuned ones."""
    return {"tables": [_speed_table(site, v) for v in views(site, site.out_of_box + site.tuned)]}
