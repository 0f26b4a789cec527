"""The home page's answer: one short paragraph per group of ``answer_classes`` (the machine that built the site, then
TPUs, GPUs and CPUs); the builder's says its verdict at each end of its matrix, or what is missing there
(``this_machine_ends``); the others' name the frameworks as measured, the leader and its ratio over the runner-up
with its interval, how many sittings replicate it, what it rests on, and who was not measured there and why.

A comparison is one table's lead at one batch size (a precision at a batch size on a machine), judged by the paired
rule (``generator.verdicts.leads``). The paragraph names the pair of frameworks that most comparisons decide, the
smallest and the largest of those leads with where each was measured, then counts the other comparisons by their
verdict; where none decides a leader it names the pair and says why (about equal, undecided, sittings disagree), and
where nothing was judged, why (the runs are shown but never judged, or nothing to compare).
"""

from __future__ import annotations

from collections import Counter

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE
from fwbench.frameworks import REGISTRY, label, measured_on, why_not_measured
from fwbench.harness_standing import WITHHELD
from generator.i18n import _, ngettext, translate
from generator.message import Message, and_list
from generator.records.flags import FLAGGED_RUNS
from generator.spacing import fill, spaced
from generator.verdicts.leads import Lead
from generator.views.answer_classes import AnswerGroup
from generator.views.chart_data import machine_tick
from generator.views.lead_words import measured_gap, pooled_gap, sittings_words
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, device_title, precision_words, views
from generator.views.this_machine_ends import ends_said
from generator.views.transformer_model import flops_of, model_of, model_words
from generator.views.verdict_text import text

#: one comparison: the table it is read from and its lead at one batch size
Comparison = tuple[TableView, Lead]


def comparisons(site: SiteData, group: AnswerGroup) -> list[Comparison]:
    """Every comparison of the group's tables: each table's lead at each batch size that has one."""
    return [(v, lead) for v in group.views for lead in site.throughput_leads(v.table).values() if lead]


def _span(values: list[int]) -> str:
    """``64–1024`` over three values or more, ``64 and 256`` over two, ``256`` alone."""
    ordered = sorted(set(values))
    if len(ordered) > 2:
        return f"{ordered[0]}–{ordered[-1]}"
    return text(and_list([str(v) for v in ordered]))


def _where(found: list[Comparison], view: TableView, lead: Lead) -> str:
    """Where a comparison was measured among ``found``: ``at batch 256``, then its precision where they span more
    than one (``in bfloat16``) and its machine where they span more than one."""
    where = fill(_("at batch {batch}"), batch=lead.batch_size)
    if len({v.table.setting.precision for v, _lead in found}) > 1:
        where = fill(_("{at} in {precision}"), at=where, precision=precision_words(view.table.setting))
    if len({v.table.machine_id for v, _lead in found}) > 1:
        machine = " ".join(machine_tick(view.machine, view.table.machine_id).split())
        where = fill(_("{at} on the {machine}"), at=where, machine=machine)
    return where


def _gaps(found: list[Comparison], decided: list[Comparison]) -> str:
    """The leads of ``decided`` in words: the one with where it was measured, or the smallest and the largest, each
    with where (the same figure alike written once)."""
    ranked = sorted(decided, key=lambda comparison: pooled_gap(comparison[1]).ratio)
    (low_view, low), (high_view, high) = ranked[0], ranked[-1]
    if len(decided) == 1:
        return fill(_("by {gap} {where}"), gap=str(pooled_gap(low)), where=_where(found, low_view, low))
    if str(pooled_gap(low)) == str(pooled_gap(high)):
        return fill(_("by {gap} in each"), gap=str(pooled_gap(low)))
    return fill(
        _("by {low} {low_where} to {high} {high_where}"),
        low=str(pooled_gap(low)),
        low_where=_where(found, low_view, low),
        high=str(pooled_gap(high)),
        high_where=_where(found, high_view, high),
    )


def _replication(decided: list[Comparison]) -> str:
    """How many sittings replicate the leads of ``decided``: its own words for one, else how many are replicated."""
    if len(decided) == 1:
        return sittings_words(decided[0][1])
    replicated = sum(lead.replicated for _view, lead in decided)
    if replicated == len(decided):
        sittings = sorted({len(lead.verdict.rests_on) for _view, lead in decided})
        return fill(_("each replicated in {span} sittings"), span=_span(sittings))
    if replicated:
        return fill(_("{r} of them replicated"), r=replicated)
    return _("none replicated yet (run the matrix again another day)")


def _ahead(found: list[Comparison], decided: list[Comparison]) -> str:
    """The sentence of the pair most comparisons decide: the leader, the runner-up, in how many of the comparisons,
    the smallest and largest lead with where, and how many sittings replicate them."""
    lead = decided[0][1]
    values = {
        "leader": lead.leader,
        "runner_up": lead.runner_up,
        "k": len(decided),
        "n": len(found),
        "gaps": _gaps(found, decided),
        "replication": _replication(decided),
    }
    if len(found) == 1:
        return fill(_("{leader} is ahead of {runner_up} {gaps}, {replication}."), **values)
    if len(decided) < len(found):
        return fill(_("{leader} is ahead of {runner_up} in {k} of {n} comparisons, {gaps}; {replication}."), **values)
    if len(found) == 2:
        return fill(_("{leader} is ahead of {runner_up} in both comparisons, {gaps}; {replication}."), **values)
    return fill(_("{leader} is ahead of {runner_up} in all {n} comparisons, {gaps}; {replication}."), **values)


