"""A machine's verdicts table: every framework's throughput at each batch size, the verdict on the lead, and its
compile time with the epochs after which compiling pays off.

A leader is named — in bold, as "fastest" — only where its lead is decided (``Lead.decided``: the two best figures'
runs paired by rounds put it ahead in one sitting or more); the row's verdict is one statement, the ratio with its
interval and the sittings that replicate it (``lead_words.statement``), each sitting's own ratio folded beside it
(``verdict_cell``). A pay-off only where compiled and eager epochs are apart (``verdicts.payoff``)."""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.frameworks import REGISTRY
from fwbench.stats import Stats
from generator.i18n import _, ngettext, translate
from generator.records.aggregate import Column, Summary, Table
from generator.records.flags import FLAGGED_RUNS
from generator.spacing import fill
from generator.verdicts.leads import Lead, throughput_of
from generator.verdicts.payoff import Payoff, payoff
from generator.views import text_format
from generator.views.cell_text import compile_cell, figure_cell, marks
from generator.views.lead_words import per_sitting, statement
from generator.views.markdown_table import Grid

#: the command that adds the eager runs a pay-off needs
EAGER_COMMAND = "runners matrix --modes compiled,eager"


@dataclass(frozen=True)
class Row:
    """One batch size: a cell per column, the verdict on the lead, and each sitting's part in it (where a lead has a
    competitor)."""

    batch_size: int
    cells: list[str]
    verdict: str
    sittings: tuple[str, ...] = ()


def verdict_cell(row: Row) -> str:
    """A row's verdict as a table cell: the statement, and where it rests on more than one sitting each sitting's ratio
    in a fold under it."""
    if len(row.sittings) < 2:
        return row.verdict
    summary = fill(ngettext("{n} sitting", "{n} sittings", len(row.sittings)), n=len(row.sittings))
    return f"{row.verdict}<details><summary>{summary}</summary>{'<br>'.join(row.sittings)}</details>"


def _rates(table: Table, columns: list[Column], batch_size: int) -> dict[Column, Stats]:
    found, rate = {c: table.at(c, batch_size) for c in columns}, throughput_of(table)
    return {c: rate(s) for c, s in found.items() if s and s.n_ok and rate(s)}


def _rate_cell(summary: Summary | None, stats: Stats | None, leads: bool) -> str:
    """A throughput cell; where it ``leads`` (the decided leader's), in bold as the fastest. The lead judges the two
    best figures only, and the row's verdict gives the gap between them: no cell states a distance of its own."""
    if summary is None or stats is None:
        return figure_cell(summary, lambda s: None)
    figure = text_format.compact(stats, digits=1)
    if leads:
        return f"**{figure}**<br><small>{_('fastest')} · n={stats.n}{marks(summary)}</small>"
    return f"{figure}<br><small>n={stats.n}{marks(summary)}</small>"


def _unjudged(summaries: list[Summary]) -> str:
    flags = sorted({f for s in summaries for f in s.flags})
    if not flags:
        return _("not judged")
    return fill(_("not judged: {runs}"), runs=_(" and ").join(translate(FLAGGED_RUNS[f]) for f in flags))


def throughput_rows(table: Table, columns: list[Column], leads: dict[int, Lead | None]) -> list[Row]:
    """Throughput (images/s, the transformer's tokens/s) of every column at every batch size and the row's verdict
    on ``leads`` (batch size -> the lead among ``columns``, from judged runs only, by the paired rule); where the lead
    is decided, the leader in bold as the fastest."""
    rows = []
    for bs in table.batch_sizes:
        rates = _rates(table, columns, bs)
        lead = leads.get(bs)
        leader = lead.leader if lead and lead.decided else None
        cells = [_rate_cell(table.at(c, bs), rates.get(c), table.column_label(c) == leader) for c in columns]
        if lead:
            verdict = statement(lead)
        elif len(rates) < 2:
            verdict = _("nothing to compare")
        else:
            verdict = _unjudged([s for c in columns if (s := table.at(c, bs))])
        rows.append(Row(bs, cells, verdict, tuple(per_sitting(lead)) if lead else ()))
    return rows


def throughput_grid(table: Table, leads: dict[int, Lead | None]) -> Grid:
    """The compiled columns' throughput at every batch size with the row's verdict (``verdict_cell``), a column per
    framework that ran: the verdicts table of a machine and setting."""
    compiled = table.columns_in("compiled")
    rows = throughput_rows(table, compiled, leads)
    return Grid(
        [_("batch"), *(table.column_label(c) for c in compiled), _("verdict")],
        [[str(r.batch_size), *r.cells, verdict_cell(r)] for r in rows],
        text=(0, -1),
    )


def _payoff_text(value: Payoff) -> str:
    if not value.measurable:
        return fill(_("no measurable pay-off (n = {n})"), n=value.n)
    if value.epochs is None:
        return _("never: eager epochs are faster")
    return fill(ngettext("pays off after {n} epoch", "pays off after {n} epochs", value.epochs), n=value.epochs)


def compile_rows(table: Table, columns: list[Column]) -> tuple[list[Row], dict[str, list[str]]]:
    """Compile time with cold caches (``cell_text.compile_cell``) of every compiled column at every batch size, with
    when compiling pays off (where compiled and eager epochs are apart, else that no pay-off is measurable); and,
    for the columns with no eager figure to set beside, why (reason -> column labels)."""
    rows = []
    for bs in table.batch_sizes:
        cells = []
        for c in columns:
            figure = compile_cell(table.at(c, bs))
            value = payoff(table, c, bs)
            cells.append(figure if value is None else f"{figure}<br><small>{_payoff_text(value)}</small>")
        rows.append(Row(bs, cells, ""))
    notes: dict[str, list[str]] = {}
    for c in columns:
        if all(payoff(table, c, bs) is None for bs in table.batch_sizes):
            reason = (
                _("no eager training mode, so nothing to pay off against")
                if "eager" not in REGISTRY[c.framework].training_modes
                else fill(
                    _("no eager run in these records to compare with (`{command}` adds them)"), command=EAGER_COMMAND
                )
            )
            notes.setdefault(reason, []).append(table.column_label(c))
    return rows, notes
