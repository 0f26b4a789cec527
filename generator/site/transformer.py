"""Beyond the article: the GPT-style transformer trained in the three frameworks (``runners --workload gpt``), with
ResNet-18's tables, chart and verdict rules; its records never enter the article's pages or its claims check."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fwbench.stats import Stats, describe
from generator.i18n import N_, _, translate
from generator.records.aggregate import Summary, Table
from generator.records.identity import first_step
from generator.records.metrics import MEMORY_METRICS, charted_metric
from generator.site import Page
from generator.site.memory import cache_states, cached_title
from generator.site.speed import mfu_basis, mfu_line
from generator.spacing import fill
from generator.views import cell_text, chart_data, headline
from generator.views.caveats import PageCaveats
from generator.views.markdown_table import Grid, batch_grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, chart_title, views
from generator.views.transformer_model import flops_of, model_of, model_words

PAGE = Page(
    "results/transformer.md", "transformer.md.j2", N_("3.5 Beyond the article: a transformer"), N_("3 Results"), 3.5
)


@dataclass(frozen=True)
class TransformerTable:
    """One machine and setting of the transformer: the compiled-mode throughput with its verdicts, every other figure's
    grid per mode, the chart, MFU where the device's peak is known, and the model as its records state it."""

    view: TableView
    throughput: Grid
    grids: dict[str, dict[str, Grid]]  # mode -> title -> grid
    chart: str
    mfu: list[str]
    mfu_basis: str | None
    mfu_chart: str | None  # MFU against batch size, where the records have it
    model: dict[str, Any]  # the records' ``model``: sizes, trainable_params, flops_per_token


def perplexity(summary: Summary) -> Stats | None:
    """The last epoch's test perplexity, e^(test loss in nats per token), over the counted runs."""
    losses = [r["accuracy"]["epochs"][-1].get("test_loss") for r in summary.counted if r.get("accuracy")]
    return describe([math.exp(loss) for loss in losses if loss is not None])


def _grids(table: Table, mode: str) -> dict[str, Grid]:
    named = first_step(mode)  # named as the speed page names it: eager mode compiles nothing
    grids = {
        _("Seconds per epoch"): batch_grid(table, mode, cell_text.time_cell),
        translate(named.cold): batch_grid(table, mode, cell_text.compile_cell),
    }
    if any(s.warm_compile_seconds for s in table.summaries if s.key.mode == mode):
        grids[translate(named.warm)] = batch_grid(table, mode, cell_text.warm_compile_cell)
    if memory := charted_metric(table.summaries):
        title = fill(_("Memory: {figure} (MiB)"), figure=translate(MEMORY_METRICS[memory][0]))
        for warm in cache_states(table):  # a whole-run peak includes the compile's work: the states never pool
            grids[cached_title(title, warm)] = batch_grid(
                table, mode, lambda s, w=warm: cell_text.cached_memory_cell(s, memory, w)
            )
    grids[_("Test loss (nats per token), last epoch")] = batch_grid(
        table, mode, lambda s: cell_text.figure_cell(s, lambda x: x.final("test_loss"), digits=3)
    )
    grids[_("Test perplexity, last epoch")] = batch_grid(
        table, mode, lambda s: cell_text.figure_cell(s, perplexity, digits=2)
    )
    return grids


def _table(site: SiteData, view: TableView) -> TransformerTable:
    table = view.table
    name = f"{table.machine_id}-{table.setting.slug}"
    title = chart_title(view.machine, table)
    chart = site.add_chart(
        f"charts/transformer-{name}.png",
        lambda: chart_data.per_batch(table, lambda s: s.tokens_per_second, _("tokens per second"), title=title),
    )
    mfu_chart = None
    if any(s.mfu for s in table.summaries):
        mfu_chart = site.add_chart(
            f"charts/transformer-mfu-{name}.png",
            lambda: chart_data.per_batch(table, lambda s: s.mfu, _("MFU (%)"), scale=100, title=title),
        )
    return TransformerTable(
        view,
        headline.throughput_grid(table, site.throughput_leads(table)),
        {mode: _grids(table, mode) for mode in table.modes},
        chart,
        [mfu_line(view, s) for s in table.summaries if s.mfu],
        mfu_basis(table),
        mfu_chart,
        model_of(table),
    )


def context(site: SiteData) -> dict[str, Any]:
    """The transformer page's context: every transformer table, machine by machine in the pages' order, on each the
    largest model (by FLOPs per token) first, out of the box before tuned; the page's model is the workload's default
    size, and a table of another size says its own."""
    found = sorted(site.transformer_tables, key=lambda t: (bool(t.setting.tuning), -flops_of(t)))
    tables = [_table(site, v) for v in views(site, found)]
    default = [t.model for t in tables if t.model.get("sizes") and not t.view.table.setting.size]
    return {
        "tables": tables,
        "caveats": PageCaveats(t.view for t in tables),
        "model": default[0] if default else None,
        "model_words": model_words,
    }
