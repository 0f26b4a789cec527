"""The figures of the article's 3.1–3.3 tables as fwbench reads them from a configuration and writes them.

Seconds per epoch, peak GPU memory (NVML) and final test accuracy, each with its scale and unit, what kind of
figure it is for the comparability rules, and the words a claims row gives for one: fwbench's figure, and where its
95 % interval lies against the article's band. Seconds per epoch come in two definitions: the article's (the mean
epoch, compile inside the first) where the records hold it, else fwbench's median steady epoch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fwbench.stats import Stats
from generator.i18n import N_
from generator.message import Joined, Message, Spread, Text
from generator.records.aggregate import Summary
from generator.records.metrics import MIB
from generator.verdicts import comparability
from generator.verdicts.claims import CONFIRMED, CONTRADICTED


@dataclass(frozen=True)
class Figure:
    """How one measured figure is read from a configuration and written, in the article's unit."""

    subject: str  # English, marked with N_
    stats_of: Callable[[Summary], Stats | None]
    scale: float
    digits: int
    unit: str
    article_unit: str
    kind: str = comparability.ABSOLUTE  # what a row about it compares (``comparability.Evidence.kind``)
    definition: str | None = None  # how it is measured, where a row must say so (English, marked with N_)

    def stats(self, summary: Summary | None) -> Stats | None:
        """The figure of a configuration with successful runs."""
        return self.stats_of(summary) if summary and summary.n_ok else None

    def spread(self, stats: Stats) -> Spread:
        """The figure as it is written: its mean with its spread, in this figure's unit."""
        return Spread(stats, self.scale, self.digits, self.unit)

    def interval(self, stats: Stats) -> Message:
        """``95 % CI 9.0–9.4 s``: the 95 % interval in this figure's unit."""
        low, high = (v * self.scale for v in stats.ci95)
        return Message(
            N_("95 % CI {low}–{high} {unit}"),
            {"low": f"{low:,.{self.digits}f}", "high": f"{high:,.{self.digits}f}", "unit": self.unit},
        )


SECONDS = Figure(
    N_("seconds per epoch"),
    lambda s: s.epoch_seconds,
    1.0,
    1,
    "s",
    "s",
    definition=N_(
        "compares fwbench's median steady epoch, which differs from the article's epoch (the mean over the epochs, "
        "compile inside the first): these records do not hold the article's"
    ),
)
ARTICLE_SECONDS = Figure(
    N_("seconds per epoch"),
    lambda s: s.article_epoch_seconds,
    1.0,
    1,
    "s",
    "s",
    definition=N_("compares the article's epoch: the mean over the epochs, compile inside the first"),
)
NVML = Figure(N_("peak GPU memory (NVML)"), lambda s: s.memory("nvml_process_peak_bytes"), 1 / MIB, 0, "MiB", "MB")
ACCURACY = Figure(N_("final test accuracy"), lambda s: s.accuracy, 100.0, 2, "%", "%", kind=comparability.ACCURACY)


def seconds_figure(summaries: Iterable[Summary]) -> Figure:
    """ARTICLE_SECONDS when every successful configuration of ``summaries`` holds the article's epoch, else
    SECONDS: one definition for every row about one table."""
    ran = [s for s in summaries if s.n_ok]
    return ARTICLE_SECONDS if ran and all(s.article_epoch_seconds for s in ran) else SECONDS


def measured(summary: Summary | None, stats: Stats | None, figure: Figure) -> Text:
    """fwbench's figure for one configuration (``stats``, read from ``summary``) with its flags, or why there is
    none."""
    if summary is None:
        return Message(N_("not run"))
    if summary.n_ok == 0:
        return Message(N_("failed: {failures}"), {"failures": summary.failure_note})
    if stats is None:
        return Message(N_("not measured"))
    if not summary.flags:
        return figure.spread(stats)
    marks = Joined(tuple(Message(flag) for flag in summary.flags))
    return Joined((figure.spread(stats), " [", marks, "]"), "")


def band_reason(verdict: str, stats: Stats, figure: Figure, band: Text, differs: Text) -> tuple[Text, ...]:
    """Why ``band_verdict`` decided as it did: where the interval lies against ``band``."""
    where = {"interval": figure.interval(stats), "band": band}
    if verdict == CONFIRMED:
        return (Message(N_("{interval} lies inside {band}"), where),)
    if verdict == CONTRADICTED:
        return (
            Message(N_("mean differs by {difference}"), {"difference": differs}),
            Message(N_("{interval} lies outside {band}"), where),
        )
    return (Message(N_("{interval} reaches across the edge of {band}"), where),)
