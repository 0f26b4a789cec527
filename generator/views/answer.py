"""The home page's first sentences: a paragraph per device class, accelerators first (TPUs, GPUs, then CPUs), saying
on each machine which framework trained fastest in compiled mode and whether the records can tell (the leads' paired
verdicts, ``generator.verdicts.leads``), and which frameworks were not measured; short, so that the chart fits under
them in the first screen. Below the chart, folded (``details``): where two machines of a class name different leaders
and why that can happen, and each table's sentence where the paragraph sums them up.

Within its class, the machine that built the site (``make site``'s: the answer on
the reader's own machine, labelled so) comes first, unless it has no verdict to give: a machine without one never
opens a paragraph where another has one.

Every sentence stands on a verdict: a lead's (ahead, replicated or in one sitting, with its ratio and interval; about
equal; undecided at n; sittings disagree), or that a machine has no lead to judge; "undecided" is an answer. Where a
lead rests on one sitting, its class's paragraph says how to replicate it, once.
"""

from __future__ import annotations

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE, UNDECIDED
from generator.i18n import N_, _, ngettext, part_separator
from generator.message import Message, and_list
from generator.records.flags import FLAGGED_RUNS
from generator.spacing import fill, spaced
from generator.verdicts.leads import EFFECT_PERCENT, Lead
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, device_title, precision_words, setting_label, views
from generator.views.verdict_text import text


def _batches(batches: list[int]) -> str:
    return text(and_list([str(b) for b in batches]))


def _span(values: list[int]) -> str:
    """``5``, or ``3–5`` where the values differ."""
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def _verdict(found: list[tuple[int, Lead]]) -> str:
    """What leads that say the same (``_findings``' groups) say over the batch sizes where they say it; a lead ahead
    with each batch size's own gaps: ``PyTorch is ahead of TensorFlow in one sitting: 1.60× (1.45–1.76×) at batch 32
    and 1.49× (1.40–1.58×) at batch 64``."""
    lead = found[0][1]
    values = {
        "leader": lead.leader,
        "runner_up": lead.runner_up,
        "batches": _batches([batch for batch, _lead in found]),
        "gaps": text(
            and_list([Message(N_("{gaps} at batch {batch}"), {"gaps": g.gaps, "batch": b}) for b, g in found])
        ),
        "n": _span(sorted({g.n for _batch, g in found})),
        "effect": EFFECT_PERCENT,
    }
    if lead.outcome == AHEAD and lead.replicated:
        return fill(_("{leader} is ahead of {runner_up}: {gaps}"), **values)
    if lead.outcome == AHEAD:
        return fill(_("{leader} is ahead of {runner_up} in one sitting: {gaps}"), **values)
    if lead.outcome == ABOUT_EQUAL and lead.replicated:
        return fill(_("{leader} and {runner_up} are about equal (within {effect} %) at batch {batches}"), **values)
    if lead.outcome == ABOUT_EQUAL:
        return fill(
            _("{leader} and {runner_up} are about equal (within {effect} %) at batch {batches} in one sitting"),
            **values,
        )
    if lead.outcome == DISAGREE:
        return fill(_("the sittings disagree on {leader} and {runner_up} at batch {batches}"), **values)
    if lead.outcome is None:
        return fill(_("only {leader} finished at batch {batches}"), **values)
    return fill(_("{leader} and {runner_up} are undecided at batch {batches} (n = {n})"), **values)


def _findings(view: TableView, site: SiteData) -> list[str]:
    """The table's leads grouped by what they say (outcome, replicated or not, and the frameworks named), in batch
    order."""
    groups: dict[tuple, list[tuple[int, Lead]]] = {}
    for batch, lead in site.throughput_leads(view.table).items():
        if lead is not None:
            groups.setdefault((lead.outcome, lead.replicated, lead.leader, lead.runner_up), []).append((batch, lead))
    return [_verdict(found) for found in groups.values()]


def _in_one_sitting(site: SiteData, found: list[TableView]) -> bool:
    """Whether a lead of ``found``'s tables rests on one sitting (ahead or about equal, not yet replicated)."""
    return any(
        lead and lead.outcome in (AHEAD, ABOUT_EQUAL) and not lead.replicated
        for view in found
        for lead in site.throughput_leads(view.table).values()
    )


