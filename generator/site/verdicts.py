"""3 Results, verdicts by machine: on each machine and setting, every framework's throughput with the verdict on the
lead (each sitting's ratio folded beside it) and its compile time with the pay-off; where machines of a class
disagree, and why; the findings; and what the records cannot say. The home page answers from these in a paragraph
per device class and links here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, list_separator, part_separator
from generator.records import platform_issues
from generator.records.flags import BUSY, OLDER, flags_of
from generator.site import Page
from generator.spacing import fill, spaced
from generator.views import findings, headline
from generator.views.answer_classes import DEVICE_CLASSES
from generator.views.caveats import PageCaveats
from generator.views.disagreements import disagreements
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, setting_word, views

PAGE = Page("results/verdicts.md", "verdicts.md.j2", N_("Verdicts by machine"), N_("3 Results"), 3.05)


@dataclass(frozen=True)
class Headline:
    """One out-of-the-box table's verdicts: throughput with the verdicts, compile time with its pay-off."""

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
    # a framework with no run here has no column, as on every page: the heading's note names it
    compile_rows, notes = headline.compile_rows(table, compiled)
    return Headline(
        view,
        _epoch(view, site.article),
        headline.throughput_grid(table, site.throughput_leads(table)),
        Grid(
            [_("batch"), *(table.column_label(c) for c in compiled)],
            [[str(r.batch_size), *r.cells] for r in compile_rows],
        ),
        notes,
    )


def _findings(site: SiteData) -> list[findings.Finding]:
    found = findings.article_arithmetic(site.internal_claims)
    for issue in platform_issues.load_issues()["issues"]:
        found += findings.platform_issue(
            issue, platform_issues.measured_pairs(issue, site.workload_tables, site.device_kinds)
        )
    found += findings.probe_disagreements(site.probe_claims)
    return found


def _disagreements(site: SiteData, found: list[TableView]) -> list[tuple[str, list[str]]]:
    """Each device class whose machines name different leaders, with the sentences that say where, and why."""
    said = []
    for kind, word in DEVICE_CLASSES:
        if sentences := disagreements(site, [v for v in found if v.device_kind == kind]):
            said.append((_(word), sentences))
    return said


def context(site: SiteData) -> dict[str, Any]:
    """The verdicts page's context."""
    flagged = [f for r in site.results.runs for f in flags_of(r.record)]
    found = views(site, site.out_of_box)
    headlines = [_headline(site, v) for v in found]
    return {
        "headlines": headlines,
        "caveats": PageCaveats(h.view for h in headlines),
        "disagreements": _disagreements(site, found),
        "tuned": list(dict.fromkeys(t.setting.tuning for t in site.tuned)),  # one label per variable set, not per table
        "findings": _findings(site),
        "failed": sum(1 for s in site.summaries if s.n_ok == 0),
        "busy_runs": flagged.count(BUSY),
        "older_runs": flagged.count(OLDER),
        # configurations whose machine measured the setting again under a newer protocol or a newer trainer
        "superseded": sum(1 for s in site.summaries if s.superseded),
    }
