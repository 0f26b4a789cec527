"""Who leads at one batch size of a table, by how much, and whether the records can tell (the noise rules).

A lead needs a competitor and is judged from clean runs only: "apart" when the two best 95 % intervals do not
overlap, "within noise" when they do, "no verdict" with fewer than three runs (``stats.separation``). Only a lead
apart is decided: only then is a leader named, in bold, as fastest (or quickest, or leanest) and favoured; a gap
above 2× is written as a ratio.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fwbench.stats import APART, MIN_RUNS_FOR_INTERVAL, TOO_FEW_RUNS, WITHIN_NOISE, Stats, separation
from generator.i18n import N_
from generator.message import Joined, Message, Spread, Text, parenthesised
from generator.records.aggregate import Column, Summary, Table

#: above this ratio of the two figures a gap is written as a ratio (``3.3×``), not as a percentage
RATIO_ABOVE = 2.0


@dataclass
class Lead:
    """The best figure at one batch size of one table beside the next one, and whether the data can tell them
    apart: ``status`` is APART, WITHIN_NOISE or TOO_FEW_RUNS, None when no competitor finished."""

    batch_size: int
    leader: str  # the column's label
    leader_stats: Stats
    runner_up: str | None
    runner_up_stats: Stats | None
    status: str | None
    higher_is_better: bool = False
    failed: list[Text] = field(default_factory=list)  # ``TensorFlow (1 OOM)``: columns whose every run failed

    @property
    def margin(self) -> float | None:
        """How much better the leader's mean is, as a fraction of the runner-up's (higher figures) or of the
        leader's (lower figures: how much more the runner-up needs)."""
        if self.runner_up_stats is None:
            return None
        if self.higher_is_better:
            return self.leader_stats.mean / self.runner_up_stats.mean - 1
        return self.runner_up_stats.mean / self.leader_stats.mean - 1

    @property
    def n(self) -> int:
        """The smaller run count of the two figures compared."""
        return min(self.leader_stats.n, self.runner_up_stats.n if self.runner_up_stats else self.leader_stats.n)

    @property
    def decided(self) -> bool:
        """True when the records can name the leader: the two best 95 % intervals are apart."""
        return self.status == APART


def lead_among(
    batch_size: int, figures: dict[str, Stats], failed: list[Text], higher_is_better: bool = False
) -> Lead | None:
    """The best of ``figures`` (label -> statistics of judged runs) beside the next one; None when no framework
    has a figure or none has a competitor (a lead needs one that ran, even if it failed)."""
    if not figures or len(figures) + len(failed) < 2:
        return None
    first, *rest = sorted(figures, key=lambda name: figures[name].mean, reverse=higher_is_better)
    second = rest[0] if rest else None
    return Lead(
        batch_size,
        first,
        figures[first],
        second,
        figures[second] if second else None,
        separation(figures[first], figures[second]) if second else None,
        higher_is_better,
        failed,
    )


def lead_at(
    table: Table,
    batch_size: int,
    columns: list[Column],
    stats_of: Callable[[Summary], Stats | None],
    higher_is_better: bool = False,
) -> Lead | None:
    """The lead among ``columns`` at one batch size, from judged runs only (busy-flagged and older records
    never lead)."""
    figures: dict[str, Stats] = {}
    failed: list[Text] = []
    for column in columns:
        s = table.at(column, batch_size)
        if s and s.judgeable and stats_of(s):
            figures[table.column_label(column)] = stats_of(s)
        elif s and s.n_ok == 0:
            failed.append(parenthesised(table.column_label(column), s.failure_note))
    return lead_among(batch_size, figures, failed, higher_is_better)


def throughput_of(table: Table) -> Callable[[Summary], Stats | None]:
    """The throughput a table's runs are compared by: images/s, or tokens/s for the transformer's."""
    if table.setting.is_article_workload:
        return lambda s: s.images_per_second
    return lambda s: s.tokens_per_second