#: how a reader replicates a verdict resting on one sitting, said once under the answer where one does
REPLICATE = N_(
    "A verdict in one sitting is what one run of the matrix measures: run it again another day (after a pause of an "
    "hour or more, or a reboot) and the sittings that agree replicate it."
)


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
    """One sentence per out-of-the-box table of the transformer beside the article (accelerators first), from its
    leads as the answer's: present only where transformer records exist."""
    found = views(site, [t for t in site.transformer_tables if not t.setting.tuning])
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


#: the device classes, accelerators first, each with the word that names its machines
DEVICE_CLASSES = (("tpu", N_("TPUs")), ("gpu", N_("GPUs")), ("cpu", N_("CPUs")))
#: why two machines of one class can name different leaders, said once where they do
WHY_MACHINES_DIFFER = N_(
    "Machines differ in their chips, instruction sets and software (the machines page sets them side by side), and "
    "each framework uses those differently: a verdict holds for the machine it was measured on."
)


def _decided(site: SiteData, view: TableView) -> dict[int, str]:
    """Batch size -> the leader, where the table's lead is decided (in one sitting or more)."""
    return {bs: lead.leader for bs, lead in site.throughput_leads(view.table).items() if lead and lead.decided}


def _disagreements(site: SiteData, found: list[TableView]) -> list[str]:
    """Where machines of one class, in one precision and at one batch size, name different leaders: one sentence
    each, then why that can happen, once."""
    said = []
    for precision in dict.fromkeys(v.table.setting.precision for v in found):
        same = [v for v in found if v.table.setting.precision == precision]
        for bs in sorted({bs for v in same for bs in _decided(site, v)}):
            leaders = [(v, leader) for v in same if (leader := _decided(site, v).get(bs))]
            if len({leader for _view, leader in leaders}) > 1:
                said.append(
                    fill(
                        _("The machines disagree in {precision} at batch {batch}: {leaders}."),
                        precision=precision_words(same[0].table.setting),
                        batch=bs,
                        leaders=part_separator().join(
                            fill(
                                _("{leader} on the {machine}"),
                                leader=leader,
                                machine=device_title(v.machine, v.table.machine_id),
                            )
                            for v, leader in leaders
                        ),
                    )
                )
    return said + [_(WHY_MACHINES_DIFFER)] if said else []


#: from this many tables in a class, its paragraph sums the verdicts up and folds the sentence of each table below
SUM_UP_FROM = 3


#: how the summed-up answer counts the comparisons of each kind of verdict but a lead ahead
COUNTED = {
    (ABOUT_EQUAL, True): N_("{n} about equal (within {effect} %)"),
    (ABOUT_EQUAL, False): N_("{n} about equal (within {effect} %) in one sitting"),
    (DISAGREE, False): N_("{n} where the sittings disagree"),
    (UNDECIDED, False): N_("{n} undecided"),
}


def _summed_up(site: SiteData, found: list[TableView]) -> str:
    """The class's leads counted: how many comparisons (a table's batch size with a competitor) each framework leads,
    replicated and in one sitting, and how many are about equal, undecided or where the sittings disagree, over how
    many machines."""
    ahead: dict[tuple[str, bool], int] = {}
    others: dict[tuple[str, bool], int] = {}
    for view in found:
        for lead in site.throughput_leads(view.table).values():
            if lead and lead.decided:
                ahead[(lead.leader, lead.replicated)] = ahead.get((lead.leader, lead.replicated), 0) + 1
            elif lead and lead.outcome:
                key = (lead.outcome, lead.replicated)
                others[key] = others.get(key, 0) + 1
    ranked = sorted(ahead.items(), key=lambda item: (not item[0][1], -item[1]))
    results = [
        fill(_("{leader} ahead in {n}") if replicated else _("{leader} ahead in one sitting in {n}"), leader=name, n=n)
        for (name, replicated), n in ranked
    ]
    results += [
        fill(_(msgid), n=others[key], effect=EFFECT_PERCENT) for key, msgid in COUNTED.items() if others.get(key)
    ]
    machines = len({v.table.machine_id for v in found})
    return fill(
        ngettext(
            "In compiled mode, on {machines} machine, over {comparisons} comparisons (a setting at a batch size): "
            "{results}.",
            "In compiled mode, over {machines} machines and {comparisons} comparisons (a setting at a batch size): "
            "{results}.",
            machines,
        ),
        machines=machines,
        comparisons=sum(ahead.values()) + sum(others.values()),
        results=part_separator().join(results) if results else _("nothing to compare yet"),
    )


