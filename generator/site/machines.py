"""3 Results · Machines: every configuration that two or more machines ran, their images/s side by side, and each
machine's provenance on the same page.

A configuration here is a framework, a mode, a precision policy, a batch size and a data set; the versions, the
profiles and the images per epoch may differ between machines and are shown in each row. Rows are sorted by mean
images/s; no machine is named faster (the verdict rule compares frameworks on one machine, not machines).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import FRAMEWORKS, label
from generator.i18n import N_, _, list_separator, ngettext, part_separator, translate
from generator.message import and_list
from generator.records.aggregate import Summary
from generator.records.identity import PRECISION_WORDS, precision_policy
from generator.records.machines import Machine
from generator.site import Page
from generator.site.speed import PEAK_NAMES
from generator.spacing import fill
from generator.views import cell_text
from generator.views.chart_data import bars, machine_tick, runs_word, titled
from generator.views.charts import Chart
from generator.views.gpu_stack import gpu_stack
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import device_title, precision_words, setting_word
from generator.views.verdict_text import text
from runners.measure.protocol import MIN_WINDOW_STEPS

PAGE = Page("results/machines.md", "machines.md.j2", N_("Machines"), N_("3 Results"), 3.37)


@dataclass(frozen=True)
class Shared:
    """One configuration two or more machines ran: its words and a grid with a row per machine (and setting and
    version)."""

    title: str
    grid: Grid
    machines: int
    differences: list[str]  # per machine with rows of other settings: what its records differ in


@dataclass(frozen=True)
class Provenance:
    """One machine's provenance: its heading, anchor, GPU stack and, on an accelerator, the best MFU its records
    reached (``best_mfu``)."""

    machine: Machine
    title: str
    anchor: str
    stack: str | None
    best_mfu: str | None = None


def best_mfu(summaries: list[Summary], machine_id: str) -> str | None:
    """The highest mean MFU of a machine's configurations on the highest peak its records divide by (the chip's own
    matrix rate), with the framework, precision and batch size that reached it: the ceiling its records show for the
    network on that device. A run whose MFU is against a lower peak (strict FP32 against an emulated float32 peak,
    the bf16 peak / 6 on a TPU) is rescaled to it, so that 0.78 of an emulated peak never reads as the ceiling. None
    where no record has an MFU, as on a CPU, whose peak fwbench does not know."""
    counted = [
        (s, [r["mfu"] for r in s.counted if (r.get("mfu") or {}).get("value")])
        for s in summaries
        if s.key.machine_id == machine_id and s.mfu is not None
    ]
    counted = [(s, mfus) for s, mfus in counted if mfus]
    if not counted:
        return None
    # the top peak; on a TPU, bf16's table and the `default` policy's share it, and bf16 names it
    top = max(
        (m for _, mfus in counted for m in mfus),
        key=lambda m: (m["peak_flops_per_second"], m.get("peak_table") == "bfloat16"),
    )
    value, best = max(
        (
            (statistics.fmean(m["value"] * m["peak_flops_per_second"] / top["peak_flops_per_second"] for m in mfus), s)
            for s, mfus in counted
        ),
        key=lambda pair: pair[0],
    )
    table = top.get("peak_table") or "float32"
    return fill(
        _("{value:.2f} of the {peak_name} peak ({framework}, {precision}, batch {batch})"),
        value=value,
        peak_name=PEAK_NAMES.get(table, table),
        framework=label(best.key.framework),
        precision=precision_words(best.key.setting),
        batch=best.key.batch_size,
    )


def anchor(machine_id: str) -> str:
    """The id of a machine's provenance section on this page."""
    return f"machine-{machine_id}"


def record_configuration(record: dict[str, Any]) -> tuple:
    """What machines must share for their rows to sit in one table, as a run record gives it."""
    config, framework = record["config"], record["framework"]
    return framework["name"], framework["mode"], precision_policy(record), config["batch_size"], config["dataset"]


def configuration(summary: Summary) -> tuple:
    """A configuration's ``record_configuration``: every run of it gives the same."""
    return record_configuration(summary.runs[0].record)


def shared_configurations(summaries: list[Summary]) -> dict[tuple, list[Summary]]:
    """Configuration -> its summaries with an images/s figure, for the configurations of two or more machines;
    tuned runs are left out (they are shown apart, never beside out-of-the-box ones)."""
    found: dict[tuple, list[Summary]] = defaultdict(list)
    for summary in summaries:
        if summary.images_per_second is not None and not summary.key.setting.tuning:
            found[configuration(summary)].append(summary)
    return {c: rows for c, rows in sorted(found.items()) if len({s.key.machine_id for s in rows}) >= 2}


