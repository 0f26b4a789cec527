"""Matplotlib charts (PNG bytes) drawn from aggregated records; every axis carries a label and a unit."""

from __future__ import annotations

import io
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from generator import fmt
from generator.aggregate import Table

COLORS = {"torch": "#ee4c2c", "tensorflow": "#ff8f00", "jax": "#4285f4"}
LINESTYLES = {"compiled": "-", "eager": "--"}
_SERIES_COLORS = ("#4285f4", "#ee4c2c", "#ff8f00", "#0f9d58", "#9c27b0", "#795548", "#607d8b")


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


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
        points = [
            (bs, s) for bs in table.batch_sizes if (s := table.cell(framework, mode, bs)) and s.epoch_seconds
        ]
        if not points:
            continue
        style = dict(
            color=COLORS[framework],
            linestyle=LINESTYLES[mode],
            marker="o",
            label=_series_label(framework, mode),
        )
        left.plot([bs for bs, _ in points], [s.epoch_seconds.median for _, s in points], **style)
        right.plot([bs for bs, _ in points], [s.images_per_second.median for _, s in points], **style)
    for axes, ylabel in ((left, "seconds per epoch (s, median)"), (right, "throughput (images/s, median)")):
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
                (bs, st.median / fmt.MIB)
                for bs in table.batch_sizes
                if (s := table.cell(framework, mode, bs)) and (st := s.memory(name))
            ]
            if points:
                axes.plot(
                    [p[0] for p in points],
                    [p[1] for p in points],
                    color=COLORS[framework],
                    linestyle=LINESTYLES[mode],
                    marker="o",
                    label=_series_label(framework, mode),
                )
        _batch_axis(axes, table.batch_sizes)
        axes.set_ylabel(f"{title} (MiB, median)")
        axes.set_ylim(bottom=0)
    panels[0].legend(fontsize="small")
    figure.suptitle(f"Peak memory — {table.machine_id}")
    return _png(figure)


def convergence_chart(table: Table) -> bytes:
    """Test accuracy and training loss per epoch (mean over seeds); colour = framework, style = batch size."""
    figure = Figure(figsize=(10, 4))
    left, right = figure.subplots(1, 2)
    styles = ("-", "--", "-.", ":")
    for summary in table.summaries:
        style_index = table.batch_sizes.index(summary.key.batch_size) % len(styles)
        label = f"{fmt.label(summary.key.framework)} {summary.key.mode} bs{summary.key.batch_size}"
        for axes, metric, scale in ((left, "test_accuracy", 100), (right, "train_loss", 1)):
            curve = summary.curve(metric)
            if curve:
                axes.plot(
                    [e for e, _ in curve],
                    [v * scale for _, v in curve],
                    color=COLORS[summary.key.framework],
                    linestyle=styles[style_index],
                    marker=".",
                    label=label,
                )
    left.set_ylabel("test accuracy (%, mean over seeds)")
    right.set_ylabel("training loss (cross-entropy, mean over seeds)")
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
