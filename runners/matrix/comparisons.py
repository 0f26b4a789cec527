"""The comparisons a matrix decides: at one batch size, mode and precision policy, the leader beside the runner-up
(frameworks are compared only within one precision: a bf16 run never races an fp32 one).

The figure (``Figure``) is throughput (images/s, or the GPT's tokens/s) at every batch size; a profile that
``decides`` more (``runners.matrix.repeats``: quick) adds the two figures that "Which to choose" judges at the largest
batch size in compiled mode: the compile time and the memory peak of warm runs (a configuration's first run compiles
cold, and a figure with compile work inside never pools cold with warm, so only its repeats count there).

A comparison is judged by the site's rule (``fwbench.decision``), on the runs that count (``fwbench.judged.counts``:
ok, on a quiet machine, in a current record) of each framework's newest harness (``fwbench.pairing.newest_harness``),
existing records included: two frameworks' runs are paired round by round within a sitting and a matrix
(``fwbench.pairing``; a round that only one of them ran does not pair), and their ratio's 95 % interval is set
against the 5 % minimum effect. The compile time and the memory peak take the same
paired ratio over the rounds in which both runs were warm and carry the figure; lower is better there, so the ratio is
taken of their inverses (the other's figure over the leader's). The matrix decides within the sitting it is making,
the latest (``fwbench.sittings``), a new and empty one where the matrix starts after the records' latest sitting is
over (``fwbench.sittings.latest_over``: an hour's pause, another boot or kernel build): the competitors are ranked as
the site ranks them (``fwbench.pairing.ranked``: by their paired ratio over every sitting), and the comparison is
decided when its paired rounds of the leader and the runner-up in the latest sitting decide ahead or about equal.
Earlier sittings' records are kept and say whether the decision replicates (only those of another boot or machine
do); a matrix cannot replicate one by itself (its sitting is one), so its line says so, and a matrix started in a new
sitting runs again until its own sitting decides. Undecided, the pair runs another round, both of it, and so does a
third framework whose pair with the leader is undecided too, or that has no figure in the sitting yet (its runs busy,
or none warm), until the pair has the cap's paired rounds in the sitting: a run on a busy machine pairs with nothing
and does not use the cap up. A configuration with ``RUNS_LIMIT_FACTOR`` times the cap's runs in the sitting (any
status: those started after the earlier sittings' last finish, so that a later sitting reaches its cap too) runs no
more, as Phoronix Test Suite's dynamic run count stops at twice its default count, so that a machine that is always
busy ends too.
``runners.matrix.repeats`` runs again the configurations of the comparisons not decided yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from fwbench.frameworks import label
from fwbench.judged import busy, counts, older
from fwbench.pairing import newest_harness
from fwbench.pairing import ranked as ranked_by
from fwbench.run_figures import MEMORY_PEAKS
from fwbench.sittings import Start, latest_over, sittings
from fwbench.stats import describe
from runners.frameworks.precision import REFERENCE_PRECISION
from runners.matrix.figures import THROUGHPUT, WARM_COMPILE, Figure, memory_peak
from runners.matrix.pairs import DECISIVE, Competitor, Pair, pair
from runners.measure.profiles import RunConfig

#: a configuration runs at most this many times its cap in a sitting, counted or not (busy, failed)
RUNS_LIMIT_FACTOR = 2


@dataclass(frozen=True)
class Comparison:
    """The competitors at one batch size, mode and precision with ok runs: the best ``figure`` in the latest sitting
    first, those without one there last."""

    mode: str
    batch_size: int
    ranked: tuple[Competitor, ...]
    precision: str
    tried: bool  # False: none of its configurations has run yet (a budget stopped the matrix before them)
    figure: Figure
    cap: int  # the paired rounds in the latest sitting at which a pair is run no more, decided or not
    new_sitting: bool = False  # the latest sitting is the one a matrix starts, none of its runs counted yet

    @cached_property
    def leading(self) -> Pair | None:
        """The leader and the runner-up judged on their paired rounds; None with fewer than two competitors."""
        return pair(*self.ranked[:2], self.figure, self.new_sitting) if len(self.ranked) >= 2 else None

    @property
    def status(self) -> str | None:
        """The latest sitting's decision of the leader and the runner-up (AHEAD, ABOUT_EQUAL or UNDECIDED); None with
        fewer than two competitors."""
        return self.leading.now.outcome if self.leading else None

    @property
    def waiting(self) -> list[Competitor]:
        """The competitors after the runner-up that ran ok but have no figure in this sitting yet (their runs busy,
        older or earlier, or none warm): they run again, beside the leader, while the cap allows."""
        return [c for c in self.ranked[2:] if c.stats is None]

    def open_with(self, other: Competitor) -> bool:
        """Whether the leader's pair with ``other`` may still gain a round in this sitting: undecided there, below
        the cap of paired rounds, and both with a configuration below the limit."""
        leader = self.ranked[0]
        judged = self.leading if other is self.ranked[1] else pair(leader, other, self.figure, self.new_sitting)
        return not judged.decided and judged.now.n < self.cap and not (leader.at_limit or other.at_limit)

    @property
    def settled(self) -> bool:
        """The leader and the runner-up decided in this sitting, or at the cap (or the limit): nothing a round of
        theirs would change."""
        return self.status is not None and not self.open_with(self.ranked[1])

    @property
    def decided(self) -> bool:
        """Settled, and no competitor waiting for a figure that a round beside the leader could still give: nothing
        a further run would change."""
        return self.settled and not any(self.open_with(c) for c in self.waiting)

    def config_ids(self) -> set[str]:
        """The ids of its competitors' configurations."""
        return {config.config_id for competitor in self.ranked for config in competitor.configs}

    def to_run_again(self) -> list[RunConfig]:
        """The configurations to run again while undecided, those below the limit: the leader's, and those of every
        competitor whose pair with the leader may still gain a round (``open_with``: the runner-up while undecided,
        a third as close, one with no figure here yet)."""
        if self.status is None or self.decided:
            return []
        leader, *rest = self.ranked
        close = [c for c in rest if self.open_with(c)]
        return [config for competitor in (leader, *close) for config in competitor.below_limit]

    def where(self, with_mode: bool = False) -> str:
        """The comparison's name in the matrix's lines: ``bs 32``, ``bs 32 bf16``, ``bs 256 warm compile_seconds``."""
        where = f"bs {self.batch_size}" + (f" {self.mode}" if with_mode else "")
        where += "" if self.precision == REFERENCE_PRECISION else f" {self.precision}"
        return where + (f" {self.figure.name}" if self.figure.name else "")

    def line(self, stopped: str, with_mode: bool = False) -> str:
        """The comparison in words (``bs 32: PyTorch ahead of TensorFlow 1.31× (1.18–1.45×) at n = 3 in this sitting;
        replicate on another boot or machine``, ``bs 32 bf16: …`` for a precision other than fp32, ``bs 256
        warm compile_seconds: …`` for a figure other than throughput, where "ahead" is the lower figure); ``stopped``:
        why the matrix stopped, named after one not decided (``undecided at n = 2 (budget)``)."""
        where = self.where(with_mode)
        if not self.ranked:
            return f"{where}: " + ("no ok runs" if self.tried else f"not run yet ({stopped})")
        if self.leading is None:
            alone = "ran ok" if self.figure is THROUGHPUT else "has a figure"  # the others' within their steps' noise
            return f"{where}: only {self.ranked[0].name} {alone}, nothing to compare"
        waiting = "".join(f"; {c.not_counted()}" for c in self.ranked if c.stats is None)
        done = self.decided and self.status in DECISIVE
        return f"{where}: {self.leading.words()}{waiting}" + ("" if done or not stopped else f" ({stopped})")


