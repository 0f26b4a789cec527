"""1 Who is faster: every framework's throughput and compile time per machine, the verdicts, and the findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import REGISTRY, label
from fwbench.stats import Stats
from generator.i18n import N_, _, list_separator, part_separator
from generator.records import platform_issues
from generator.records.flags import BUSY, OLDER, flags_of
from generator.site import Page
from generator.spacing import fill, spaced
from generator.verdicts.leads import throughput_of
from generator.views import answer, findings, headline
from generator.views.chart_data import machine_tick, runs_word, titled
from generator.views.charts import Chart, Series
from generator.views.grid import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, precision_words, setting_word, views

PAGE = Page("index.md", "index.md.j2", N_("1 Who is faster"), None, 1.0)


@dataclass(frozen=True)
class Headline:
    """One out-of-the-box table's answer: throughput with gaps and verdicts, compile time with its pay-off."""

    view: TableView
    epoch: str
    throughput: Grid
    compile: Grid
    payoff_notes: dict[str, list[str]]  # why no pay-off -> the frameworks it applies to


def _epoch(view: TableView, article: dict[str, Any]) -> str:
    setting, setup = view.table.setting, article["setup"]
    trained = sorted({s.images_per_epoch for s in view.table.summaries})
    here = fill(
        _("one epoch here is {images:,} {dataset} images"),
        images=setting.train_images,
        dataset=setting_word(setting.dataset),
    )
    if setting.min_timed_steps > 1 and trained != [setting.train_images]:
        here = fill(
            _("{epoch}, at least {steps} steps ({images} images by batch size)"),
            epoch=here,
            steps=setting.min_timed_steps,
            images=list_separator().join(f"{n:,}" for n in trained),
        )
    elif trained != [setting.train_images]:
        dropped = fill(_("(drop-last trains {images})"), images=list_separator().join(f"{n:,}" for n in trained))
        here = spaced((here, dropped))
    return part_separator().join(
        (
            here,
            fill(
                _("the article's is {images:,} CIFAR-10 images on an {device}"),
                images=setup["train_images"],
                device=setup["device_name"],
            ),
        )
    )


def _headline(site: SiteData, view: TableView) -> Headline:
    table = view.table
    compiled = table.columns_in("compiled")
    labels = [table.column_label(c) for c in compiled]
    rows = headline.throughput_rows(table, compiled, site.throughput_leads(table))
    # a framework with no run here has no column, as on every page: the heading's note names it
    throughput = Grid(
        [_("batch"), *labels, _("verdict")], [[str(r.batch_size), *r.cells, r.verdict] for r in rows], text=(0, -1)
    )
    compile_rows, notes = headline.compile_rows(table, compiled)
    return Headline(
        view,
        _epoch(view, site.article),
        throughput,
        Grid([_("batch"), *labels], [[str(r.batch_size), *r.cells] for r in compile_rows]),
        notes,
    )


#: how far apart a chart's frameworks stand around their machine's place on the x axis, so no mark hides another
SPREAD = 0.12


def _rate(view: TableView, framework: str, batch: int) -> Stats | None:
    """A framework's throughput on the table's machine at ``batch`` in compiled mode, from its successful runs."""
    rate = throughput_of(view.table)
    found = [
        s for c in view.table.columns_in("compiled") if c.framework == framework and (s := view.table.at(c, batch))
    ]
    return rate(found[0]) if found and found[0].n_ok else None


def _class_chart(word: str, found: list[TableView], batch: int) -> Chart:
    """Throughput by framework × machine for one device class and precision at ``batch``, each figure with its
    interval, titled with the class, the precision, the batch size and the runs behind the points."""
    frameworks = list(dict.fromkeys(c.framework for v in found for c in v.table.columns_in("compiled")))
    series, counts = [], set()
    for index, framework in enumerate(frameworks):
        offset = (index - (len(frameworks) - 1) / 2) * SPREAD
        figures = [(place + offset, stats) for place, v in enumerate(found) if (stats := _rate(v, framework, batch))]
        counts.update(stats.n for _x, stats in figures)
        points = tuple((x, stats.mean, stats.half_width or 0.0) for x, stats in figures)
        if points:
            fw = REGISTRY[framework]
            series.append(Series(label(framework), fw.colour, fw.marker, "none", points))
    words = [_(word), precision_words(found[0].table.setting), fill(_("batch {n}"), n=batch), runs_word(counts)]
    return Chart(
        "version",
        "",  # the ticks name the machines
        _("images per second"),
        tuple(series),
        from_zero=True,
        categories=tuple(machine_tick(v.machine, v.table.machine_id) for v in found),
        title=titled(words),
    )


def _charts(site: SiteData) -> list[tuple[str, str]]:
    """The answer's charts, (alt text, path): one per device class and precision with two machines or more,
    accelerators first, at the largest batch size all of them ran."""
    found = [v for v in views(site, site.out_of_box) if v.table.setting.is_article_workload]
    charts = []
    for kind, word in answer.DEVICE_CLASSES:
        own = [v for v in found if v.device_kind == kind]
        for precision in dict.fromkeys(v.table.setting.precision for v in own):
            same = [v for v in own if v.table.setting.precision == precision]
            shared = set.intersection(*(set(v.table.batch_sizes) for v in same))
            if len(same) > 1 and shared:
                batch = max(shared)
                path = site.add_chart(
                    f"charts/answer-{kind}-{precision}.png",
                    lambda word=word, same=same, batch=batch: _class_chart(word, same, batch),
                )
                charts.append((site.charts[path].title, path))
    return charts


def _findings(site: SiteData) -> list[findings.Finding]:
    found = findings.article_arithmetic(site.internal_claims)
    for issue in platform_issues.load_issues()["issues"]:
        found += findings.platform_issue(
            issue, platform_issues.measured_pairs(issue, site.workload_tables, site.device_kinds)
        )
    found += findings.probe_disagreements(site.probe_claims)
    return found


def context(site: SiteData) -> dict[str, Any]:
    """The home page's context."""
    runs = site.results.runs
    flagged = [f for r in runs for f in flags_of(r.record)]
    return {
        "article": site.article["article"],
        "counts": {
            "runs": len(runs),
            "machines": len(site.machines),
            "probes": len(site.results.probes),
            "snapshots": len(site.results.snapshots),
        },
        "skipped": site.results.skipped,
        "answer": answer.answer(site),
        "answer_charts": _charts(site),
        # below the chart, so that it stands in the first screen under the answer
        "answer_details": answer.details(site) + answer.transformer(site),
        "headlines": [_headline(site, v) for v in views(site, site.out_of_box)],
        "tuned": list(dict.fromkeys(t.setting.tuning for t in site.tuned)),  # one label per variable set, not per table
        "findings": _findings(site),
        "failed": sum(1 for s in site.summaries if s.n_ok == 0),
        "busy_runs": flagged.count(BUSY),
        "older_runs": flagged.count(OLDER),
    }
