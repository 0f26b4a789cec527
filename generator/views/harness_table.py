"""The method page's table of harness checks (``fwbench.harness_checks``): each framework's trainer against a minimal
loop in its framework's own style, for the trainers the newest records ran (a check of an older trainer judges no
record any more), one row per device, model, precision, batch size and framework, the newest check of each."""

from __future__ import annotations

from fwbench.frameworks import label
from fwbench.harness_checks import DEVICE_KINDS, HarnessCheck
from fwbench.pairing import newest_digest
from generator.i18n import _, translate
from generator.records.identity import PRECISION_WORDS, WORKLOAD_WORDS, size_words, workload_of
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData

#: a check's row key: what it measured, apart from when
Measured = tuple[str, str, str, str | None, str, int, str, str]


def current_checks(site: SiteData) -> list[HarnessCheck]:
    """The checks of the trainers (harness digests) that each framework's newest run of a workload on some machine of
    the check's kind ran (a check stands for every machine of its kind: ``fwbench.harness_tolerance.check_for``), the
    newest check of each measured thing (``Measured``)."""
    runs: dict[tuple[str, str, str], list[dict]] = {}
    for summary in site.summaries:
        for item in summary.runs:
            if item.record["status"] == "ok":
                key = (summary.key.machine_id, summary.key.framework, workload_of(item.record))
                runs.setdefault(key, []).append(item.record)
    current = {
        ((records[-1].get("hardware") or {}).get("device_kind"), framework, workload, newest_digest(records))
        for (_machine, framework, workload), records in runs.items()
    }
    found: dict[Measured, HarnessCheck] = {}
    for check in sorted(site.results.harness_checks, key=lambda c: c.made_at):
        if (check.device_kind, check.framework, check.workload, check.harness) in current:
            measured = (
                check.machine_id,
                check.workload,
                check.framework,
                check.size,
                check.precision,
                check.batch_size,
                check.mode or "compiled",
                check.reference,
            )
            found[measured] = check
    return sorted(
        found.values(),
        key=lambda c: (
            DEVICE_KINDS.index(c.device_kind),
            c.machine_id,
            c.workload,
            c.size or "",
            c.precision,
            c.batch_size,
            c.framework,
            c.reference,
        ),
    )


def model_words(check: HarnessCheck) -> str:
    """The model a check trained: the workload's words, or a named size's shape (``size_words``)."""
    if check.size:
        return size_words(check.workload, check.size)
    return translate(WORKLOAD_WORDS[check.workload]) if check.workload in WORKLOAD_WORDS else _("ResNet-18")


def _ratio(check: HarnessCheck) -> str:
    """``0.998 (0.997–0.998)``; the ratio alone where the check has no interval."""
    low, high = check.bounds
    return f"{check.ratio:.3f}" if check.ratio_interval is None else f"{check.ratio:.3f} ({low:.3f}–{high:.3f})"


def harness_grid(site: SiteData) -> Grid | None:
    """A row per current check: device, model, precision, batch, framework, the minimal loop, trainer ÷ loop with
    its 95 % interval and the paired rounds it rests on; None where the records have no current check."""
    checks = current_checks(site)
    if not checks:
        return None
    rows = [
        [
            f"{c.device_name} (`{c.machine_id}`)",
            model_words(c),
            translate(PRECISION_WORDS[c.precision]),
            str(c.batch_size),
            label(c.framework) if (c.mode or "compiled") == "compiled" else f"{label(c.framework)} ({_(c.mode)})",
            c.reference,
            _ratio(c),
            str(c.pairs),
        ]
        for c in checks
    ]
    header = [
        _("device"),
        _("model"),
        _("precision"),
        _("batch"),
        _("framework"),
        _("minimal loop"),
        _("trainer ÷ loop"),
        _("pairs"),
    ]
    return Grid(header, rows, text=(0, 1, 2, 4, 5))
