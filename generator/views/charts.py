"""Matplotlib charts (PNG bytes) drawn from plain chart data (``Chart``); every axis carries a label and a unit.

The pages describe their charts as data (``generator.views.chart_data``); ``draw_all`` draws them together, spread
over the CPUs. One chart per figure, small enough to stay legible on a phone. The background is transparent
and text and axes are a mid grey, so one image reads on the light and the dark theme. Points are means over
runs; error bars show the 95 % interval's half-width (n ≥ 3) or the standard deviation (n = 2), as the tables
do (each page says so once); a single run has none. A chart's words come translated in its data; one that holds
Chinese is drawn with a CJK font (``cjk_font``), Latin text staying in the default one.
"""

from __future__ import annotations

import io
import os
import re
import textwrap
from dataclasses import dataclass, field
from datetime import date
from functools import cache

from matplotlib import font_manager, rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from fwbench.processes import process_pool

#: text, axes and grid: readable on white and on Material's dark slate
MID_GREY = "#808080"
THEME = {
    "text.color": MID_GREY,
    "axes.labelcolor": MID_GREY,
    "axes.edgecolor": MID_GREY,
    "xtick.color": MID_GREY,
    "ytick.color": MID_GREY,
    "grid.color": MID_GREY,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "font.size": 13,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
SIZE = (4.8, 3.4)  # inches; 120 dpi gives 576 px, which a phone shows at 60 %: 13 pt text stays legible
#: the room above a chart's highest point and error bar that starts from 0, as a share of its height
HEADROOM = 0.06
#: up to this many versions on an x axis, their labels stay level
VERSIONS_FLAT = 4
#: a bar chart's category labels wrap at this many characters, so that a long one leaves the bars room
BAR_LABEL_WIDTH = 22
#: the share of a category's height that its bars fill together
BAR_GROUP = 0.8
#: a legend's columns, and the longest label that still fits three side by side (longer: one a line, so that the
#: legend is no wider than the plot and a phone shows the chart as large as any other)
LEGEND_COLUMNS = 3
LEGEND_WIDE = 20
#: below this many charts one process draws them all
PARALLEL_FROM = 4
#: CJK font families, preferred first: Debian's fonts-noto-cjk (what `make site` installs), other Linux ones, then
#: those macOS and Windows ship (their names as their font files give them; not yet tried on either system)
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "AR PL UMing CN",
    "Droid Sans Fallback",
    "PingFang SC",
    "Hiragino Sans GB",
    "Arial Unicode MS",
    "Microsoft YaHei",
    "SimHei",
)
#: how to install the first of them, for the messages of a build that finds none
CJK_FONT_HINT = "Debian, Ubuntu: apt-get install fonts-noto-cjk"
#: a font file that may hold them, for fonts installed after matplotlib cached its font list
CJK_FILE = re.compile(r"(?i)cjk|wqy|sourcehan|notosanssc|uming|droidsansfallback|pingfang|hiragino|msyh|simhei")
_CJK_TEXT = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


@dataclass(frozen=True)
class Series:
    """One line: its legend label (empty: none), style, points (x, mean, error bar half-length), and notes to write
    beside some of its points (``notes``: the point's index, the words, such as its MFU, and True to write them above
    the point on its right, False on its left: two lines through one point keep their notes apart)."""

    label: str
    colour: str
    marker: str
    linestyle: str
    points: tuple[tuple[float | str, float, float], ...]
    notes: tuple[tuple[int, str, bool], ...] = ()


@dataclass(frozen=True)
class Chart:
    """A chart as data: its x axis (``batch``, ``epoch``, ``date`` or ``version``: points at the indices of
    ``categories``) and its label, y label, lines and legend-only keys. ``bars`` draws a horizontal bar per series
    at each of its points (category index, value, error): the categories down the side, top first, the value
    (``ylabel``) along the bottom from 0."""

    x: str
    xlabel: str
    ylabel: str
    series: tuple[Series, ...]
    keys: tuple[Series, ...] = field(default=())  # legend entries that draw nothing (line styles, say)
    batch_sizes: tuple[int, ...] = ()
    from_zero: bool = False
    categories: tuple[str, ...] = ()  # the x axis's labels in order (``version``)
    title: str = ""  # where and how it was measured (``table_view.chart_title``), so that one shared alone says it


@cache
def cjk_font() -> str | None:
    """The family of an installed font that draws Chinese, or None. Fonts installed after matplotlib cached its
    font list are looked for among the system's font files and added."""

    def known() -> str | None:
        names = {f.name for f in font_manager.fontManager.ttflist}
        return next((family for family in CJK_FAMILIES if family in names), None)

    if found := known():
        return found
    for path in font_manager.findSystemFonts():
        if CJK_FILE.search(os.path.basename(path)):
            font_manager.fontManager.addfont(path)
    return known()


def _texts(chart: Chart) -> list[str]:
    return [chart.title, chart.xlabel, chart.ylabel, *(s.label for s in chart.series + chart.keys)]


def _fonts(chart: Chart) -> dict[str, object]:
    """The font settings a chart needs: matplotlib's default, with a CJK font behind it for Chinese text."""
    family = cjk_font() if any(_CJK_TEXT.search(t) for t in _texts(chart)) else None
    return {"font.family": ["DejaVu Sans", family]} if family else {}


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight", transparent=True)
    return buffer.getvalue()


