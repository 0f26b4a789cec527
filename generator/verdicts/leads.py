"""Who leads at one batch size of a table, by how much, and whether the records can tell: the paired rule of
``fwbench.decision``.

The two best columns (the leader and the runner-up, ranked as the matrix ranks them: ``fwbench.pairing.ranked``, by
their paired ratio) are judged on the runs that count (``fwbench.judged.counts``, never a superseded configuration's,
each column's newest harness), paired round by round within each sitting and matrix (``fwbench.pairing``): a leader
is named only where its sittings decide it ahead by more than ``MIN_EFFECT``, and a lead resting on fewer than
``MIN_SITTINGS`` boots says so ("ahead in one sitting"). A throughput lead is then set against the harness's measured
tolerance (``fwbench.harness_tolerance``): widened, withheld, or marked as not checked. A gap is written as a ratio
with its 95 % interval, one per sitting that decided it, never as a bare percentage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE, Verdict
from fwbench.gap import MIN_EFFECT
from fwbench.harness_standing import WITHHELD
from fwbench.harness_tolerance import check_for, within_harness
from fwbench.pairing import compare, ranked, run_throughput
from fwbench.records import harness_digest
from fwbench.stats import Stats
from generator.i18n import N_
from generator.message import Joined, Message, Spread, Text, and_list, parenthesised
from generator.records.aggregate import Column, Summary, Table

#: the minimum effect as the pages write it: "about equal (within 5 %)"
EFFECT_PERCENT = f"{100 * (MIN_EFFECT - 1):.0f}"
#: a run record's figure that a lead pairs round by round (None where the run has none)
RecordFigure = Callable[[dict], float | None]


@dataclass
class Lead:
    """The best figure at one batch size of one table beside the next one, and the paired verdict on the two
    (``fwbench.decision.Verdict``, the leader first): None when no competitor finished."""

    batch_size: int
    leader: str  # the column's label
    leader_stats: Stats
    runner_up: str | None
    runner_up_stats: Stats | None
    verdict: Verdict | None
    higher_is_better: bool = False
    failed: list[Text] = field(default_factory=list)  # ``TensorFlow (1 OOM)``: columns whose every run failed

    @property
    def outcome(self) -> str | None:
        """The verdict's outcome (``fwbench.decision``: AHEAD, ABOUT_EQUAL, UNDECIDED, DISAGREE); None alone."""
        return self.verdict.outcome if self.verdict else None

    @property
    def n(self) -> int:
        """The paired rounds the verdict stands on: the K of "undecided at n = K"."""
        return self.verdict.n if self.verdict else 0

    @property
    def decided(self) -> bool:
        """True when the records name the leader: its sittings decide it ahead (in one sitting or more)."""
        return self.outcome == AHEAD

    @property
    def withheld(self) -> bool:
        """True when the harness checks withhold the lead: within what fwbench's trainers may add
        (``fwbench.harness_tolerance``)."""
        return bool(self.verdict and self.verdict.harness and self.verdict.harness.applies == WITHHELD)

    @property
    def replicated(self) -> bool:
        """True when enough sittings each decided as the verdict says (``Verdict.replicated``)."""
        return bool(self.verdict and self.verdict.replicated)

    @property
    def gaps(self) -> Joined:
        """Where the lead is decided, the leader's figure over the runner-up's (how many times better) with its 95 %
        interval, one per sitting the verdict rests on, in time order: ``1.31× (1.18–1.45×) and 1.25× (…)``."""
        rests_on = self.verdict.rests_on if self.decided and self.verdict else ()
        return and_list([str(d.lead) for d in rests_on if d.lead])


def _within_harness(table: Table, batch_size: int, first: Summary, second: Summary, verdict: Verdict) -> Verdict:
    """``verdict`` (first ÷ second) set against the two columns' harness checks on the table's device kind, precision
    and workload at its size, in their mode, at their newest harness (``fwbench.harness_tolerance``)."""

    def check(summary: Summary):
        newest = summary.judged[0]
        return check_for(
            table.harness_checks,
            summary.key.framework,
            workload=table.setting.workload,
            device_kind=(newest.get("hardware") or {}).get("device_kind"),
            precision=table.setting.precision,
            digest=harness_digest(newest),
            batch_size=batch_size,
            machine_id=table.machine_id,
            mode=summary.key.mode,
            size=(newest.get("config") or {}).get("size"),
        )

    return within_harness(verdict, check(first), check(second))


