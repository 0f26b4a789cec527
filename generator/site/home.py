"""1 Who is faster: every framework's throughput and compile time per machine, the verdicts, and the findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fwbench.records import RUN_SCHEMA
from generator.i18n import N_, _, list_separator, part_separator
from generator.records import platform_issues
from generator.records.flags import BUSY, LONE, OLDER, flags_of
from generator.site import Page
from generator.spacing import fill, spaced
from generator.views import answer, findings, headline
from generator.views.fmt import code_span
from generator.views.grid import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, answer_order, setting_word, views, written_as

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


def _findings(site: SiteData) -> list[findings.Finding]:
    found = findings.article_arithmetic(site.internal_claims)
    for issue in platform_issues.load_issues()["issues"]:
        found += findings.platform_issue(issue, platform_issues.measured_pairs(issue, site.tables, site.device_kinds))
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
        "answer": answer.answer(site) + answer.transformer(site),
        "headlines": [_headline(site, v) for v in answer_order(views(site, site.out_of_box), site.this_machine)],
        "tuned": list(dict.fromkeys(t.setting.tuning for t in site.tuned)),  # one label per variable set, not per table
        "findings": _findings(site),
        "failed": sum(1 for s in site.summaries if s.n_ok == 0),
        "busy_runs": flagged.count(BUSY),
        "older_runs": flagged.count(OLDER),
        "lone_runs": sum(s.flagged[LONE] for s in site.summaries),
        "older_schemas": list_separator().join(code_span(s) for s in written_as([r.record for r in runs])),
        "current_schema": code_span(RUN_SCHEMA),
    }
