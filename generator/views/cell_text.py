"""The text of a results table's cell: a figure with its spread and run count, its marks, or why there is none.

Cells are compact so that a table with one column per framework fits a phone: ``9.07 ± 0.30 s`` and, smaller,
``n=3`` with any mark (``◌`` older record, ``⚑`` busy, ``↝`` a run's step time drifted within it) — the page's
legend says what they mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fwbench.run_figures import drift
from fwbench.stats import Stats
from generator.i18n import N_, _, ngettext, translate
from generator.records.aggregate import Column, Summary, Table, rate_of
from generator.records.flags import BUSY, OLDER
from generator.records.metrics import MIB
from generator.spacing import fill
from generator.views import text_format
from generator.views.verdict_text import text

#: the mark a cell carries when its figures come from flagged runs only (shown, never judged), and what a pointer
#: at it says; the pages' legend says what each means
FLAG_MARKS = {
    BUSY: ("⚑", N_("busy-flagged run")),
    OLDER: ("◌", N_("older record")),
}


def flag_mark(flag: str) -> str:
    """A flag's mark, its meaning shown on pointing at it."""
    mark, meaning = FLAG_MARKS[flag]
    return f'<span title="{translate(meaning)}">{mark}</span>'


def left_out_text(flag: str, n: int) -> str:
    """``2 busy runs left out``: runs of a configuration that its figures leave out."""
    if flag == BUSY:
        return fill(ngettext("{n} busy run left out", "{n} busy runs left out", n), n=n)
    return fill(ngettext("{n} older record run left out", "{n} older record runs left out", n), n=n)


def marks(summary: Summary) -> str:
    """What a cell's figures carry besides the numbers: flags, flagged runs left out, failed runs."""
    parts = [flag_mark(flag) for flag in summary.flags]
    parts += [left_out_text(flag, n) for flag, n in sorted(summary.left_out.items())]
    if failed := text(summary.failure_note):
        parts.append(f"⚠ {failed}")
    return "".join(f" · {part}" for part in parts)


#: the mark a speed cell carries where a counted run's step time drifted within the run beyond the verdicts' 5 % band
DRIFT_MARK = "↝"


def drift_mark(summary: Summary | None) -> str:
    """`` · ↝`` where the counted runs include one whose halves' step times differ beyond the band
    (``fwbench.run_figures.drift``), the largest such drift shown on pointing at it; nothing where none did or the
    records keep no window times."""
    drifts = [
        found for record in (summary.counted if summary else ()) if (found := drift(record)) and found.beyond_band
    ]
    if not drifts:
        return ""
    ratio = max((found.ratio for found in drifts), key=lambda r: abs(math.log(r)))
    meaning = fill(
        ngettext(
            "drifted {percent:+.0f} % within the run (second half's steps against the first's)",
            "{n} runs drifted within the run, up to {percent:+.0f} % (each second half's steps against its first's)",
            len(drifts),
        ),
        n=len(drifts),
        percent=100 * (ratio - 1),
    )
    return f' · <span title="{meaning}">{DRIFT_MARK}</span>'


def figure_cell(
    summary: Summary | None,
    stats_of: Callable[[Summary], Stats | None],
    scale: float = 1.0,
    digits: int = 2,
    unit: str = "",
    extra: str = "",
) -> str:
    """A figure's mean and spread, then (small) its run count, ``extra`` and marks; or why there is none."""
    if summary is None:
        return _("not run")
    if summary.n_ok == 0:
        return f"**✗ {text(summary.failure_note)}**"
    stats = stats_of(summary)
    if stats is None:
        return _("not recorded")
    return f"{text_format.compact(stats, scale, digits, unit)}<br><small>n={stats.n}{extra}{marks(summary)}</small>"


def time_cell(summary: Summary | None) -> str:
    """Seconds per epoch: mean over runs, its spread and n, any drift within a run (``drift_mark``), and failures
    spelled out."""
    return figure_cell(summary, lambda s: s.epoch_seconds, digits=2, unit="s", extra=drift_mark(summary))


def rate_cell(summary: Summary | None) -> str:
    """Images per second, with any drift within a run (``drift_mark``)."""
    return figure_cell(summary, lambda s: s.images_per_second, digits=1, extra=drift_mark(summary))