def _counted(found: list[Comparison], named: bool) -> list[str]:
    """The comparisons of ``found`` counted by verdict, each kind once: ``PyTorch ahead of TensorFlow in 2``, ``5
    undecided (n = 3–5)``, ``1 within what fwbench's trainers may add (n = 5)`` (a lead the harness checks withhold,
    as its table says); a lead ahead, or only one framework finished, always names its frameworks, the others
    only with ``named`` (where no leader is said before them)."""
    kinds: Counter = Counter()
    rounds: dict[tuple, list[int]] = {}
    for _view, lead in found:
        names = named or lead.decided or lead.outcome is None
        outcome = WITHHELD if lead.withheld else lead.outcome
        key = (outcome, lead.leader if names else "", lead.runner_up if names else "")
        kinds[key] += 1
        rounds.setdefault(key, []).append(lead.n)
    said = []
    for key, count in kinds.items():
        outcome, leader, runner_up = key
        values = {"leader": leader, "runner_up": runner_up, "c": count, "n": _span(rounds[key])}
        if outcome is None:
            msgid = _("only {leader} finished in {c}")
        elif outcome == AHEAD:
            msgid = _("{leader} ahead of {runner_up} in {c}")
        elif outcome == ABOUT_EQUAL:
            msgid = _("{c} about equal between {leader} and {runner_up}") if leader else _("{c} about equal")
        elif outcome == WITHHELD:
            msgid = (
                _("{c} within what fwbench's trainers may add, between {leader} and {runner_up} (n = {n})")
                if leader
                else _("{c} within what fwbench's trainers may add (n = {n})")
            )
        elif outcome == DISAGREE:
            msgid = (
                _("{c} where the sittings disagree on {leader} and {runner_up}")
                if leader
                else _("{c} where the sittings disagree")
            )
        else:
            msgid = (
                _("{c} undecided between {leader} and {runner_up} (n = {n})")
                if leader
                else _("{c} undecided (n = {n})")
            )
        said.append(fill(msgid, **values))
    return said


def _no_verdict(group: AnswerGroup) -> str:
    """Why a group with no comparison judged names no leader, with the frameworks that ran: their runs are all shown
    but never judged (busy-flagged, older records), or fewer than two frameworks finished."""
    ran = [label(fw) for fw in dict.fromkeys(c.framework for v in group.views for c in v.table.columns)]
    flags = sorted({flag for v in group.views for s in v.table.summaries for flag in s.flags})
    if not flags or len(ran) < 2:
        return _("Nothing to compare yet: fewer than two frameworks finished a run.")
    runs = text(and_list([Message(FLAGGED_RUNS[flag]) for flag in flags]))
    return fill(
        _("No verdict between {frameworks}: their runs are {runs}, shown but never judged."),
        frameworks=text(and_list(ran)),
        runs=runs,
    )


def _never_fastest(found: list[Comparison]) -> list[str]:
    """The sentence naming the frameworks that ran in compiled mode but were never among a comparison's two fastest."""
    compared = {name for _view, lead in found for name in (lead.leader, lead.runner_up)}
    ran = dict.fromkeys(v.table.column_label(c) for v, _lead in found for c in v.table.columns_in("compiled"))
    slower = [name for name in ran if name not in compared]
    if not slower:
        return []
    return [fill(_("{frameworks}: never among the two fastest."), frameworks=text(and_list(slower)))]


def _verdicts(group: AnswerGroup, found: list[Comparison]) -> list[str]:
    """The sentences of the group's verdicts: the pair most comparisons decide and the others counted, or, where
    none decides a leader, every comparison counted with its frameworks; or why nothing was judged."""
    if not found:
        return [_no_verdict(group)]
    decided = [(v, lead) for v, lead in found if lead.decided]
    if not decided:
        counts = text(and_list(_counted(found, named=True)))
        return [fill(_("No framework is ahead yet: {counts}."), counts=counts), *_never_fastest(found)]
    pair = Counter((lead.leader, lead.runner_up) for _view, lead in decided).most_common(1)[0][0]
    main = [(v, lead) for v, lead in decided if (lead.leader, lead.runner_up) == pair]
    said_first = {id(lead) for _view, lead in main}
    others = [(v, lead) for v, lead in found if id(lead) not in said_first]
    said = [_ahead(found, main)]
    if others:
        counts = text(and_list(_counted(others, named=False)))
        others_said = ngettext("The other one: {counts}.", "The other {n}: {counts}.", len(others))
        said.append(fill(others_said, n=len(others), counts=counts))
    return said + _never_fastest(found)


