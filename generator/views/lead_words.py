"""A lead as one statement: the ratio of the leader's throughput to the runner-up's with its interval, then how many
sittings it rests on ("JAX ahead, 1.30× (1.28–1.31×), replicated in 4 of 4 sittings"), instead of one ratio per
sitting; and, for a fold on the Results page, each sitting's own ratio.

The statement reads the lead's verdict as ``generator.verdicts.leads`` gave it (``Lead``, ``fwbench.decision.Verdict``):
the sittings it rests on, the sittings with a paired round, and whether it is replicated. Over several sittings the
ratio is their rounds' geometric mean (each sitting's ratio weighted by its paired rounds) and the interval spans
every one of their 95 % intervals, from the lowest bound to the highest; over one sitting both are that sitting's.
"""

from __future__ import annotations

import math

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE, SittingDecision
from fwbench.gap import Gap
from fwbench.harness_standing import WIDENED
from generator.i18n import _, ngettext
from generator.spacing import fill
from generator.verdicts.leads import EFFECT_PERCENT, Lead


def _leads(lead: Lead) -> list[SittingDecision]:
    """The sittings the lead rests on that give the leader's ratio (those that decided it ahead)."""
    return [decision for decision in (lead.verdict.rests_on if lead.verdict else ()) if decision.lead]


def pooled_gap(lead: Lead) -> Gap | None:
    """The leader's throughput over the runner-up's across the sittings that decided it ahead: their ratios'
    geometric mean weighted by each sitting's paired rounds, and the span of their 95 % intervals; None where no
    sitting decided a leader."""
    found = [(decision.n, decision.lead) for decision in _leads(lead)]
    if not found:
        return None
    rounds = sum(n for n, _gap in found)
    ratio = math.exp(sum(n * math.log(gap.ratio) for n, gap in found) / rounds)
    return Gap(ratio, min(gap.low for _n, gap in found), max(gap.high for _n, gap in found))


def sittings_words(lead: Lead) -> str:
    """How many sittings the verdict rests on, of those with a paired round, and how many of them decided nothing:
    ``replicated in 4 of 4 sittings``, ``in one sitting``, ``in 2 sittings of one boot (a pause apart)``,
    ``in 1 of 2 sittings; 1 undecided``."""
    verdict = lead.verdict
    if verdict is None:
        return ""
    agreeing, total = verdict.agreeing, len(verdict.sittings)
    if lead.replicated:
        words = fill(
            ngettext("replicated in {k} of {n} sitting", "replicated in {k} of {n} sittings", total),
            k=agreeing,
            n=total,
        )
    elif verdict.after_a_pause:
        words = fill(_("in {k} sittings of one boot (a pause apart, not a replication)"), k=agreeing)
    elif total == 1:
        words = _("in one sitting")
    else:
        words = fill(ngettext("in {k} of {n} sitting", "in {k} of {n} sittings", total), k=agreeing, n=total)
    if verdict.undecided and verdict.outcome != DISAGREE:
        words = fill(_("{sittings}; {n} undecided"), sittings=words, n=verdict.undecided)
    return words


def measured_gap(lead: Lead) -> Gap | None:
    """Where the lead was set against the frameworks' minimal loops (``fwbench.harness_tolerance``, widened), what
    fwbench's own trainers measured before it; None otherwise."""
    standing = lead.verdict.harness if lead.verdict else None
    gap = pooled_gap(lead)
    if gap is None or standing is None or standing.applies != WIDENED:
        return None
    factor = standing.factor if lead.verdict.leader == 0 else standing.factor.inverse()
    return Gap(gap.ratio / factor.ratio, gap.low / factor.low, gap.high / factor.high)


def statement(lead: Lead) -> str:
    """The lead as one statement: ``JAX ahead, 1.30× (1.28–1.31×), replicated in 4 of 4 sittings``; ``about equal
    (within 5 %), in one sitting``; ``undecided at n = 5``; ``sittings disagree (2 sittings)``; ``only JAX
    finished``."""
    verdict = lead.verdict
    if verdict is None:
        return fill(_("only {leader} finished"), leader=lead.leader)
    if verdict.outcome == AHEAD and (gap := pooled_gap(lead)):
        return fill(
            _("{leader} ahead, {gap}, {sittings}"), leader=lead.leader, gap=str(gap), sittings=sittings_words(lead)
        )
    if verdict.outcome == ABOUT_EQUAL:
        return fill(
            _("about equal (within {effect} %), {sittings}"), effect=EFFECT_PERCENT, sittings=sittings_words(lead)
        )
    if verdict.outcome == DISAGREE:
        count = len(verdict.rests_on)
        return fill(ngettext("sittings disagree ({n} sitting)", "sittings disagree ({n} sittings)", count), n=count)
    if lead.withheld:
        return fill(_("within what fwbench's trainers may add, at n = {n}"), n=lead.n)
    return fill(_("undecided at n = {n}"), n=lead.n)


def per_sitting(lead: Lead) -> list[str]:
    """Each sitting with a paired round, in time order: what it decided and, where it has one, its ratio of the
    leader to the runner-up with its interval (a lead's verdict names the leader first) and its paired rounds
    (``sitting 2: 1.30× (1.29–1.30×), n = 4``)."""
    if lead.verdict is None or lead.runner_up is None:
        return []
    said = []
    for number, decision in enumerate(lead.verdict.sittings, 1):
        gap = decision.gap
        if gap is None:
            said.append(fill(_("sitting {number}: no interval yet, n = {n}"), number=number, n=decision.n))
        else:
            said.append(fill(_("sitting {number}: {gap}, n = {n}"), number=number, gap=str(gap), n=decision.n))
    return said