def _table_sentences(site: SiteData, view: TableView, found: list[TableView], shared: set[str]) -> str:
    """One table's sentences: its leads, then the frameworks not measured there that its class's other tables
    did measure (``shared``: those none of them measured, said once for the class)."""
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
    missing = [name for name in view.not_measured if name not in shared]
    if missing:
        said.append(
            fill(
                ngettext("{frameworks} was not measured there.", "{frameworks} were not measured there.", len(missing)),
                frameworks=text(and_list(missing)),
            )
        )
    return _labelled(view, site, said)


def _classes(site: SiteData) -> list[tuple[str, list[TableView]]]:
    """The device classes with tables, accelerators first, each with its tables: the builder's machine first where it
    has a verdict, then the others with one, those with none last."""
    found = views(site, site.out_of_box)
    classes = []
    for kind, word in DEVICE_CLASSES:
        own = [v for v in found if v.device_kind == kind]
        own.sort(
            key=lambda v: (not (v.table.machine_id == site.this_machine and _decided(site, v)), not _decided(site, v))
        )
        if own:
            classes.append((word, own))
    return classes


def _not_measured(own: list[TableView]) -> list[str]:
    """The sentence naming the frameworks none of the class's tables measured, if any."""
    shared = set.intersection(*(set(v.not_measured) for v in own))
    if not shared:
        return []
    names = [name for name in own[0].not_measured if name in shared]  # in the tables' order
    where = ngettext("{frameworks} was not measured there.", "{frameworks} were not measured there.", len(names))
    if len({v.table.machine_id for v in own}) > 1:
        where = ngettext(
            "{frameworks} was not measured on any of them.",
            "{frameworks} were not measured on any of them.",
            len(names),
        )
    return [fill(where, frameworks=text(and_list(names)))]


def _each(site: SiteData, own: list[TableView]) -> list[str]:
    shared = set.intersection(*(set(v.not_measured) for v in own))
    return [_table_sentences(site, v, own, shared) for v in own]


def answer(site: SiteData) -> list[str]:
    """The answer's paragraphs (Markdown), one per device class, accelerators first, short enough to stand above
    the chart in the first screen: each table's leads, or from SUM_UP_FROM tables their count in one sentence; how
    to replicate a verdict where one rests on one sitting; and the frameworks none of its machines measured. Where
    the machines disagree and each table's sentence are in ``details``."""
    paragraphs = []
    for word, own in _classes(site):
        said = [_summed_up(site, own)] if len(own) >= SUM_UP_FROM else _each(site, own)
        lead = fill(_("{devices}:"), devices=_(word))
        replicate = [_(REPLICATE)] if _in_one_sitting(site, own) else []
        paragraphs.append(spaced([f"**{lead}**", *said, *replicate, *_not_measured(own)]))
    return paragraphs


def details(site: SiteData) -> list[str]:
    """What the answer's paragraphs leave out, folded (a MkDocs Material ``???`` block per device class, for below
    the chart): where its machines disagree and why that can happen, and, where the paragraph sums SUM_UP_FROM
    tables or more up, each table's sentence."""
    folds = []
    for word, own in _classes(site):
        summed, disagreements = len(own) >= SUM_UP_FROM, _disagreements(site, own)
        if not (summed or disagreements):
            continue
        if summed and disagreements:
            title = _("{devices}: where the machines disagree, and table by table")
        elif disagreements:
            title = _("{devices}: where the machines disagree, and why")
        else:
            title = _("{devices}, table by table")
        said = disagreements + (_each(site, own) if summed else [])
        heading = f'??? note "{fill(title, devices=_(word))}"'
        folds.append("\n\n".join([heading, *(f"    {sentence}" for sentence in said)]))
    return folds