def _x_axis(axes, chart: Chart) -> None:
    if chart.x == "batch":
        axes.set_xscale("log", base=2)
        axes.set_xticks(chart.batch_sizes, [str(s) for s in chart.batch_sizes])
        axes.minorticks_off()
    elif chart.x == "epoch":
        axes.xaxis.get_major_locator().set_params(integer=True)
    elif chart.x == "version":
        # a long row of releases turns its labels so that they do not overlap
        turn = 30 if len(chart.categories) > VERSIONS_FLAT else 0
        axes.set_xticks(range(len(chart.categories)), chart.categories, rotation=turn, ha="right" if turn else "center")
        axes.set_xlim(-0.5, len(chart.categories) - 0.5)
    axes.set_xlabel(chart.xlabel)


def _bars(axes, chart: Chart) -> None:
    """Each series' bars beside the others' in each category, with their error bars where there are any."""
    height = BAR_GROUP / max(len(chart.series), 1)
    for index, line in enumerate(chart.series):
        offset = (index - (len(chart.series) - 1) / 2) * height
        errors = [e for _, _, e in line.points]
        places = [float(x) + offset for x, _, _ in line.points]
        for place in (p for p, (_, y, _) in zip(places, line.points, strict=True) if y == 0):
            axes.text(0, place, " 0", va="center", color=line.colour, fontsize="small")  # a bar of 0 draws nothing
        axes.barh(
            places,
            [y for _, y, _ in line.points],
            height=height,
            xerr=errors if any(errors) else None,
            capsize=3,
            color=line.colour,
            ecolor=MID_GREY,
            label=line.label or None,
        )
    labels = ["\n".join(textwrap.fill(line, BAR_LABEL_WIDTH) for line in c.split("\n")) for c in chart.categories]
    axes.set_yticks(range(len(labels)), labels)
    axes.set_ylim(len(labels) - 0.5, -0.5)  # the first category on top
    axes.set_xlabel(chart.ylabel)
    axes.grid(True, axis="x")


def draw(chart: Chart) -> bytes:
    """The chart as PNG bytes, its legend under the plot."""
    with rc_context(THEME | _fonts(chart)):
        return _png(figure_of(chart))


def _lines(axes, chart: Chart) -> None:
    """Each series as a line of marks with its error bars, on the chart's x axis."""
    for line in chart.series:
        xs = [date.fromisoformat(x) if chart.x == "date" else x for x, _, _ in line.points]
        errors = [e for _, _, e in line.points]
        axes.errorbar(
            xs,
            [y for _, y, _ in line.points],
            yerr=errors if any(errors) else None,
            capsize=3,
            markersize=6,
            color=line.colour,
            marker=line.marker,
            linestyle=line.linestyle,
            label=line.label or None,
        )
        for index, words, right in line.notes:
            x, y, _error = line.points[index]
            axes.annotate(
                words,
                (x, y),
                xytext=(6 if right else -6, 4),
                textcoords="offset points",
                ha="left" if right else "right",
                va="bottom",
                fontsize="x-small",
                color=line.colour,
            )
    _x_axis(axes, chart)
    axes.set_ylabel(chart.ylabel)
    axes.grid(True)
    if chart.from_zero:
        # up from 0, as far as the highest point and its error bar with room above them: matplotlib's margin is a
        # share of the data's span, so points in a narrow band far above 0 would touch the frame, their marks cut
        highest = max((y + error for line in chart.series for _, y, error in line.points), default=0.0)
        axes.set_ylim(0, highest * (1 + HEADROOM) if highest > 0 else None)
    if chart.x == "date":
        axes.figure.autofmt_xdate()


def _legend_columns(labels: list[str]) -> int:
    """Side by side up to LEGEND_COLUMNS labels, or one a line where one is longer than LEGEND_WIDE."""
    return min(LEGEND_COLUMNS if max(len(words) for words in labels) <= LEGEND_WIDE else 1, len(labels))


def figure_of(chart: Chart) -> Figure:
    """The chart drawn on a figure of its own, its legend under the plot (inside the caller's ``rc_context``)."""
    figure = Figure(figsize=SIZE)
    axes = figure.subplots()
    (_bars if chart.x == "bars" else _lines)(axes, chart)
    if chart.title:
        axes.set_title(chart.title, loc="left", fontsize="small")
    handles = list(axes.get_legend_handles_labels()[0])
    handles += [
        Line2D([], [], color=k.colour, marker=k.marker or None, linestyle=k.linestyle, label=k.label)
        for k in chart.keys
    ]
    if handles:
        axes.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.22),
            ncols=_legend_columns([h.get_label() for h in handles]),
            columnspacing=1.0,
            handlelength=1.8,
        )
    return figure


def draw_all(charts: dict[str, Chart]) -> dict[str, bytes]:
    """Every chart by its path, drawn in parallel once there are enough of them to pay for the processes."""
    if len(charts) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        return {path: draw(chart) for path, chart in charts.items()}
    with process_pool(min(len(charts), os.cpu_count() or 1)) as pool:
        return dict(zip(charts, pool.map(draw, charts.values()), strict=True))