def _rests_on(group: AnswerGroup, found: list[Comparison]) -> str | None:
    """What the comparisons rest on: the judged runs, in compiled mode, their batch sizes and precisions."""
    if not found:
        return None
    runs = sum(len(s.judged) for v in group.views for s in v.table.summaries if s.key.mode == "compiled")
    precisions = list(dict.fromkeys(precision_words(v.table.setting) for v, _lead in found))
    return fill(
        ngettext(
            "Rests on {runs} run in compiled mode at batch {batches}, in {precisions}.",
            "Rests on {runs} runs in compiled mode at batch {batches}, in {precisions}.",
            runs,
        ),
        runs=runs,
        batches=_span([lead.batch_size for _view, lead in found]),
        precisions=text(and_list(precisions)),
    )


def _harness(found: list[Comparison]) -> str | None:
    """How the group's leads stand against the frameworks' own minimal loops: set against them (with what fwbench's
    trainers measured, where one lead), or not checked."""
    decided = [lead for _view, lead in found if lead.decided]
    widened = [lead for lead in decided if measured_gap(lead)]
    if len(widened) == 1:
        lead = widened[0]
        return fill(
            _(
                "The lead is stated as between each framework's own minimal training loop ({references}) on this "
                "device: fwbench's trainers measured {measured}, and each was checked against its loop."
            ),
            references=text(and_list(_references(lead))),
            measured=str(measured_gap(lead)),
        )
    if widened:
        return fill(
            ngettext(
                "{n} lead is stated as between each framework's own minimal training loop, against which fwbench's "
                "trainers were checked.",
                "{n} leads are stated as between each framework's own minimal training loop, against which "
                "fwbench's trainers were checked.",
                len(widened),
            ),
            n=len(widened),
        )
    if decided and not any(lead.verdict.harness_checked for lead in decided):
        return _("fwbench's trainers are not yet checked against the frameworks' own minimal loops here.")
    return None


def _references(lead: Lead) -> list[str]:
    """The minimal loops a widened lead was set against, the leader's first."""
    standing = lead.verdict.harness
    references = [standing.first.reference, standing.second.reference]
    return references if lead.verdict.leader == 0 else references[::-1]


def _not_measured(group: AnswerGroup) -> list[str]:
    """Who was not measured there and why: each framework fwbench does not measure on the device class with the
    registry's reason (none where another framework trains its model there: PyTorch via torchax for PyTorch), then
    those it measures there that have no run on the group's machines."""
    ran = {c.framework for v in group.views for c in v.table.columns}
    stands_in = {REGISTRY[fw].model_of for fw in ran if REGISTRY[fw].model_of}
    said = [
        fill(_("{framework} was not measured: {reason}."), framework=label(fw), reason=translate(reason))
        for fw in REGISTRY
        if fw not in ran and fw not in stands_in and (reason := why_not_measured(fw, group.kind))
    ]
    missing = [label(fw) for fw in measured_on(group.kind) if fw not in ran]
    if missing:
        said.append(
            fill(
                ngettext("{frameworks} has no run there yet.", "{frameworks} have no run there yet.", len(missing)),
                frameworks=text(and_list(missing)),
            )
        )
    return said


def _heading(group: AnswerGroup) -> str:
    """The paragraph's lead-in: the group and its machine, or how many machines it holds."""
    machines = group.machine_ids
    if len(machines) == 1:
        view = group.views[0]
        where = device_title(view.machine, view.table.machine_id)
    else:
        where = fill(ngettext("{n} machine", "{n} machines", len(machines)), n=len(machines))
    return fill(_("**{group}** · {where}:"), group=_(group.word), where=where)


def _transformer(site: SiteData, group: AnswerGroup) -> list[str]:
    """The transformer's verdicts on the group's machines, one sentence per model size and precision (the largest
    model first), each naming the model as its records state it; none where it has no comparison there."""
    tables = [t for t in site.transformer_tables if t.machine_id in group.machine_ids and not t.setting.tuning]
    settings: dict[tuple, list[Comparison]] = {}
    for view in views(site, sorted(tables, key=lambda t: -flops_of(t))):
        model = model_of(view.table)
        if model.get("sizes"):
            key = (model["name"], view.table.setting.precision)
            settings.setdefault(key, []).extend(
                (view, lead) for lead in site.throughput_leads(view.table).values() if lead
            )
    said = []
    for found in settings.values():
        if found:
            view = found[0][0]
            said.append(
                fill(
                    _("**The transformer**, {model} in {precision}: {verdicts}"),
                    model=model_words(model_of(view.table)),
                    precision=precision_words(view.table.setting),
                    verdicts=" ".join(_verdicts(group, found)),
                )
            )
    return said


def paragraph(site: SiteData, group: AnswerGroup) -> str:
    """One group's paragraph (Markdown): ResNet-18's verdicts, then the transformer's."""
    found = comparisons(site, group)
    ends = ends_said(site, group) if group.builder else None
    verdicts = [ends] if ends else _verdicts(group, found)
    said = [_heading(group), *verdicts, _harness(found), _rests_on(group, found), *_transformer(site, group)]
    return spaced([*said, *_not_measured(group)])
