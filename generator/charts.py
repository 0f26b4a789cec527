"""Matplotlib charts (PNG bytes) drawn from aggregated records; every axis carries a label and a unit.

Points are means over runs; error bars show the 95 % interval's half-width (n ≥ 3) or the standard
deviation (n = 2), as the tables do; a single run has none.
"""

from __future__ import annotations

import io
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from generator import fmt
from generator.aggregate import Stats, Table

COLORS = {"torch": "#ee4c2c", "tensorflow": "#ff8f00", "jax": "#4285f4"}
LINESTYLES = {"compiled": "-", "eager": "--"}
_SERIES_COLORS = ("#4285f4", "#ee4c2c", "#ff8f00", "#0f9d58", "#9c27b0", "#795548", "#607d8b")


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


#: what the error bars mean, for axis labels
SPREAD_NOTE = "mean; bars: 95 % CI, sd at n=2"


def _error(stats: Stats, scale: float = 1.0) -> float:
    """The error bar's half-length: the interval's half-width, else the standard deviation, else none."""
    if stats.ci95 is not None:
        return (stats.ci95[1] - stats.mean) * scale
    return (stats.std or 0.0) * scale


def _plot(axes, points: list[tuple[float, Stats]], scale: float = 1.0, **style) -> None:
    """One series of (x, statistics) as means with error bars."""
    axes.errorbar(
        [x for x, _ in points],
        [st.mean * scale for _, st in points],
        yerr=[_error(st, scale) for _, st in points],
        capsize=3,
        **style,
    )


def _series_label(framework: str, mode: str) -> str:
    return f"{fmt.label(framework)} ({mode})"


def _batch_axis(axes, sizes: list[int]) -> None:
    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes, [str(s) for s in sizes])
    axes.set_xlabel("batch size (images)")
    axes.grid(True, alpha=0.3)


def speed_chart(table: Table) -> bytes:
    """Seconds per epoch and images/s against batch size, one line per framework and mode."""
    figure = Figure(figsize=(10, 4))
    left, right = figure.subplots(1, 2)
    for framework, mode in table.columns:
        points = [(bs, s) for bs in table.batch_sizes if (s := table.cell(framework, mode, bs)) and s.epoch_seconds]
        if not points:
            continue
        style = dict(
            color=COLORS[framework],
            linestyle=LINESTYLES[mode],
            marker="o",
            label=_series_label(framework, mode),
        )
        _plot(left, [(bs, s.epoch_seconds) for bs, s in points], **style)
        _plot(right, [(bs, s.images_per_second) for bs, s in points if s.images_per_second], **style)
    for axes, ylabel in (
        (left, f"seconds per epoch (s, {SPREAD_NOTE})"),
        (right, f"throughput (images/s, {SPREAD_NOTE})"),
    ):
        _batch_axis(axes, table.batch_sizes)
        axes.set_ylabel(ylabel)
        axes.set_ylim(bottom=0)
    left.legend(fontsize="small")
    figure.suptitle(f"Training speed — {table.machine_id}")
    return _png(figure)


def memory_chart(table: Table, metrics: list[tuple[str, str]]) -> bytes:
    """One panel per memory metric (field name, axis title) against batch size, in MiB."""
    figure = Figure(figsize=(5 * len(metrics), 4))
    panels = figure.subplots(1, len(metrics), squeeze=False)[0]
    for axes, (name, title) in zip(panels, metrics, strict=True):
        for framework, mode in table.columns:
            points = [
                (bs, st)
                for bs in table.batch_sizes
                if (s := table.cell(framework, mode, bs)) and (st := s.memory(name))
            ]
            if points:
                _plot(
                    axes,
                    points,
                    1 / fmt.MIB,
                    color=COLORS[framework],
                    linestyle=LINESTYLES[mode],
                    marker="o",
                    label=_series_label(framework, mode),
                )
        _batch_axis(axes, table.batch_sizes)
        axes.set_ylabel(f"{title} (MiB, {SPREAD_NOTE})")
        axes.set_ylim(bottom=0)
    panels[0].legend(fontsize="small")
    figure.suptitle(f"Peak memory — {table.machine_id}")
    return _png(figure)


def convergence_chart(table: Table) -> bytes:
    """Test accuracy and training loss per epoch (mean over runs with error bars); colour = framework,
    style = batch size."""
    figure = Figure(figsize=(10, 4))
    left, right = figure.subplots(1, 2)
    styles = ("-", "--", "-.", ":")
    for summary in table.summaries:
        style_index = table.batch_sizes.index(summary.key.batch_size) % len(styles)
        label = f"{fmt.label(summary.key.framework)} {summary.key.mode} bs{summary.key.batch_size}"
        for axes, metric, scale in ((left, "test_accuracy", 100), (right, "train_loss", 1)):
            curve = summary.curve(metric)
            if curve:
                _plot(
                    axes,
                    curve,
                    scale,
                    color=COLORS[summary.key.framework],
                    linestyle=styles[style_index],
                    marker=".",
                    label=label,
                )
    left.set_ylabel(f"test accuracy (%, {SPREAD_NOTE})")
    right.set_ylabel(f"training loss (cross-entropy, {SPREAD_NOTE})")
    for axes in (left, right):
        axes.set_xlabel("epoch")
        axes.grid(True, alpha=0.3)
        axes.xaxis.get_major_locator().set_params(integer=True)
    if left.lines:
        left.legend(fontsize="x-small", ncol=2)
    figure.suptitle(f"Convergence — {table.machine_id} — {table.setting.dataset}")
    return _png(figure)


def history_chart(series: dict[str, list[tuple[str, float]]], ylabel: str, title: str) -> bytes:
    """A metric across snapshot dates (ISO strings), one line per subject."""
    figure = Figure(figsize=(10, 4))
    axes = figure.subplots()
    for index, (subject, points) in enumerate(sorted(series.items())):
        axes.plot(
            [date.fromisoformat(d) for d, _ in points],
            [v for _, v in points],
            marker="o",
            color=_SERIES_COLORS[index % len(_SERIES_COLORS)],
            label=subject,
        )
    axes.set_xlabel("snapshot date")
    axes.set_ylabel(ylabel)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.autofmt_xdate()
    figure.suptitle(title)
    return _png(figure)
