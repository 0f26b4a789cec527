"""The charts' data from aggregated records: a line per framework column, styled from the framework registry.

Colours and markers come from ``fwbench.frameworks`` (Okabe–Ito, a marker per framework, so colour is never the
only cue); eager runs are dashed; in a convergence chart the line style tells the batch sizes apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from fwbench.frameworks import REGISTRY, label
from fwbench.stats import Stats
from generator.i18n import _, translate
from generator.records.aggregate import Column, Summary, Table
from generator.records.machines import Machine, widest_isa
from generator.spacing import fill, joined
from generator.views.charts import MID_GREY, Chart, Series

MODE_STYLES = {"compiled": "-", "eager": "--"}
BATCH_STYLES = ("-", "--", "-.", ":")
#: Okabe–Ito colours for series that are not frameworks (black and yellow left out: each vanishes on one theme)
SERIES_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7")
SERIES_MARKERS = ("o", "s", "^", "D", "v", "P")


def _point(x: float, stats: Stats, scale: float) -> tuple[float, float, float]:
    return x, stats.mean * scale, (stats.half_width or 0.0) * scale


def _series(
    column: Column, label: str, points: list[tuple[float, float, float]], linestyle: str | None = None
) -> Series:
    fw = REGISTRY[column.framework]
    return Series(label, fw.colour, fw.marker, linestyle or MODE_STYLES[column.mode], tuple(points))


def per_batch(
    table: Table, stats_of: Callable[[Summary], Stats | None], ylabel: str, scale: float = 1.0, title: str = ""
) -> Chart:
    """One figure (``stats_of`` a summary) against batch size, a line per column of the table, under ``title``."""
    lines = []
    for column in table.columns:
        points = [
            _point(bs, st, scale)
            for bs in table.batch_sizes
            if (s := table.at(column, bs)) and s.n_ok and (st := stats_of(s))
        ]
        if points:
            mode = f" {translate(column.mode)}" if len(table.modes) > 1 else ""  # a recorded word (``table_view``)
            lines.append(_series(column, table.column_label(column) + mode, points))
    # the transformer's batch is counted in sequences of tokens, ResNet-18's in images
    xlabel = _("batch size (images)") if table.setting.is_article_workload else _("batch size (sequences)")
    return Chart(
        "batch", xlabel, ylabel, tuple(lines), batch_sizes=tuple(table.batch_sizes), from_zero=True, title=title
    )


def convergence(
    table: Table, metric: str, ylabel: str, scale: float = 1.0, mode: str = "compiled", title: str = ""
) -> Chart:
    """``metric`` per epoch in one mode, under ``title``: colour and marker = framework, line style = batch size,
    each told once in the legend."""
    summaries = [s for s in table.summaries if s.n_ok and s.key.mode == mode and s.curve(metric)]
    lines = [
        _series(
            s.key.column,
            "",
            [_point(e, st, scale) for e, st in s.curve(metric)],
            BATCH_STYLES[table.batch_sizes.index(s.key.batch_size) % len(BATCH_STYLES)],
        )
        for s in summaries
    ]
    columns = sorted({s.key.column for s in summaries}, key=Column.sort_key)
    keys = [_series(c, table.column_label(c), [], "-") for c in columns]
    keys += [
        Series(fill(_("batch {size}"), size=bs), MID_GREY, "", BATCH_STYLES[i % len(BATCH_STYLES)], ())
        for i, bs in enumerate(table.batch_sizes)
    ]
    # Translators: a convergence chart's y axis, its figure in one training mode: "test accuracy (%), compiled"
    ylabel = fill(_("{figure}, {mode}"), figure=ylabel, mode=translate(mode))
    return Chart("epoch", _("epoch"), ylabel, tuple(lines), tuple(keys), title=title)


def history(series: dict[str, list[tuple[str, float]]], ylabel: str) -> Chart:
    """A metric across snapshot dates (ISO strings), one line per subject."""
    lines = [
        Series(
            subject,
            SERIES_COLOURS[i % len(SERIES_COLOURS)],
            SERIES_MARKERS[i % len(SERIES_MARKERS)],
            "-",
            tuple((d, v, 0.0) for d, v in points),
        )
        for i, (subject, points) in enumerate(sorted(series.items()))
    ]
    return Chart("date", _("snapshot date"), ylabel, tuple(lines))


def per_version(versions: list[str], lines: dict[str, dict[str, Stats]], xlabel: str, ylabel: str) -> Chart:
    """A figure across a framework's versions (the x axis, in ``versions``' order), one line per entry of ``lines``
    (its legend label -> version -> statistics), each with its own colour, marker and line style."""
    series = tuple(
        Series(
            name,
            SERIES_COLOURS[i % len(SERIES_COLOURS)],
            SERIES_MARKERS[i % len(SERIES_MARKERS)],
            BATCH_STYLES[i % len(BATCH_STYLES)],
            tuple(_point(versions.index(v), stats, 1.0) for v, stats in points.items()),
        )
        for i, (name, points) in enumerate(lines.items())
    )
    return Chart("version", xlabel, ylabel, series, from_zero=True, categories=tuple(versions))


def machine_tick(machine: Machine | None, machine_id: str) -> str:
    """A machine as a chart's axis names it, short enough to stand beside two others: its device without trademark
    signs, filler words or clock speed, and for a CPU what tells two of one name apart, each on a line of its own
    (three ticks side by side fit a phone): its widest vector extension and its fingerprint."""
    device = machine.device if machine else machine_id
    name = " ".join(re.sub(r"\((R|TM)\)|\b(Processor|CPU)\b|@\s*[\d.]+\s*GHz", " ", device).split())
    if machine and machine.device_kind == "cpu" and machine.hardware:
        isa = widest_isa(machine.hardware.get("fingerprint"))
        return "\n".join([name, *([isa] if isa else []), machine_id.rsplit("-", 1)[-1]])
    return name


def bars(categories: list[str], values: dict[str, list[tuple[int, float, float]]], xlabel: str, title: str) -> Chart:
    """A horizontal bar chart under ``title``: a bar per framework (``values``' keys, in their order, styled from
    the registry) at each of its (category index, value, error) points, the value labelled ``xlabel``."""
    series = tuple(
        Series(label(framework), REGISTRY[framework].colour, REGISTRY[framework].marker, "none", tuple(points))
        for framework, points in values.items()
        if points
    )
    return Chart("bars", "", xlabel, series, categories=tuple(categories), title=title)


def runs_word(counts: set[int]) -> str:
    """The runs behind a chart's points for its title: ``n = 3``, or ``n = 2–5`` where they differ."""
    runs = f"{min(counts)}–{max(counts)}" if counts and min(counts) != max(counts) else str(max(counts, default=0))
    return fill(_("n = {n}"), n=runs)


def titled(words: list[str]) -> str:
    """A chart's title from its words, a middle dot between each two (and, in Chinese, no space beside full-width
    punctuation)."""
    return joined(part for index, word in enumerate(words) for part in ((" · ", word) if index else (word,)))
