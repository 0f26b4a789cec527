"""3.1 Speed: throughput, seconds per epoch and compile time per machine and setting, tuned runs apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, translate
from generator.records.aggregate import Summary, Table
from generator.records.identity import first_step
from generator.site import Page
from generator.spacing import fill
from generator.views import cell_text, chart_data
from generator.views.caveats import PageCaveats
from generator.views.markdown_table import Grid, batch_grid
from generator.views.record_text import recorded
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, chart_title, precision_words, setting_word, views

PAGE = Page("results/speed.md", "speed.md.j2", N_("3.1 Speed"), N_("3 Results"), 3.1)


@dataclass(frozen=True)
class SpeedTable:
    """One table's grids per mode, its chart, and its failed configurations."""

    view: TableView
    grids: dict[str, dict[str, Grid]]  # mode -> title -> grid
    chart: str
    failures: list[Summary]
    mfu: list[str]  # one configuration's MFU and its peak each
    mfu_basis: str | None


def _grids(view: TableView, mode: str) -> dict[str, Grid]:
    table = view.table
    rates = batch_grid(table, mode, cell_text.rate_cell)
    # a ratio of throughputs: the same work at every batch size, whatever each epoch's size
    speedup = [
        _("speed-up, smallest → largest batch (images/s ratio)"),
        *(cell_text.speedup_cell(table, c) for c in table.columns_in(mode)),
    ]
    named = first_step(mode)  # eager mode compiles nothing: its first step's excess is set-up overhead
    cold, warm = translate(named.cold), translate(named.warm)
    grids = {
        _("Images per second"): Grid(rates.header, [*rates.rows, speedup]),
        _("Seconds per epoch"): batch_grid(table, mode, cell_text.time_cell),
        cold: batch_grid(table, mode, cell_text.compile_cell),
    }
    if any(s.key.mode == mode and (s.warm_compile_seconds or s.compile_below_noise(True)) for s in table.summaries):
        grids[warm] = batch_grid(table, mode, cell_text.warm_compile_cell)
    return grids


#: the peak table a record's MFU divided by (``mfu.peak_table``, runners/measure/device_peaks.json) as people name it
PEAK_NAMES = {"float32": "FP32", "tf32": "TF32", "bfloat16": "BF16"}


def mfu_line(view: TableView, summary: Summary) -> str:
    """One configuration's MFU with the peak it is a share of: ``PyTorch compiled, batch 32: MFU 44.2 % of the
    NVIDIA H200's dense FP32 peak, 67 TFLOP/s (strict FP32 (TF32 off), n=1)``; records made before the peak table
    was recorded divided by the float32 one."""
    counted = [r["mfu"] for r in summary.counted if r.get("mfu")]
    peak = min(m["peak_flops_per_second"] for m in counted)
    table = counted[0].get("peak_table") or "float32"
    return fill(
        _(
            "{column} {mode}, batch {batch}: MFU {mfu:.1%} of the {device}'s dense {peak_name} peak, {peak:g} TFLOP/s "
            "({precision}, n={n})"
        ),
        peak_name=PEAK_NAMES.get(table, table),
        column=view.table.column_label(summary.key.column),
        mode=setting_word(summary.key.mode),
        batch=summary.key.batch_size,
        mfu=summary.mfu.mean,
        device=view.device,
        precision=precision_words(view.table.setting),
        peak=peak / 1e12,
        n=summary.mfu.n,
    )


def mfu_basis(table: Table) -> str | None:
    """How the table's records computed MFU (``mfu.basis``), in the language being written."""
    bases = [r["mfu"].get("basis") for s in table.summaries for r in s.counted if r.get("mfu")]
    return recorded(bases[0]) if bases else None


def _speed_table(site: SiteData, view: TableView) -> SpeedTable:
    table = view.table
    chart = site.add_chart(
        f"charts/speed-{table.machine_id}-{table.setting.slug}.png",
        lambda: chart_data.per_batch(
            table, lambda s: s.images_per_second, _("images per second"), title=chart_title(view.machine, table)
        ),
    )
    mfu = [mfu_line(view, s) for s in table.summaries if s.mfu]
    return SpeedTable(
        view,
        {mode: _grids(view, mode) for mode in table.modes},
        chart,
        [s for s in table.summaries if s.n_ok == 0],
        mfu,
        mfu_basis(table),
    )


def context(site: SiteData) -> dict[str, Any]:
    """The speed page's context: every table, out of the box first, then the tuned ones."""
    tables = [_speed_table(site, v) for v in views(site, site.out_of_box + site.tuned)]
    return {"tables": tables, "caveats": PageCaveats(t.view for t in tables)}
