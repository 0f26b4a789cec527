"""The home page's chart under each answer paragraph: for a group of one machine (a TPU, the machine that built the
site) its throughput against batch size in every precision it ran, each line's MFU marked at its fastest point; for a
group of several machines (the CPUs) each machine's throughput as bars, a bar per framework, in the precision most of
them ran, at the largest batch size they share. Every figure is a mean over runs with its interval (``charts``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fwbench.frameworks import REGISTRY, label
from fwbench.stats import Stats
from generator.i18n import _
from generator.records.aggregate import Summary
from generator.spacing import fill
from generator.verdicts.leads import throughput_of
from generator.views import text_format
from generator.views.answer_classes import AnswerGroup
from generator.views.chart_data import bars, machine_tick, runs_word, titled
from generator.views.charts import MID_GREY, Chart, Series
from generator.views.table_view import TableView, device_title, precision_words

#: a precision's line style on a one-machine chart, in the order its tables come
PRECISION_STYLES = ("-", "--", ":", "-.")


def _rate(view: TableView, summary: Summary | None) -> Stats | None:
    """A configuration's throughput in its table's unit, where its runs may be judged (never a point measured by an
    older trainer or protocol, or only on a busy machine, beside the judged ones)."""
    return throughput_of(view.table)(summary) if summary and summary.judgeable else None


@dataclass(frozen=True)
class Line:
    """One framework's throughput in one precision on a one-machine chart: (batch size, configuration, figure) per
    point."""

    framework: str
    style: str
    points: tuple[tuple[int, Summary, Stats], ...]

    @property
    def fastest(self) -> tuple[int, Summary, Stats]:
        return max(self.points, key=lambda point: point[2].mean)


def _lines(views: tuple[TableView, ...]) -> tuple[list[Line], dict[str, str]]:
    """A line per framework and precision of ``views`` (one machine's tables), and each precision's line style."""
    lines, styles = [], {}
    for view in views:
        words = precision_words(view.table.setting)
        style = styles.setdefault(words, PRECISION_STYLES[len(styles) % len(PRECISION_STYLES)])
        for column in view.table.columns_in("compiled"):
            points = [(bs, s, r) for bs in view.table.batch_sizes if (r := _rate(view, s := view.table.at(column, bs)))]
            if points:
                lines.append(Line(column.framework, style, tuple(points)))
    return lines, styles


def _mfu_notes(lines: list[Line]) -> dict[int, tuple[int, str, bool]]:
    """Line index -> its MFU note (point index, words, on the right), at its fastest point where its runs recorded one:
    the first framework's notes on the left of their points, the next one's on the right, and so on, so that two
    frameworks' lines through one batch size keep their notes apart."""
    frameworks = list(dict.fromkeys(line.framework for line in lines))
    notes = {}
    for i, line in enumerate(lines):
        bs, summary, _rate = line.fastest
        if summary.mfu:
            index = [point[0] for point in line.points].index(bs)
            right = frameworks.index(line.framework) % 2 == 1
            notes[i] = (index, f"MFU {text_format.pct(summary.mfu.mean, 0)}", right)
    return notes


def machine_chart(views: tuple[TableView, ...]) -> Chart:
    """One machine's compiled-mode throughput against batch size: a line per framework and precision, the framework
    told by its colour and marker, the precision by its line style, and each line's MFU at its fastest point (where
    its runs recorded one: the device's peak is known)."""
    lines, styles = _lines(views)
    notes = _mfu_notes(lines)
    series = [
        Series(
            "",
            REGISTRY[line.framework].colour,
            REGISTRY[line.framework].marker,
            line.style,
            tuple((bs, rate.mean, rate.half_width or 0.0) for bs, _s, rate in line.points),
            (notes[i],) if i in notes else (),
        )
        for i, line in enumerate(lines)
    ]
    frameworks = dict.fromkeys(line.framework for line in lines)
    keys = [Series(label(fw), REGISTRY[fw].colour, REGISTRY[fw].marker, "-", ()) for fw in frameworks]
    keys += [Series(words, MID_GREY, "", style, ()) for words, style in styles.items()]
    counts = {rate.n for line in lines for _bs, _s, rate in line.points}
    first = views[0]
    words = [_("compiled mode"), runs_word(counts), *([_("MFU at each line's fastest point")] if notes else [])]
    title = f"{device_title(first.machine, first.table.machine_id)}\n" + titled(words)
    return Chart(
        "batch",
        _("batch size (images)"),
        _("images per second"),
        tuple(series),
        tuple(keys),
        batch_sizes=tuple(sorted({bs for line in lines for bs, _s, _r in line.points})),
        from_zero=True,
        title=title,
    )


def _shared(views: tuple[TableView, ...]) -> tuple[list[TableView], int]:
    """The tables a several-machine chart sets side by side and the batch size it shows: the precision most machines
    ran, at the largest batch size all of its tables share (else the one most of them ran)."""
    precisions = Counter(v.table.setting.precision for v in views)
    precision = precisions.most_common(1)[0][0]
    same = [v for v in views if v.table.setting.precision == precision]
    shared = set.intersection(*(set(v.table.batch_sizes) for v in same))
    if shared:
        return same, max(shared)
    ran = Counter(bs for v in same for bs in v.table.batch_sizes)
    batch = max(ran, key=lambda bs: (ran[bs], bs))
    return [v for v in same if batch in v.table.batch_sizes], batch


def machines_chart(word: str, views: tuple[TableView, ...]) -> Chart:
    """Several machines' compiled-mode throughput side by side (``_shared``): a bar per framework on each machine,
    titled with the group, the precision, the batch size and the runs behind the bars."""
    same, batch = _shared(views)
    values: dict[str, list[tuple[int, float, float]]] = {}
    counts = set()
    for place, view in enumerate(same):
        for column in view.table.columns_in("compiled"):
            if rate := _rate(view, view.table.at(column, batch)):
                values.setdefault(column.framework, []).append((place, rate.mean, rate.half_width or 0.0))
                counts.add(rate.n)
    ordered = {fw: values[fw] for fw in REGISTRY if fw in values}
    words = [_(word), precision_words(same[0].table.setting), fill(_("batch {n}"), n=batch), runs_word(counts)]
    categories = [machine_tick(v.machine, v.table.machine_id) for v in same]
    return bars(categories, ordered, _("images per second"), titled(words))


def group_chart(group: AnswerGroup) -> Chart | None:
    """The chart under a group's paragraph (``machine_chart`` or ``machines_chart``); None where none of its tables
    has a judged run to draw (runs shown but never judged make no chart of the answer)."""
    judged = tuple(v for v in group.views if any(s.judgeable for s in v.table.summaries))
    if not judged:
        return None
    if len({v.table.machine_id for v in judged}) == 1:
        return machine_chart(judged)
    return machines_chart(group.word, judged)
