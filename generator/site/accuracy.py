"""3.3 Accuracy and convergence: final test accuracy with the test set's size, whether the runs trained long
enough to mean anything, whether the frameworks classified as many test images correctly, time to accuracy and the
curves."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, list_separator, ngettext, part_separator
from generator.message import Message, and_list, parts
from generator.records.aggregate import Summary
from generator.records.identity import ConfigKey
from generator.site import Page
from generator.spacing import fill, spaced
from generator.verdicts.accuracy import DIVERGED_ABOVE, MIN_EPOCHS_FOR_CURVE, Agreement
from generator.views import cell_text, chart_data, text_format
from generator.views.caveats import PageCaveats
from generator.views.markdown_table import Grid, batch_grid
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, chart_title, device_title, setting_word, views
from generator.views.verdict_text import text

PAGE = Page("results/accuracy.md", "accuracy.md.j2", N_("3.3 Accuracy and convergence"), N_("3 Results"), 3.3)
#: where the parity tests live: the evidence that the frameworks compute the same thing
PARITY_TESTS = "tests/runners/test_parity.py"
#: the command whose runs train long enough to mean something: CIFAR-10, 5 epochs, 5 seeds
#: (runners/measure/profiles.json)
TRAINS_LONG_ENOUGH = "runners matrix --profile article --out results/runs"


@dataclass(frozen=True)
class AccuracyTable:
    """One table's accuracy grids, its warnings, its agreement, and its curves where it has enough epochs."""

    view: TableView
    test_images: list[int]
    accuracy: dict[str, Grid]  # mode -> grid
    undertrained: list[str]  # "PyTorch compiled, batch 32: why"
    diverged: list[str]  # "PyTorch compiled, batch 256: why", the configurations whose training diverged
    disagreements: list[str]  # "batch 32 (seed 0): PyTorch 64; JAX 66 of 256 correct."
    agreed: str | None  # "batch 32: 64; batch 64: 70": the batch sizes where every column counted as many
    agreed_images: int | None
    repeats_differ: bool  # some column's runs of one seed counted different numbers
    time_to_accuracy: dict[str, dict[float, Grid]]  # mode -> target -> grid
    charts: list[tuple[str, str]]  # (alt text, path)
    epochs: dict[int, Grid]  # batch size -> per-epoch grid


def _accuracy_cell(
    summary: Summary | None,
    undertrained: dict[ConfigKey, tuple[Message, ...]],
    diverged: dict[ConfigKey, tuple[Message, ...]],
) -> str:
    cell = cell_text.accuracy_cell(summary)
    if summary and summary.key in diverged:
        return cell + "<br><small>⚠ " + _("diverged") + "</small>"
    if summary and summary.key in undertrained:
        return cell + "<br><small>⚠ " + _("not trained long enough") + "</small>"
    return cell


def _flagged(view: TableView, reasons: dict[ConfigKey, tuple[Message, ...]]) -> list[str]:
    """``PyTorch compiled, batch 32: why`` for each configuration with reasons."""
    return [
        fill(
            _("{column} {mode}, batch {batch}: {why}"),
            column=view.table.column_label(key.column),
            mode=setting_word(key.mode),
            batch=key.batch_size,
            why=text(parts(why)),
        )
        for key, why in reasons.items()
    ]


def _epoch_grid(view: TableView, batch_size: int) -> Grid:
    table = view.table
    present = [(c, s) for c in table.columns if (s := table.at(c, batch_size)) and s.n_ok]
    curves = {c: (dict(s.curve("test_accuracy")), dict(s.curve("train_loss"))) for c, s in present}
    epochs = sorted({e for acc, _ in curves.values() for e in acc})
    rows = [
        [
            str(e),
            *(
                spaced(
                    (
                        text_format.compact(acc[e], 100, 2, "%"),
                        "<small>" + fill(_("loss {loss:.3f}"), loss=loss[e].mean) + "</small>",
                    )
                )
                if e in acc and e in loss
                else "—"
                for acc, loss in curves.values()
            ),
        ]
        for e in epochs
    ]
    return Grid([_("epoch"), *(f"{table.column_label(c)} {setting_word(c.mode)}" for c, _summary in present)], rows)


def _counts(per_seed: tuple[tuple[int, ...], ...]) -> str:
    """A column's correct images, seed by seed: ``19``, or ``19/20`` where its runs of one seed differ."""
    return list_separator().join("/".join(map(str, found)) for found in per_seed)