#: what a cell of one compiler-cache state says where the configuration has no successful run in that state
NO_RUN_WITH = {True: N_("no run with warm caches"), False: N_("no run with cold caches")}


def cached_cell(summary: Summary | None, warm: bool, cell: Callable[[Summary | None], str]) -> str:
    """``cell`` of a figure that includes compile work, written from the configuration's runs with warm (``warm``)
    or cold compiler caches only (``Summary.cached``: its marks and left-out runs those of that state); one that
    never ran, or whose every run failed, shows so as any cell does."""
    if summary is None or summary.n_ok == 0:
        return cell(summary)
    part = summary.cached(warm)
    return cell(part) if part.n_ok else translate(NO_RUN_WITH[warm])


def _compile_figure(summary: Summary | None, warm: bool) -> str:
    """Compile seconds over the runs where they stand above the step-time noise, naming the runs within it
    (``Summary.compile_below_noise``): never a clamped 0 s shown or averaged as a measurement."""
    stats_of = (lambda s: s.warm_compile_seconds) if warm else (lambda s: s.compile_seconds)
    below = summary.compile_below_noise(warm) if summary and summary.n_ok else 0
    if below and stats_of(summary) is None:
        return _("below the step-time noise") + f"<br><small>n={below}{marks(summary)}</small>"
    extra = (
        " · "
        + fill(
            ngettext(
                "{n} run below the step-time noise left out", "{n} runs below the step-time noise left out", below
            ),
            n=below,
        )
        if below
        else ""
    )
    return figure_cell(summary, stats_of, digits=1, unit="s", extra=extra)


def compile_cell(summary: Summary | None) -> str:
    """Compile seconds with cold compiler caches, from the cold runs (``cached_cell``)."""
    return cached_cell(summary, False, lambda s: _compile_figure(s, warm=False))


def warm_compile_cell(summary: Summary | None) -> str:
    """Compile seconds with warm compiler caches (a repeat of the configuration), from the warm runs."""
    return cached_cell(summary, True, lambda s: _compile_figure(s, warm=True))


def memory_cell(summary: Summary | None, name: str) -> str:
    """One memory figure in MiB, over the configuration's counted runs."""
    return figure_cell(summary, lambda s: s.memory(name), scale=1 / MIB, digits=0)


def cached_memory_cell(summary: Summary | None, name: str, warm: bool) -> str:
    """One memory figure in MiB from the runs with warm (``warm``) or cold compiler caches (``cached_cell``)."""
    return cached_cell(summary, warm, lambda s: memory_cell(s, name))


def accuracy_cell(summary: Summary | None) -> str:
    """Final test accuracy in percent; beside an interval the standard deviation too (the article gives it)."""
    stats = summary.accuracy if summary and summary.n_ok else None
    sd = " · " + fill(_("sd {sd:.2f}"), sd=100 * stats.std) if stats and stats.ci95 is not None else ""
    return figure_cell(summary, lambda s: s.accuracy, scale=100, unit="%", extra=sd)


def speedup_cell(table: Table, column: Column) -> str:
    """Mean throughput at the largest batch size ÷ at the smallest (``Table.speedup``), with both run counts."""
    up = table.speedup(column)
    if up is None:
        return "—<br><small>" + _("fewer than two batch sizes ran") + "</small>"
    ratio, first, last = up
    counts = ", ".join(str(rate_of(table.at(column, bs)).n) for bs in (first, last))
    return f"{ratio:.2f}×<br><small>{first} → {last}, n={counts}</small>"


def time_to_accuracy_cell(summary: Summary | None, target: float) -> str:
    """Seconds of training (compile included, evaluation excluded) until the test accuracy first reached
    ``target``, over the runs that reached it, and how many never did."""
    if summary is None or summary.n_ok == 0:
        return figure_cell(summary, lambda s: None)
    stats, counted = summary.time_to_accuracy(target)
    if stats is None:
        epochs = summary.key.setting.epochs
        reached = fill(
            ngettext("not reached in {epochs} epoch", "not reached in {epochs} epochs", epochs), epochs=epochs
        )
        return f"{reached}<br><small>n={counted}{marks(summary)}</small>"
    never = (
        " · " + fill(_("{never} of {counted} never reached it"), never=counted - stats.n, counted=counted)
        if stats.n < counted
        else ""
    )
    return figure_cell(summary, lambda s: stats, digits=1, unit="s", extra=never)