def leads_by_batch(table: Table, mode: str = "compiled") -> dict[int, Lead | None]:
    """Batch size -> the column with the highest throughput in ``mode`` (``throughput_of``; judged runs only), None
    where no column has a competitor."""
    columns = table.columns_in(mode)
    stats_of = throughput_of(table)
    return {bs: lead_at(table, bs, columns, stats_of, higher_is_better=True) for bs in table.batch_sizes}


def throughput_leads(table: Table, mode: str = "compiled") -> list[Lead]:
    """Per batch size, the column with the most images per second in ``mode`` (judged runs only)."""
    return [lead for lead in leads_by_batch(table, mode).values() if lead]


def _rate(stats: Stats) -> Spread:
    return Spread(stats, digits=1, unit="img/s")


#: what a lead's edge is called, by the figure it is read from (translated where shown)
FASTEST, QUICKEST_TO_COMPILE, LEANEST = N_("fastest"), N_("quickest to compile"), N_("leanest")


def lead_verdict(lead: Lead) -> Message:
    """A lead's verdict in a few words: ``PyTorch: beyond noise`` when decided, else ``no verdict (n = 1)``,
    ``within noise (n = 3)``, or ``only JAX finished`` where no competitor finished."""
    if lead.status is None:
        return Message(N_("only {leader} finished"), {"leader": lead.leader})
    if lead.status == WITHIN_NOISE:
        return Message(N_("within noise (n = {n})"), {"n": lead.n})
    if lead.status == TOO_FEW_RUNS:
        return Message(N_("no verdict (n = {n})"), {"n": lead.n})
    return Message(N_("{leader}: beyond noise"), {"leader": lead.leader})


def gap_text(ratio: float, other: str) -> Message:
    """How far ahead of ``other`` a figure ``ratio`` times better is: ``1.9 % ahead of JAX``, above RATIO_ABOVE
    ``3.3× ahead of JAX``."""
    if ratio > RATIO_ABOVE:
        return Message(N_("{ratio:.1f}× ahead of {other}"), {"ratio": ratio, "other": other})
    return Message(N_("{margin:.1f} % ahead of {other}"), {"margin": 100 * (ratio - 1), "other": other})


def lead_text(lead: Lead, show: Callable[[Stats], Spread] | None = None, best: str = FASTEST) -> Message:
    """The lead (Markdown, worded where shown): the leader in bold, as ``best`` and by how much, only when the two
    best 95 % intervals are apart; otherwise both figures under "within noise" or "no verdict" and the run count.
    ``show`` gives a figure as it is written (images/s by default), ``best`` names the leader's edge (one of
    FASTEST, QUICKEST_TO_COMPILE, LEANEST)."""
    show = show or _rate
    if lead.status is None:
        return Message(
            N_("only {leader} finished, at {figure} ({failed})"),
            {"leader": lead.leader, "figure": show(lead.leader_stats), "failed": Joined(tuple(lead.failed))},
        )
    figures = {
        "leader": lead.leader,
        "figure": show(lead.leader_stats),
        "runner_up": lead.runner_up,
        "other": show(lead.runner_up_stats),
    }
    if lead.status == WITHIN_NOISE:
        return Message(
            N_("{verdict}: {leader} at {figure} and {runner_up} at {other}, their 95 % intervals overlap"),
            {"verdict": lead_verdict(lead), **figures},
        )
    if lead.status == TOO_FEW_RUNS:
        return Message(
            N_(
                "{verdict}: {leader} at {figure} and {runner_up} at {other}; a verdict needs {runs} clean runs of "
                "each and 95 % intervals apart"
            ),
            {"verdict": lead_verdict(lead), "runs": MIN_RUNS_FOR_INTERVAL, **figures},
        )
    return Message(
        N_("**{leader}** is {best} at {figure}, {gap}, beyond the noise (95 % intervals apart)"),
        {
            "leader": lead.leader,
            "best": Message(best),
            "figure": show(lead.leader_stats),
            "gap": gap_text(1 + lead.margin, lead.runner_up),
        },
    )