def shared_grid(rows: list[Summary], titles: dict[str, str]) -> Grid:
    """A row per summary, fastest mean first: the machine (a link to its provenance), profile, framework version,
    images per epoch, images/s with its n and spread."""
    ordered = sorted(rows, key=lambda s: -s.images_per_second.mean)
    body = [
        [
            f"[{titles[s.key.machine_id]}](#{anchor(s.key.machine_id)})",
            s.key.setting.profile,
            s.key.version,
            f"{s.images_per_epoch:,}",
            cell_text.rate_cell(s),
        ]
        for s in ordered
    ]
    header = [_("machine"), _("profile"), _("version"), _("images/epoch"), _("images/s")]
    return Grid(header, body, text=(0, 1, 2))


def setting_words(mode: str, precision: str, batch_size: int, dataset: str) -> list[str]:
    """``compiled``, ``strict FP32 (TF32 off)``, ``batch 32``, ``synthetic``."""
    words = translate(PRECISION_WORDS[precision]) if precision in PRECISION_WORDS else precision
    return [_(mode), words, fill(_("batch {n}"), n=batch_size), setting_word(dataset)]


def title_of(config: tuple) -> str:
    """``PyTorch · compiled · strict FP32 (TF32 off) · batch 32 · synthetic``."""
    framework, *setting = config
    return " · ".join((label(framework), *setting_words(*setting)))


def chart_setting(site: SiteData, shared: dict[tuple, list[Summary]]) -> tuple[tuple, dict[tuple[str, str], Summary]]:
    """The setting the page's chart sets side by side (mode, precision, batch size, data set, profile, device
    class: a GPU's bars would dwarf a CPU's) and its figures by (machine, framework): the setting with the most
    machines, then the most figures, compiled mode first. A machine with two rows of one framework there (other
    versions, other images per epoch) gives that framework no bar: which one it would be is no choice to make
    silently."""
    by_setting: dict[tuple, dict[tuple[str, str], list[Summary]]] = defaultdict(lambda: defaultdict(list))
    for config, rows in shared.items():
        for s in rows:
            machine = site.machine_by_id.get(s.key.machine_id)
            kind = machine.device_kind if machine else "cpu"
            by_setting[(*config[1:], s.key.setting.profile, kind)][(s.key.machine_id, config[0])].append(s)
    found = {
        setting: {pair: rows[0] for pair, rows in cells.items() if len(rows) == 1}
        for setting, cells in by_setting.items()
    }
    return max(
        found.items(),
        key=lambda item: (item[0][0] == "compiled", len({m for m, _fw in item[1]}), len(item[1])),
        default=((), {}),
    )


def throughput_chart(site: SiteData, shared: dict[tuple, list[Summary]]) -> str | None:
    """The path of a bar chart of images/s per machine and framework at ``chart_setting``'s setting, each bar with
    its interval, titled with the setting and n; None where no setting has two machines with a figure."""
    setting, figures = chart_setting(site, shared)
    machines = list(dict.fromkeys(m.machine_id for m in site.machines if any(m.machine_id == i for i, _ in figures)))
    if len(machines) < 2:
        return None
    frameworks = [fw for fw in FRAMEWORKS if any(fw == f for _m, f in figures)]
    *config, profile, _kind = setting
    counts = {s.images_per_second.n for s in figures.values()}
    title = titled([*setting_words(*config), profile, runs_word(counts)])

    def build() -> Chart:
        values = {
            fw: [
                (place, s.images_per_second.mean, s.images_per_second.half_width or 0.0)
                for place, machine_id in enumerate(machines)
                if (s := figures.get((machine_id, fw)))
            ]
            for fw in frameworks
        }
        ticks = [machine_tick(site.machine_by_id.get(m), m) for m in machines]
        return bars(ticks, values, _("images per second"), title)

    return site.add_chart("charts/machines-throughput.png", build)


#: what a row's records may differ in beyond its columns, in words, and how to read it from a record (None: not
#: recorded); a record's own fields, so that a difference is shown, never explained
RECORD_FACTS = (
    (N_("profile"), lambda r: r["config"]["profile"]),  # by its name, as the command line knows it
    (N_("training images requested"), lambda r: r["config"].get("train_images")),
    (N_("steps per epoch"), lambda r: r["config"]["steps_per_epoch"]),
    (N_("epochs"), lambda r: r["config"]["epochs"]),
    (N_("timing protocol"), lambda r: r.get("protocol")),
    (N_("day measured"), lambda r: r["started_at"][:10]),
)


def _facts(records: list[dict[str, Any]], read: Callable[[dict[str, Any]], object]) -> str:
    """One fact over successful run records: its distinct values, sorted, or an em dash where none recorded it."""
    values = sorted({str(v) for r in records if r["status"] == "ok" and (v := read(r)) is not None})
    return " + ".join(values) or "—"


def record_facts(records: list[dict[str, Any]]) -> list[str]:
    """Every fact (``RECORD_FACTS``) of some run records, in words (``fact: a + b``)."""
    return [
        fill(_("{fact}: {values}"), fact=translate(name), values=_facts(records, read)) for name, read in RECORD_FACTS
    ]


