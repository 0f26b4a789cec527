"""The home page's answer: every framework's throughput at each batch size, its gap to the fastest, the noise
verdict, and its compile time with the epochs after which compiling pays off."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fwbench.frameworks import REGISTRY
from generator import fmt
from generator.aggregate import FLAGGED_RUNS, Column, Summary, Table
from generator.cells import figure_cell, marks
from generator.i18n import _, ngettext, translate
from generator.leads import lead_at
from generator.stats import Stats

#: the command that adds the eager runs a pay-off needs
EAGER_COMMAND = "runners matrix --modes compiled,eager"


@dataclass(frozen=True)
class Row:
    """One batch size: a cell per column and the verdict on the lead."""

    batch_size: int
    cells: list[str]
    verdict: str


def _rates(table: Table, columns: list[Column], batch_size: int) -> dict[Column, Stats]:
    found = {c: table.at(c, batch_size) for c in columns}
    return {c: s.images_per_second for c, s in found.items() if s and s.n_ok and s.images_per_second}


def _rate_cell(summary: Summary | None, stats: Stats | None, fastest: float) -> str:
    if summary is None or stats is None:
        return figure_cell(summary, lambda s: None)
    gap = _("fastest") if stats.mean == fastest else f"{100 * (stats.mean / fastest - 1):.0f} %".replace("-", "−")
    figure = fmt.compact(stats, digits=1)
    figure = f"**{figure}**" if stats.mean == fastest else figure
    return f"{figure}<br><small>{gap} · n={stats.n}{marks(summary)}</small>"


def _unjudged(summaries: list[Summary]) -> str:
    flags = sorted({f for s in summaries for f in s.flags})
    if not flags:
        return _("not judged")
    return _("not judged: {runs}").format(runs=_(" and ").join(translate(FLAGGED_RUNS[f]) for f in flags))


def throughput_rows(table: Table, columns: list[Column]) -> list[Row]:
    """Images per second of every column at every batch size, each beside its gap to the fastest (descriptive,
    over every figure shown) and the row's verdict (judged runs only, by the noise rules)."""
    rows = []
    for bs in table.batch_sizes:
        rates = _rates(table, columns, bs)
        fastest = max((st.mean for st in rates.values()), default=0.0)
        cells = [_rate_cell(table.at(c, bs), rates.get(c), fastest) for c in columns]
        lead = lead_at(table, bs, columns, lambda s: s.images_per_second, higher_is_better=True)
        if lead:
            verdict = (
                lead.verdict
                if lead.status is None
                else _("{leader}: {verdict}").format(leader=lead.leader, verdict=lead.verdict)
            )
        elif len(rates) < 2:
            verdict = _("nothing to compare")
        else:
            verdict = _unjudged([s for c in columns if (s := table.at(c, bs))])
        rows.append(Row(bs, cells, verdict))
    return rows


def payoff(table: Table, column: Column, batch_size: int) -> int | str | None:
    """After how many epochs the compiled mode's extra start-up is repaid by its faster epochs (from the means):
    a number of epochs, ``"never"`` when eager epochs are as fast, or None when there is no eager figure."""
    compiled = table.at(column, batch_size)
    eager = table.at(Column(column.framework, column.version, "eager"), batch_size)
    if not (
        eager
        and eager.epoch_seconds
        and eager.compile_seconds
        and compiled
        and compiled.epoch_seconds
        and compiled.compile_seconds
    ):
        return None
    saved = eager.epoch_seconds.mean - compiled.epoch_seconds.mean
    extra = compiled.compile_seconds.mean - eager.compile_seconds.mean
    if saved <= 0:
        return "never"
    return max(1, math.ceil(extra / saved))


def _payoff_text(value: int | str) -> str:
    if value == "never":
        return _("never: eager epochs are as fast")
    return ngettext("pays off after {n} epoch", "pays off after {n} epochs", value).format(n=value)


def compile_rows(table: Table, columns: list[Column]) -> tuple[list[Row], dict[str, list[str]]]:
    """Compile time of every compiled column at every batch size, with when compiling pays off; and, for the
    columns where that cannot be said, why (reason -> column labels)."""
    rows = []
    for bs in table.batch_sizes:
        cells = []
        for c in columns:
            text = figure_cell(table.at(c, bs), lambda s: s.compile_seconds, digits=1, unit="s")
            value = payoff(table, c, bs)
            cells.append(text if value is None else f"{text}<br><small>{_payoff_text(value)}</small>")
        rows.append(Row(bs, cells, ""))
    notes: dict[str, list[str]] = {}
    for c in columns:
        if all(payoff(table, c, bs) is None for bs in table.batch_sizes):
            reason = (
                _("no eager training mode, so nothing to pay off against")
                if "eager" not in REGISTRY[c.framework].training_modes
                else _("no eager run in these records to compare with (`{command}` adds them)").format(
                    command=EAGER_COMMAND
                )
            )
            notes.setdefault(reason, []).append(table.column_label(c))
    return rows, notes
