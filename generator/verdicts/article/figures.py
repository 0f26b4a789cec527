"""The figures of the article's 3.1–3.3 tables as fwbench reads them from a configuration and writes them.

Seconds per epoch, peak GPU memory (NVML) and final test accuracy, each with its scale and unit, what kind of
figure it is for the comparability rules, and the words a claims row gives for one: fwbench's figure, and where its
95 % interval lies against the article's band. Seconds per epoch come in two definitions: the article's (the mean
epoch, compile inside the first) where the records hold it, else fwbench's median steady epoch. The article's
includes compile work, so it is read from the runs of one compile-cache state, never pooled (``in_state``): warm
where every configuration has warm runs (a configuration's repeats: what users live with), else cold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from fwbench.stats import Stats
from generator.i18n import N_, Nn_
from generator.message import Joined, Message, Spread, Text
from generator.records.aggregate import Summary, Table
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
    warm: bool | None = None  # includes compile work: read from the runs with warm (True) or cold caches alone

    def stats(self, summary: Summary | None) -> Stats | None:
        """The figure of a configuration with successful runs."""
        return self.stats_of(summary) if summary and summary.n_ok else None

    def spread(self, stats: Stats) -> Spread:
        """The figure as it is written: its mean with its spread, in this figure's unit."""
        return Spread(stats, self.scale, self.digits, self.unit)

    def written(self, stats: Stats) -> Text:
        """The figure with its spread, and the compile-cache state of its runs where it has one."""
        if self.warm is None:
            return self.spread(stats)
        state = Message(CACHE_STATES[self.warm])
        return Message(N_("{figure}, {state}"), {"figure": self.spread(stats), "state": state})

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
        "compile inside the first): these records do not hold the article's for one compile-cache state at every "
        "configuration"
    ),
)
#: how a row names the compile-cache state of the runs it read
CACHE_STATES = {True: N_("warm compile caches"), False: N_("cold compile caches")}
WARM_ARTICLE_SECONDS = Figure(
    N_("seconds per epoch"),
    lambda s: s.article_epoch_seconds,
    1.0,
    1,
    "s",
    "s",
    definition=N_(
        "compares the article's epoch (the mean over the epochs, compile inside the first) over the runs with warm "
        "compile caches, a configuration's repeats after its first run: what users live with; the cold first runs "
        "compile from scratch and never pool with them"
    ),
    warm=True,
)
COLD_ARTICLE_SECONDS = replace(
    WARM_ARTICLE_SECONDS,
    definition=N_(
        "compares the article's epoch (the mean over the epochs, compile inside the first) over the runs with cold "
        "compile caches, as not every configuration has runs with warm ones; warm runs never pool with them"
    ),
    warm=False,
)
NVML = Figure(N_("peak GPU memory (NVML)"), lambda s: s.memory("nvml_process_peak_bytes"), 1 / MIB, 0, "MiB", "MB")
ACCURACY = Figure(N_("final test accuracy"), lambda s: s.accuracy, 100.0, 2, "%", "%", kind=comparability.ACCURACY)


#: a speed-up's figure where the two epochs differ in size: the ratio of throughputs is the article's ratio of
#: epoch times over equal epochs (compile, which the article's epoch holds, is left out)
EQUAL_WORK_RATE = Figure(
    N_("images per second"),
    lambda s: s.images_per_second,
    1.0,
    1,
    "img/s",
    "img/s",
    kind=comparability.SCALE_FREE,
    definition=N_(
        "compares images per second: these epochs differ in size between the two batch sizes (the article's are "
        "50,000 images at each), so the same work compares, not seconds per epoch; compile time is left out"
    ),
)


def seconds_figure(summaries: Iterable[Summary]) -> Figure:
    """The article's epoch over the runs with warm compile caches where every successful configuration of
    ``summaries`` holds it for them, else over the cold runs where every one holds that, else SECONDS: one
    definition for every row about one table."""
    ran = [s for s in summaries if s.n_ok]
    for figure in (WARM_ARTICLE_SECONDS, COLD_ARTICLE_SECONDS):
        if ran and all(s.cached(figure.warm).article_epoch_seconds for s in ran):
            return figure
    return SECONDS


def in_state(table: Table, figure: Figure) -> Table:
    """``table`` with each configuration's runs of ``figure``'s compile-cache state alone (``Summary.cached``) where
    the figure includes compile work, so that its figures and the rules' run counts are within that state; else
    ``table``."""
    return table if figure.warm is None else table.cached(figure.warm)


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
        return figure.written(stats)
    marks = Joined(tuple(Message(flag) for flag in summary.flags))
    return Joined((figure.written(stats), " [", marks, "]"), "")


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


#: how a ranking row counts the batch sizes where the stated order of the means holds, and where it holds at none
HOLDS, HOLDS_PLURAL = Nn_(
    "order of the means holds at {holds} of {n} batch size with all three",
    "order of the means holds at {holds} of {n} batch sizes with all three",
)
HOLDS_AT_NONE, HOLDS_AT_NONE_PLURAL = Nn_(
    "order of the means does not hold at the {n} batch size with all three",
    "order of the means holds at none of the {n} batch sizes with all three",
)


def order_holds(holds: int, sizes: int) -> Message:
    """At how many of the ``sizes`` batch sizes with a figure for every framework the stated order of the means
    holds: none said as none, and no such batch size said as such."""
    if not sizes:
        return Message(N_("no batch size has a figure for all three"))
    if not holds:
        return Message(HOLDS_AT_NONE, {"n": sizes}, HOLDS_AT_NONE_PLURAL)
    return Message(HOLDS, {"holds": holds, "n": sizes}, HOLDS_PLURAL)