def fact_differences(groups: list[list[dict[str, Any]]]) -> list[str]:
    """The facts (``RECORD_FACTS``) whose values differ between groups of run records, each with a value per group
    in their order (``fact: a, b``)."""
    found = []
    for name, read in RECORD_FACTS:
        values = [_facts(records, read) for records in groups]
        if len(set(values)) > 1:
            found.append(fill(_("{fact}: {values}"), fact=translate(name), values=list_separator().join(values)))
    return found


def differing_facts(own: list[Summary]) -> list[str]:
    """The facts that differ between one machine's rows, each with its values in their order (``fact: a, b``)."""
    return fact_differences([[r.record for r in s.runs] for s in own])


def beside_results(site: SiteData, machine_id: str, records: list[dict[str, Any]], what: str) -> str | None:
    """What ``records`` (``what`` names them) differ in from the results tables' out-of-the-box runs of the same
    configurations on their machine, the speed page's: a sentence, or None where those runs are not in the records
    or differ in nothing recorded. The versions are not compared: the records of another release differ in it."""
    configurations = {record_configuration(r) for r in records}
    others = [
        run.record
        for table in site.out_of_box
        if table.machine_id == machine_id
        for summary in table.summaries
        if configuration(summary) in configurations
        for run in summary.runs
    ]
    facts = fact_differences([records, others]) if others else []
    if not facts:
        return None
    line = _(
        "{what} differ from this machine's out-of-the-box runs of the same configurations, the speed page's, in "
        "{facts} (each fact's first value is theirs, the second the speed page's); the records do not say which "
        "difference moved a figure."
    )
    return fill(line, what=what, facts=part_separator().join(facts))


def short_epochs(records: list[dict[str, Any]]) -> str | None:
    """Where successful run records trained epochs shorter than a timing window's fewest steps
    (``runners.measure.protocol.MIN_WINDOW_STEPS``), which time the device sync more than the training: a sentence
    naming the batch sizes and their steps per epoch, or None."""
    steps: dict[int, set[int]] = defaultdict(set)
    for r in records:
        if r["status"] == "ok" and r["config"]["steps_per_epoch"] < MIN_WINDOW_STEPS:
            steps[r["config"]["batch_size"]].add(r["config"]["steps_per_epoch"])
    if not steps:
        return None
    counts = sorted(set().union(*steps.values()))
    line = ngettext(
        "At batch {batches} an epoch here is {steps} step, fewer than the "
        "{least} a timing window holds wherever an epoch has them: so short a window times the device sync more "
        "than the training (docs/design.md, Profiles), and these figures do not compare with those of longer epochs.",
        "At batch {batches} an epoch here is {steps} steps, fewer than the "
        "{least} a timing window holds wherever an epoch has them: so short a window times the device sync more "
        "than the training (docs/design.md, Profiles), and these figures do not compare with those of longer epochs.",
        max(counts),
    )
    batches = text(and_list([str(b) for b in sorted(steps)]))
    return fill(line, batches=batches, steps=text(and_list([str(n) for n in counts])), least=MIN_WINDOW_STEPS)


def differences(rows: list[Summary], titles: dict[str, str]) -> list[str]:
    """A line for each machine with two or more rows whose records differ in more than the version: what they
    differ in, the rows in the grid's order."""
    ordered = sorted(rows, key=lambda s: -s.images_per_second.mean)
    found = []
    for machine_id in dict.fromkeys(s.key.machine_id for s in ordered):
        own = [s for s in ordered if s.key.machine_id == machine_id]
        if len(own) > 1 and (facts := differing_facts(own)):
            line = _(
                "{machine}: its rows are not one setting; their records differ in {facts} (rows in the table's order)."
            )
            found.append(fill(line, machine=titles[machine_id], facts=_("; ").join(facts)))
    return found


def context(site: SiteData) -> dict[str, Any]:
    """The Machines page's context."""
    titles = {m.machine_id: device_title(m, m.machine_id) for m in site.machines}
    if site.this_machine in titles:  # the reader's own machine among the published ones (make site's)
        titles[site.this_machine] = fill(
            _("{machine}: the machine that built this site"), machine=titles[site.this_machine]
        )
    shared = shared_configurations(site.summaries)
    chart = throughput_chart(site, shared)
    return {
        "chart": (site.charts[chart].title, chart) if chart else None,
        "shared": [
            Shared(
                title_of(c),
                shared_grid(rows, titles),
                len({s.key.machine_id for s in rows}),
                differences(rows, titles),
            )
            for c, rows in shared.items()
        ],
        "machines": [
            Provenance(
                m,
                titles[m.machine_id],
                anchor(m.machine_id),
                gpu_stack(m.hardware) if m.is_gpu else None,
                best_mfu(site.summaries, m.machine_id),
            )
            for m in site.machines
        ],
    }