def _disagreement(a: Agreement) -> str:
    counts = part_separator().join(f"{name} {_counts(found)}" for name, found in a.counts.items())
    return fill(
        ngettext(
            "batch {batch} (seed {seeds}): {counts} of {images} correct.",
            "batch {batch} (seeds {seeds}): {counts} of {images} correct.",
            len(a.seeds),
        ),
        batch=a.batch_size,
        seeds=list_separator().join(map(str, a.seeds)),
        counts=counts,
        images=a.test_images,
    )


def _agreed(agreement: list[Agreement]) -> str | None:
    """``batch 32: 19; batch 64: 21``: the batch sizes where every column counted as many correct images."""
    same = [a for a in agreement if a.agree]
    if not same:
        return None
    return part_separator().join(
        fill(_("batch {batch}: {counts}"), batch=a.batch_size, counts=_counts(next(iter(a.counts.values()))))
        for a in same
    )


def _curve_label(metric: str) -> str:
    """A convergence chart's y label."""
    return _("test accuracy (%)") if metric == "test_accuracy" else _("training loss")


def _accuracy_table(site: SiteData, view: TableView) -> AccuracyTable:
    table = view.table
    undertrained, diverged = site.undertrained(table), site.diverged(table)
    tta = {}
    if table.setting.dataset == site.rules.tta_dataset:
        tta = {
            mode: {
                t: batch_grid(table, mode, lambda s, t=t: cell_text.time_to_accuracy_cell(s, t))
                for t in site.rules.tta_targets
            }
            for mode in table.modes
        }
    curves, epochs = [], {}
    agreement = site.agreement(table)
    if table.setting.epochs >= MIN_EPOCHS_FOR_CURVE:
        slug = f"{table.machine_id}-{table.setting.slug}"
        for metric, scale in (("test_accuracy", 100), ("train_loss", 1)):
            path = site.add_chart(
                f"charts/{metric}-{slug}.png",
                lambda metric=metric, scale=scale: chart_data.convergence(
                    table, metric, _curve_label(metric), scale, title=chart_title(view.machine, table)
                ),
            )
            curves.append(
                (fill(_("{figure} per epoch on {device}"), figure=_curve_label(metric), device=view.device), path)
            )
        epochs = {bs: _epoch_grid(view, bs) for bs in table.batch_sizes}
    return AccuracyTable(
        view,
        sorted({s.test_images for s in table.summaries if s.test_images}),
        {mode: batch_grid(table, mode, lambda s: _accuracy_cell(s, undertrained, diverged)) for mode in table.modes},
        _flagged(view, undertrained),
        _flagged(view, diverged),
        [_disagreement(a) for a in agreement if not a.agree],
        _agreed(agreement),
        agreement[0].test_images if agreement else None,
        any(a.repeats_differ for a in agreement),
        tta,
        curves,
        epochs,
    )


def _says_nothing(site: SiteData, view: TableView) -> bool:
    """Whether every configuration of the table with a successful run is flagged as not trained long enough: then
    none of its accuracies means anything. A diverged one keeps its table: its training made the model worse, a
    finding of its own."""
    undertrained = site.undertrained(view.table)
    ran = [s.key for s in view.table.summaries if s.n_ok]
    return bool(ran) and all(key in undertrained for key in ran)


def context(site: SiteData) -> dict[str, Any]:
    """The accuracy page's context: the tables where some run means something in full; the others in one line,
    their figures folded."""
    classes = site.article["setup"]["classes"]  # CIFAR-10 and the synthetic set: one 10-way head in every model
    found = views(site, site.out_of_box + site.tuned)
    nothing = [v for v in found if _says_nothing(site, v)]
    machines = dict.fromkeys(device_title(v.machine, v.table.machine_id) for v in nothing)  # each once, in order
    return {
        "classes": classes,
        "chance": 1 / classes,
        "uniform_loss": math.log(classes),
        "min_epochs": MIN_EPOCHS_FOR_CURVE,
        "diverged_above": DIVERGED_ABOVE,
        "targets": [f"{100 * t:g} %" for t in site.rules.tta_targets],
        "parity_tests": PARITY_TESTS,
        "tables": (tables := [_accuracy_table(site, v) for v in found if v not in nothing]),
        "caveats": PageCaveats(t.view for t in tables),
        "untrained": [_accuracy_table(site, v) for v in nothing],
        "untrained_on": text(and_list(list(machines))),
        "command": TRAINS_LONG_ENOUGH,
    }
