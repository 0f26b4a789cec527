"""The current answer as one small Markdown table, for the README (``generator answer``): on each machine,
accelerators first (TPUs, GPUs, then CPUs), and each precision, the home page's verdict at every batch size, from
the same leads and words as the site (``generator.views.headline``), never typed by hand."""

from __future__ import annotations

import datetime as dt

from generator.views import headline
from generator.views.answer_classes import DEVICE_CLASSES
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, device_title, precision_words, views


def _verdicts(site: SiteData, view: TableView) -> dict[int, str]:
    """Batch size -> the headline's verdict on the compiled columns' throughput there."""
    table = view.table
    rows = headline.throughput_rows(table, table.columns_in("compiled"), site.throughput_leads(table))
    return {row.batch_size: row.verdict for row in rows}


def answer_table(site: SiteData, today: dt.date) -> str:
    """The answer in Markdown: a line saying where it came from and when, then one row per machine and precision
    of the out-of-the-box tables (accelerators first), a column per batch size any of them ran; a table whose every
    run its machine measured again under a newer timing protocol is left to the site (it judges nothing); an empty
    answer names the command that makes records."""
    order = [kind for kind, _word in DEVICE_CLASSES]  # accelerators first, as the home page answers
    current = [table for table in site.out_of_box if not all(s.superseded for s in table.summaries)]
    found = sorted(views(site, current), key=lambda view: order.index(view.device_kind))
    if not found:
        return "No run records yet: `runners matrix --profile quick --out results/runs` makes them.\n"
    verdicts = [(view, _verdicts(site, view)) for view in found]
    batches = sorted({bs for _view, found_at in verdicts for bs in found_at})
    newest = max(machine.last for machine in site.machines)[:10]
    lines = [
        f"Made by `generator answer` on {today.isoformat()} from the {len(site.results.runs):,} run records under "
        f"`{site.results.root}` (the newest of {newest}): which framework trains the most images per second in "
        "compiled mode; a leader is named only where its runs, paired round by round with the runner-up's, put it "
        "more than 5 % ahead: the ratio with its interval (over several sittings their ratios pooled, the interval "
        "from the lowest to the highest bound of their 95 % intervals), then the sittings it rests on, "
        '"in one sitting" until another sitting replicates it. Where both trainers were checked against their '
        "frameworks' own minimal training loops on the device, the lead is stated as between those loops.",
        "",
        "| " + " | ".join(["machine", "precision", *(f"batch {bs}" for bs in batches)]) + " |",
        "|" + "---|" * (2 + len(batches)),
    ]
    for view, found_at in verdicts:
        cells = [found_at.get(bs, "—") for bs in batches]
        machine = device_title(view.machine, view.table.machine_id)
        lines.append("| " + " | ".join([machine, precision_words(view.table.setting), *cells]) + " |")
    return "\n".join(lines) + "\n"
