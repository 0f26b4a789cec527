"""The home page's first sentences: on each machine, the one that built the site first (``make site``'s: the answer
on the reader's own machine, labelled so), then GPUs, which framework trained fastest in compiled mode and whether the
records can tell (the leads' status, ``generator.verdicts.leads``), and which frameworks were not measured there.

Every sentence stands on a verdict: a lead's status (beyond the noise, within noise, too few runs), or that a
machine has no lead to judge; "no verdict yet" is an answer.
"""

from __future__ import annotations

from fwbench.stats import APART, TOO_FEW_RUNS, WITHIN_NOISE
from generator.i18n import _, ngettext, part_separator
from generator.message import Message, and_list
from generator.records.flags import FLAGGED_RUNS
from generator.spacing import fill, spaced
from generator.verdicts.leads import Lead
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, answer_order, device_title, precision_words, setting_label, views
from generator.views.verdict_text import text


def _batches(batches: list[int]) -> str:
    return text(and_list([str(b) for b in batches]))


def _verdict(lead: Lead, batches: list[int]) -> str:
    """What leads that the records can judge say, over the batch sizes where they say it."""
    values = {"leader": lead.leader, "runner_up": lead.runner_up, "batches": _batches(batches)}
    if lead.status == APART:
        return fill(_("{leader} is fastest at batch {batches}, beyond the noise"), **values)
    if lead.status == WITHIN_NOISE:
        return fill(_("{leader} and {runner_up} are within noise at batch {batches}"), **values)
    return fill(_("only {leader} finished at batch {batches}"), **values)


def _too_few(groups: list[tuple[Lead, list[int]]]) -> str:
    """Leads from fewer than three runs: no leader named (one run cannot tell), only where there is no verdict yet."""
    batches = sorted(b for _lead, found in groups for b in found)
    return fill(
        _("no verdict yet at batch {batches} (n = {n}; a verdict needs 3 runs of each)"),
        batches=_batches(batches),
        n=min(lead.n for lead, _found in groups),
    )


def _findings(view: TableView, site: SiteData) -> list[str]:
    """The table's leads grouped by what they say (status, leader, and the runner-up that the words name), in
    batch order; those from too few runs together, last, naming no leader."""
    groups: dict[tuple, tuple[Lead, list[int]]] = {}
    for batch, lead in site.throughput_leads(view.table).items():
        if lead is not None:
            key = (lead.status, lead.leader, lead.runner_up if lead.status == WITHIN_NOISE else None)
            groups.setdefault(key, (lead, []))[1].append(batch)
    judged = [_verdict(lead, batches) for lead, batches in groups.values() if lead.status != TOO_FEW_RUNS]
    too_few = [group for group in groups.values() if group[0].status == TOO_FEW_RUNS]
    return judged + ([_too_few(too_few)] if too_few else [])


def _where(view: TableView, machine_views: list[TableView]) -> str:
    """The machine as the sentence names it, with what tells this table from the machine's others (its setting's
    words that not all of them share) and the precision always (it decides a GPU's speed more than the framework
    does): ``strict FP32 (TF32 off)`` beside ``bfloat16``, not the whole setting twice."""
    parts = setting_label(view.table.setting).split(" · ")
    shared = set(parts).intersection(*(setting_label(v.table.setting).split(" · ") for v in machine_views))
    precision = precision_words(view.table.setting)
    return fill(
        _("{machine}, {setting}"),
        machine=device_title(view.machine, view.table.machine_id),
        setting=" · ".join(part for part in parts if part not in shared or part == precision),
    )


def _of_machine(found: list[TableView], view: TableView) -> list[TableView]:
    """The tables of ``found`` on ``view``'s machine."""
    return [v for v in found if v.table.machine_id == view.table.machine_id]


def _no_lead(view: TableView, where: str) -> str:
    """Why a table has no lead: its runs are all shown but never judged (busy-flagged, older records), or fewer
    than two frameworks finished."""
    flags = sorted({flag for s in view.table.summaries for flag in s.flags})
    if not flags:
        return fill(_("On the {where}: nothing to compare yet."), where=where)
    runs = text(and_list([Message(FLAGGED_RUNS[flag]) for flag in flags]))
    return fill(_("On the {where}: no verdict, its runs are {runs}, shown but never judged."), where=where, runs=runs)


def _labelled(view: TableView, site: SiteData, sentences: list[str]) -> str:
    """The paragraph of ``sentences``, led by a label where ``view`` is a table of the machine that built the site."""
    if view.table.machine_id != site.this_machine:
        return spaced(sentences)
    label = _("The machine that built this site:")
    return spaced([f"**{label}**", *sentences])


def transformer(site: SiteData) -> list[str]:
    """One sentence per out-of-the-box table of the transformer beside the article (GPU machines first), from its
    leads as the answer's: present only where transformer records exist."""
    found = answer_order(views(site, [t for t in site.transformer_tables if not t.setting.tuning]), site.this_machine)
    said = []
    for view in found:
        where = _where(view, _of_machine(found, view))
        findings = _findings(view, site)
        sentence = (
            fill(
                _("On the transformer, on the {where}, in compiled mode: {findings}."),
                where=where,
                findings=part_separator().join(findings),
            )
            if findings
            else fill(_("On the transformer, on the {where}: nothing to compare yet."), where=where)
        )
        said.append(_labelled(view, site, [sentence]))
    return said


def answer(site: SiteData) -> list[str]:
    """The answer's paragraphs (Markdown), one per out-of-the-box table, the machine that built the site first, then
    GPU machines: its leads, then the frameworks not measured there."""
    found = answer_order(views(site, site.out_of_box), site.this_machine)
    paragraphs = []
    for view in found:
        where = _where(view, _of_machine(found, view))
        findings = _findings(view, site)
        said = [
            fill(
                _("On the {where}, in compiled mode: {findings}."),
                where=where,
                findings=part_separator().join(findings),
            )
            if findings
            else _no_lead(view, where)
        ]
        if view.not_measured:
            said.append(
                fill(
                    ngettext(
                        "{frameworks} was not measured there.",
                        "{frameworks} were not measured there.",
                        len(view.not_measured),
                    ),
                    frameworks=text(and_list(view.not_measured)),
                )
            )
        paragraphs.append(_labelled(view, site, said))
    return paragraphs