def due_again(found: list[Comparison]) -> set[str]:
    """The ids of the configurations that the comparisons ``found`` still ask to run again (``to_run_again``)."""
    return {config.config_id for comparison in found for config in comparison.to_run_again()}


def comparisons(
    order: list[RunConfig],
    runs: dict[str, list[dict]],
    cap: int,
    decides: tuple[str, ...] = ("throughput",),
    limit: int | None = None,
    start: Start | None = None,
) -> list[Comparison]:
    """The comparisons of one matrix's configurations ``order`` (first runs), by batch size, mode and precision in the
    order's order, from ``runs`` (config id → the records of its runs, any repeat); ``cap``: the paired rounds in the
    latest sitting at which a pair runs no more, decided or not; ``limit``: a configuration's runs in the latest sitting
    at which it stops anyway (default: ``RUNS_LIMIT_FACTOR`` × the cap; a fixed count gives its own); ``decides``: the
    figures to compare (``DECIDES``): throughput at every batch size, start-up and memory at the largest in compiled
    mode, after its throughput; ``start``: where the matrix began, whose sitting is a new one where the records' latest
    is over by then (``fwbench.sittings.latest_over``; None: the records' latest)."""
    limit = RUNS_LIMIT_FACTOR * cap if limit is None else limit
    several_versions = len({(c.framework, c.framework_version) for c in order}) > len({c.framework for c in order})
    groups: dict[tuple[str, int, str], dict[tuple[str, str | None], list[RunConfig]]] = {}
    for config in order:
        competitors = groups.setdefault((config.mode, config.batch_size, config.precision), {})
        competitors.setdefault((config.framework, config.framework_version), []).append(config)
    largest: dict[str, int] = {}  # precision -> its largest batch size in compiled mode
    for mode, batch_size, precision in groups:
        if mode == "compiled":
            largest[precision] = max(batch_size, largest.get(precision, 0))
    found = []
    for (mode, batch_size, precision), competitors in groups.items():
        counting = [
            newest_harness([r for c in configs for r in runs.get(c.config_id, []) if counts(r)])[0]
            for configs in competitors.values()
        ]
        # sittings are the machine's, found over every run (any status, any harness): a sitting whose runs are all
        # of a new harness still began after the older harness's runs, which it does not count towards its limit
        every = [r for configs in competitors.values() for c in configs for r in runs.get(c.config_id, [])]
        new_sitting = start is not None and latest_over(every, start)
        found_sittings = sittings([every])
        in_latest = (
            {id(every[index]) for _, index in found_sittings[-1]} if found_sittings and not new_sitting else set()
        )
        latest = {id(r) for runs_of in counting for r in runs_of if id(r) in in_latest}
        since = max(
            (r["finished_at"] for r in every if id(r) not in in_latest), key=datetime.fromisoformat, default=None
        )
        figures = [THROUGHPUT]
        if mode == "compiled" and batch_size == largest[precision]:
            figures += [WARM_COMPILE] if "start-up" in decides else []
            figures += [memory_peak(_memory_name(competitors, runs))] if "memory" in decides else []
        tried = any(runs.get(c.config_id) for configs in competitors.values() for c in configs)
        for figure in figures:
            ranked = _ranked(competitors, runs, limit, since, figure, several_versions, latest)
            found.append(Comparison(mode, batch_size, tuple(ranked), precision, tried, figure, cap, new_sitting))
    return found