def lead_at(
    table: Table,
    batch_size: int,
    columns: list[Column],
    stats_of: Callable[[Summary], Stats | None],
    figure: RecordFigure,
    higher_is_better: bool = False,
    harness: bool = False,
) -> Lead | None:
    """The lead among ``columns`` at one batch size: the two best of those with a figure by ``stats_of`` (of judged
    runs only: busy-flagged and older records never lead), ranked and judged on ``figure`` of their runs paired by
    rounds (``fwbench.pairing``), set against the harness checks where ``harness`` (a throughput's lead); None when no
    column has a figure or none has a competitor (a lead needs one that ran, even if it failed)."""
    figures: dict[str, tuple[Stats, Summary]] = {}
    failed: list[Text] = []
    for column in columns:
        s = table.at(column, batch_size)
        if s and s.judgeable and (stats := stats_of(s)):
            figures[table.column_label(column)] = (stats, s)
        elif s and s.n_ok == 0:
            failed.append(parenthesised(table.column_label(column), s.failure_note))
    if not figures or len(figures) + len(failed) < 2:
        return None
    names = list(figures)
    order = ranked([figures[name][1].counting for name in names], figure, lower_is_better=not higher_is_better)
    first, *rest = (names[index] for index in order)
    if not rest:
        return Lead(batch_size, first, figures[first][0], None, None, None, higher_is_better, failed)
    second = rest[0]
    verdict = compare(figures[first][1].counting, figures[second][1].counting, figure, not higher_is_better)
    if harness:
        verdict = _within_harness(table, batch_size, figures[first][1], figures[second][1], verdict)
    return Lead(
        batch_size,
        first,
        figures[first][0],
        second,
        figures[second][0],
        verdict,
        higher_is_better,
        failed,
    )


def throughput_of(table: Table) -> Callable[[Summary], Stats | None]:
    """The throughput a table's runs are compared by: images/s, or tokens/s for the transformer's."""
    if table.setting.is_article_workload:
        return lambda s: s.images_per_second
    return lambda s: s.tokens_per_second


def leads_by_batch(table: Table, mode: str = "compiled") -> dict[int, Lead | None]:
    """Batch size -> the lead by throughput in ``mode`` (``throughput_of``, paired by ``run_throughput``) set against
    the harness checks, None where no column has a competitor."""
    columns, stats_of = table.columns_in(mode), throughput_of(table)
    return {bs: lead_at(table, bs, columns, stats_of, run_throughput, True, harness=True) for bs in table.batch_sizes}


def throughput_leads(table: Table, mode: str = "compiled") -> list[Lead]:
    """Per batch size, the lead by throughput in ``mode`` (judged runs only)."""
    return [lead for lead in leads_by_batch(table, mode).values() if lead]


def _rate(stats: Stats) -> Spread:
    return Spread(stats, digits=1, unit="img/s")


#: what a lead's edge is called, by the figure it is read from (translated where shown)
FASTEST, QUICKEST_TO_COMPILE, LEANEST = N_("fastest"), N_("quickest to compile"), N_("leanest")
#: what a reader does to replicate a lead resting on one sitting
REPLICATE = N_("run it again another day to replicate it")


def lead_verdict(lead: Lead) -> Message:
    """A lead's verdict in a few words: ``PyTorch ahead, 1.31× (1.18–1.45×)`` where replicated, ``PyTorch ahead in
    one sitting, 1.31× (1.18–1.45×)``, ``about equal (within 5 %)``, ``undecided at n = 2``, ``sittings disagree``,
    or ``only JAX finished`` where no competitor finished."""
    values = {"leader": lead.leader, "gaps": lead.gaps, "n": lead.n, "effect": EFFECT_PERCENT}
    if lead.outcome is None:
        return Message(N_("only {leader} finished"), values)
    if lead.outcome == AHEAD:
        if lead.replicated:
            return Message(N_("{leader} ahead, {gaps}"), values)
        return Message(N_("{leader} ahead in one sitting, {gaps}"), values)
    if lead.outcome == ABOUT_EQUAL:
        if lead.replicated:
            return Message(N_("about equal (within {effect} %)"), values)
        return Message(N_("about equal (within {effect} %) in one sitting"), values)
    if lead.outcome == DISAGREE:
        return Message(N_("sittings disagree"))
    return Message(N_("undecided at n = {n}"), values)


def lead_text(lead: Lead, show: Callable[[Stats], Spread] | None = None, best: str = FASTEST) -> Message:
    """The lead (Markdown, worded where shown): the leader in bold, as ``best``, with its gap to the runner-up per
    sitting, only where its sittings decide it ahead (and that it rests on one sitting, how to replicate it, where it
    does); otherwise the verdict and both figures. ``show`` gives a figure as it is written (images/s by default),
    ``best`` names the leader's edge (one of FASTEST, QUICKEST_TO_COMPILE, LEANEST)."""
    show = show or _rate
    if lead.runner_up_stats is None:
        return Message(
            N_("only {leader} finished, at {figure} ({failed})"),
            {"leader": lead.leader, "figure": show(lead.leader_stats), "failed": Joined(tuple(lead.failed))},
        )
    figures = {
        "leader": lead.leader,
        "figure": show(lead.leader_stats),
        "runner_up": lead.runner_up,
        "other": show(lead.runner_up_stats),
        "gaps": lead.gaps,
        "best": Message(best),
    }
    if lead.decided and lead.replicated:
        return Message(N_("**{leader}** is {best} at {figure}, ahead of {runner_up} at {other}: {gaps}"), figures)
    if lead.decided:
        return Message(
            N_(
                "**{leader}** is {best} at {figure}, ahead of {runner_up} at {other} in one sitting: {gaps}; "
                "{replicate}"
            ),
            {**figures, "replicate": Message(REPLICATE)},
        )
    return Message(
        N_("{verdict}: {leader} at {figure} and {runner_up} at {other}"), {**figures, "verdict": lead_verdict(lead)}
    )
