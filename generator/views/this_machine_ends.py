"""What the home page says first where ``make site`` built the site (``--this-machine``): the machine's verdict at
each end of its matrix (``runners.matrix.order.ends_of``: the smallest and the largest batch size of its main
precision), or, where an end is not decided, what is missing and about how long ``make site`` needs for it.

A verdict needs n = 3 paired rounds in a sitting (``fwbench.stats.MIN_RUNS_FOR_INTERVAL``), and ``make site`` goes
on in the machine's latest sitting: an end short of them needs the rounds it lacks there, one not run in that sitting
all of them, each timed from the machine's records (``generator.records.matrix_ends``), as the matrix estimates its
ends; an end undecided at n = 3 or more decides only with further rounds, each of a round's time.
"""

from __future__ import annotations

from fwbench.decision import ABOUT_EQUAL, AHEAD
from fwbench.stats import MIN_RUNS_FOR_INTERVAL
from generator.i18n import _, ngettext
from generator.message import parts
from generator.records.matrix_ends import ends, rounds_minutes
from generator.spacing import fill
from generator.verdicts.leads import EFFECT_PERCENT, Lead
from generator.views.answer_classes import AnswerGroup
from generator.views.lead_words import pooled_gap, sittings_words, statement
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView
from generator.views.verdict_text import text


def ends_said(site: SiteData, group: AnswerGroup) -> str | None:
    """The builder's ends, smallest batch size first, each its verdict or what it lacks, as one sentence; None
    where no table of it has two frameworks to compare (its answer then says why nothing is compared)."""
    views = [v for v in _of_this_sitting(site, group) if len({c.framework for c in v.table.columns_in("compiled")}) > 1]
    points = {(size, v.table.setting.precision) for v in views for size in _sizes(v)}
    said = []
    for size, precision in ends(points):
        view = next(v for v in views if v.table.setting.precision == precision and size in _sizes(v))
        said.append(_end(site, view, size, site.throughput_leads(view.table).get(size)))
    return fill(_("{ends}."), ends=text(parts(said))) if said else None


def _of_this_sitting(site: SiteData, group: AnswerGroup) -> list[TableView]:
    """The group's tables that its latest sitting ran or planned in: older settings' tables decide no end of it."""
    sitting = site.latest_sitting(group.machine_ids[0])
    recent = {(item.record["config"]["profile"], item.record["config"]["dataset"]) for item in sitting}
    now = [v for v in group.views if (v.table.setting.profile, v.table.setting.dataset) in recent]
    return now or list(group.views)


def _sizes(view: TableView) -> set[int]:
    """The batch sizes of a table: those run and those planned but not run yet."""
    return set(view.table.batch_sizes) | {planned.batch_size for planned in view.unrun}


def _end(site: SiteData, view: TableView, size: int, lead: Lead | None) -> str:
    """One end: its verdict where it has one, else what it lacks and how long ``make site`` needs for it."""
    if lead and lead.outcome == AHEAD and (gap := pooled_gap(lead)):
        return fill(
            _("{leader} ahead of {runner_up} {gap} at batch {batch}, {sittings}"),
            leader=lead.leader,
            runner_up=lead.runner_up,
            gap=str(gap),
            batch=size,
            sittings=sittings_words(lead),
        )
    if lead and lead.outcome == ABOUT_EQUAL:
        return fill(
            _("{leader} and {runner_up} about equal (within {effect} %) at batch {batch}, {sittings}"),
            leader=lead.leader,
            runner_up=lead.runner_up,
            effect=EFFECT_PERCENT,
            batch=size,
            sittings=sittings_words(lead),
        )
    now = _rounds_now(site, view, size, lead)
    if now is None:
        rounds = MIN_RUNS_FOR_INTERVAL
        return fill(
            ngettext(
                "batch {batch} not run in this sitting: `make site` needs ≈ {minutes} min for the {n} paired round a "
                "verdict needs",
                "batch {batch} not run in this sitting: `make site` needs ≈ {minutes} min for the {n} paired rounds a "
                "verdict needs",
                rounds,
            ),
            batch=size,
            n=rounds,
            minutes=rounds_minutes(view.table, size, rounds),
        )
    status = statement(lead) if lead else _("no verdict yet")
    if now >= MIN_RUNS_FOR_INTERVAL:
        return fill(
            _("at batch {batch} {status}: each further round of `make site` takes ≈ {minutes} min"),
            batch=size,
            status=status,
            minutes=rounds_minutes(view.table, size, 1),
        )
    rounds = MIN_RUNS_FOR_INTERVAL - now
    return fill(
        ngettext(
            "at batch {batch} {status}: `make site` needs ≈ {minutes} min for {n} more paired round (n = 3)",
            "at batch {batch} {status}: `make site` needs ≈ {minutes} min for {n} more paired rounds (n = 3)",
            rounds,
        ),
        batch=size,
        status=status,
        n=rounds,
        minutes=rounds_minutes(view.table, size, rounds),
    )


def _rounds_now(site: SiteData, view: TableView, size: int, lead: Lead | None) -> int | None:
    """The paired rounds the end has in the machine's latest sitting; None where it ran nothing there. The lead's
    last sitting is that one where the end ran there."""
    paths = {item.path for item in site.latest_sitting(view.table.machine_id)}
    ran = any(item.path in paths for s in view.table.summaries if s.key.batch_size == size for item in s.runs)
    if not ran:
        return None
    sittings = lead.verdict.sittings if lead and lead.verdict else ()
    return sittings[-1].n if sittings else 0