def _name(framework: str, version: str | None, several_versions: bool) -> str:
    """A competitor's name in the matrix's lines: ``PyTorch``, or ``PyTorch 2.2.1`` where versions are compared."""
    return label(framework) + (f" {version}" if several_versions else "")


def _memory_name(competitors: dict[tuple[str, str | None], list[RunConfig]], runs: dict[str, list[dict]]) -> str:
    """The memory peak to compare: the first of ``MEMORY_PEAKS`` that the ok runs of two competitors carry (the
    choose page's, which takes the first that gives a lead); the host's where none does yet."""
    for name in MEMORY_PEAKS:
        carried = [
            configs
            for configs in competitors.values()
            if any(
                r["status"] == "ok" and (r.get("memory") or {}).get(name) is not None
                for c in configs
                for r in runs.get(c.config_id, [])
            )
        ]
        if len(carried) >= 2:
            return name
    return MEMORY_PEAKS[-1]


def _ranked(
    competitors: dict[tuple[str, str | None], list[RunConfig]],
    runs: dict[str, list[dict]],
    limit: int,
    since: str | None,
    figure: Figure,
    several_versions: bool,
    latest: set[int],
) -> list[Competitor]:
    """The competitors with ok runs, the best by ``figure`` first as the site ranks them (``fwbench.pairing.ranked``),
    each with its figure in the latest sitting (``latest``: the ids of its runs that count); without one whose
    counted runs hold no figure in any sitting. ``limit``: a configuration's runs in the sitting at which it runs no
    more, those started after ``since`` (the earlier sittings' last finish; None: there are none)."""
    ranked = []
    for (framework, version), configs in competitors.items():
        records = [r for config in configs for r in runs.get(config.config_id, [])]
        ok = [r for r in records if r["status"] == "ok"]
        counting, older_harness = newest_harness([r for r in ok if counts(r)])
        taken = [r for r in counting if figure.takes(r)]
        if not ok or (taken and all(figure.value(r) is None for r in taken)):
            continue  # none has a figure: nothing a run would add (a warm compile within the steps' noise)
        now = [value for r in counting if id(r) in latest and (value := figure.of(r)) is not None]
        per_config = tuple(sum(id(r) in latest for r in runs.get(c.config_id, [])) for c in configs)
        below = tuple(c for c in configs if len(_in_sitting(runs.get(c.config_id, []), since)) < limit)
        ranked.append(
            Competitor(
                _name(framework, version, several_versions),
                tuple(configs),
                describe(now),
                tuple(counting),
                below,
                per_config,
                busy=sum(map(busy, ok)),
                older=sum(1 for r in ok if older(r) and not busy(r)),
                earlier=sum(1 for r in counting if id(r) not in latest),
                older_harness=len(older_harness),
            )
        )
    return [ranked[index] for index in ranked_by([c.runs for c in ranked], figure.of, figure.lower_is_better)]


def _in_sitting(records: list[dict], since: str | None) -> list[dict]:
    """The ``records`` started after ``since`` (the earlier sittings' last finish; None: all of them)."""
    if since is None:
        return records
    end = datetime.fromisoformat(since)
    return [r for r in records if datetime.fromisoformat(r["started_at"]) > end]
