"""Who leads at one batch size of a table, by how much, and whether the records can tell (the noise rules).

A lead needs a competitor and is judged from clean runs only: "apart" when the two best 95 % intervals do not
overlap, "within noise" when they do, "may be noise" with fewer than three runs (``stats.separation``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from generator import fmt
from generator.aggregate import Column, Summary, Table
from generator.i18n import N_, _, translate
from generator.stats import APART, TOO_FEW_RUNS, WITHIN_NOISE, Stats, separation

#: a lead's status in the words of a table's verdict column
LEAD_VERDICTS = {
    APART: N_("beyond noise"),
    WITHIN_NOISE: N_("within noise"),
    TOO_FEW_RUNS: N_("may be noise"),
    None: N_("only one finished"),
}


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
    failed: list[str] = field(default_factory=list)

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
    def verdict(self) -> str:
        """The lead's status in words (LEAD_VERDICTS), in the language being written."""
        return translate(LEAD_VERDICTS[self.status])


def lead_among(
    batch_size: int, figures: dict[str, Stats], failed: list[str], higher_is_better: bool = False
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
    figures, failed = {}, []
    for column in columns:
        s = table.at(column, batch_size)
        if s and s.judgeable and stats_of(s):
            figures[table.column_label(column)] = stats_of(s)
        elif s and s.n_ok == 0:
            failed.append(f"{table.column_label(column)} ({s.failure_note})")
    return lead_among(batch_size, figures, failed, higher_is_better)


def throughput_leads(table: Table, mode: str = "compiled") -> list[Lead]:
    """Per batch size, the column with the most images per second in ``mode`` (judged runs only)."""
    found = [
        lead_at(table, bs, table.columns_in(mode), lambda s: s.images_per_second, higher_is_better=True)
        for bs in table.batch_sizes
    ]
    return [lead for lead in found if lead]


def _rate(stats: Stats) -> str:
    return fmt.spread(stats, digits=1, unit="img/s")


#: what a lead's edge is called, by the figure it is read from (translated where shown)
FASTEST, QUICKEST_TO_COMPILE, LEANEST = N_("fastest"), N_("quickest to compile"), N_("leanest")


def lead_text(lead: Lead, show: Callable[[Stats], str] | None = None, best: str = FASTEST) -> str:
    """The lead in words (Markdown): "within noise" where the intervals overlap, and never a lead from fewer
    than three runs without saying it may be noise. ``show`` writes a figure (images/s by default), ``best``
    names the leader's edge (one of FASTEST, QUICKEST_TO_COMPILE, LEANEST)."""
    show = show or _rate
    if lead.status is None:
        return _("only **{leader}** finished, at {figure} ({failed})").format(
            leader=lead.leader, figure=show(lead.leader_stats), failed=", ".join(lead.failed)
        )
    if lead.status == WITHIN_NOISE:
        return _(
            "**{leader}** at {figure} and **{runner_up}** at {other} are within noise: their 95 % intervals overlap"
        ).format(
            leader=lead.leader,
            figure=show(lead.leader_stats),
            runner_up=lead.runner_up,
            other=show(lead.runner_up_stats),
        )
    text = _("**{leader}** is {best} at {figure}, {margin:.1f} % ahead of {runner_up}").format(
        leader=lead.leader,
        best=translate(best),
        figure=show(lead.leader_stats),
        margin=100 * lead.margin,
        runner_up=lead.runner_up,
    )
    if lead.status == TOO_FEW_RUNS:
        return _("{lead} — n={n}, may be noise").format(lead=text, n=lead.n)
    return _("{lead}, beyond the noise (95 % intervals apart)").format(lead=text)
