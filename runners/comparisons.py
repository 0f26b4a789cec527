"""The comparisons a matrix decides: at one batch size, mode and precision policy, the leader's figure beside the
runner-up's (frameworks are compared only within one precision: a bf16 run never races an fp32 one).

The figure (``Figure``) is throughput (images/s, or the GPT's tokens/s) at every batch size; a profile that
``decides`` more (``runners.repeats``: quick) adds the two figures that "Which to choose" judges at the largest batch
size in compiled mode: the compile time and the memory peak of warm runs (a configuration's first run compiles cold,
and a figure with compile work inside never pools cold with warm, so only its repeats count there).

A comparison is made from the judged runs this machine recorded for the matrix's configurations (status ok, not
busy-flagged, as the site's verdicts take them), every seed and repeat pooled as the generator pools them, existing
records included, less those made alone in their sitting (``fwbench.sittings``: no other competitor ran beside them,
so a change of the machine's speed between days could decide the comparison). A framework whose runs ended ok but
none counts yet (all on a busy machine, or alone; no warm run) is in it without a figure, and runs again; one whose
counted runs hold no figure (a warm compile within the steps' noise) has nothing a run would add and is left out, as
is one whose runs all failed. Where the others are done (at the cap, or their runs made on an earlier day), the leader
runs once more, past the cap if need be, beside a framework whose runs were all made alone (``to_run_beside``). A
comparison is decided when the two 95 % intervals do not overlap (``fwbench.stats.separation``, the rule of the
site's verdicts, which needs n ≥ 3 each), and it ends "within noise" when they still overlap after both reached the
cap. The cap counts the runs that count (judged, and not alone), so that runs on a busy machine or alone do not use it
up; a configuration with ``RUNS_LIMIT_FACTOR`` times the cap's runs in all runs no more, as Phoronix Test Suite's
dynamic run count stops at twice its default count. ``runners.repeats`` runs again the configurations of the
comparisons not decided yet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fwbench.frameworks import label
from fwbench.records import throughput
from fwbench.run_figures import MEMORY_PEAKS, compile_measurable, warm_cache
from fwbench.sittings import made_alone, runs_per_sitting, unequal_shares
from fwbench.stats import APART, TOO_FEW_RUNS, WITHIN_NOISE, Stats, describe, separation
from runners.profiles import RunConfig
from runners.recipe import REFERENCE_PRECISION


@dataclass(frozen=True)
class Figure:
    """What a comparison ranks frameworks by: its name in the matrix's lines (none for throughput), a counted run's
    value (None: not measured), whether lower is better, and whether only runs with warm compiler caches count."""

    name: str
    value: Callable[[dict], float | None]
    lower_is_better: bool = False
    warm_only: bool = False


def _throughput(record: dict) -> float | None:
    return throughput(record["timing"])[0]


def _compile_seconds(record: dict) -> float | None:
    """A run's compile time where it stands above its steps' noise (``compile_measurable``), as the site counts it."""
    return record["timing"]["compile_seconds"] if compile_measurable(record["timing"]) else None


def memory_peak(name: str) -> Figure:
    """The warm runs' memory peak ``name`` (one of ``MEMORY_PEAKS``), lowest first."""
    return Figure(f"warm {name}", lambda record: (record.get("memory") or {}).get(name), True, True)


THROUGHPUT = Figure("", _throughput)
WARM_COMPILE = Figure("warm compile_seconds", _compile_seconds, lower_is_better=True, warm_only=True)
#: the figures a profile's ``decides`` may name (throughput first, always), each with its words
DECIDES = {"throughput": "throughput", "start-up": "compile time", "memory": "memory peak"}
#: a configuration runs at most this many times its cap in all, counted or not (busy, alone, failed)
RUNS_LIMIT_FACTOR = 2


@dataclass(frozen=True)
class Competitor:
    """One framework (at one version) in a comparison: its configurations (one per seed), its counted runs' figure
    (None: none counted yet), its configurations below the cap (fewer counted runs than the cap, and fewer runs in
    all than the limit), how many runs of each count (judged, not alone; in ``configs``' order), how many of its
    judged runs were made alone in their sitting and how many of its ok runs on a busy machine."""

    name: str
    configs: tuple[RunConfig, ...]
    stats: Stats | None
    below_cap: tuple[RunConfig, ...] = ()
    counted: tuple[int, ...] = ()
    alone: int = 0
    busy: int = 0

    @property
    def n(self) -> int:
        """Its judged runs."""
        return self.stats.n if self.stats else 0

    @property
    def at_cap(self) -> bool:
        """Whether every configuration has as many counted runs as the cap asks, or as many runs as the limit allows."""
        return not self.below_cap

    def not_counted(self) -> str:
        """Why none of its runs counts, for a competitor without a figure: ``no run of JAX counted yet, 3 made alone``
        (or ``…, 2 on a busy machine``, or ``…, no warm run`` where only warm runs count)."""
        why = [f"{self.busy} on a busy machine"] if self.busy else []
        why += [f"{self.alone} made alone"] if self.alone else []
        return f"no run of {self.name} counted yet, " + (" and ".join(why) or "no warm run")

    def apart_from(self, other: Competitor) -> bool:
        """Whether the two figures' 95 % intervals do not overlap."""
        return bool(self.stats and other.stats) and separation(self.stats, other.stats) == APART


@dataclass(frozen=True)
class Comparison:
    """The competitors at one batch size, mode and precision with ok runs: the best ``figure`` first, those without one
    last."""

    mode: str
    batch_size: int
    ranked: tuple[Competitor, ...]
    precision: str = REFERENCE_PRECISION
    tried: bool = True  # False: none of its configurations has run yet (a budget stopped the matrix before them)
    figure: Figure = THROUGHPUT
    #: each competitor's name and judged runs per shared sitting, where those fall in two sittings or more in unequal
    #: shares (``fwbench.sittings.unequal_shares``): the figures then carry part of what changed between them
    uneven: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def status(self) -> str | None:
        """``separation`` of the leader and the runner-up (TOO_FEW_RUNS when one has no figure); None with fewer than
        two competitors."""
        if len(self.ranked) < 2:
            return None
        first, second = self.ranked[0].stats, self.ranked[1].stats
        return separation(first, second) if first and second else TOO_FEW_RUNS

    @property
    def waiting(self) -> list[Competitor]:
        """The competitors after the runner-up that ran ok but have no figure yet (their runs busy or lone, or none
        warm): they run again, beside the leader, while the cap allows."""
        return [c for c in self.ranked[2:] if c.stats is None]

    @property
    def settled(self) -> bool:
        """The leader and the runner-up apart, or within noise with both at the cap: nothing a run of theirs would
        change."""
        return self.status == APART or (self.status == WITHIN_NOISE and all(c.at_cap for c in self.ranked[:2]))

    @property
    def decided(self) -> bool:
        """Settled, and no competitor waiting for a figure that could still run: nothing a further run would
        change."""
        return self.settled and all(c.at_cap for c in self.waiting)

    def config_ids(self) -> set[str]:
        """The ids of its competitors' configurations."""
        return {config.config_id for competitor in self.ranked for config in competitor.configs}

    def to_run_again(self) -> list[RunConfig]:
        """The configurations to run again while undecided: the leader's and those of every competitor not apart
        from it (the runner-up, and a third that overlaps too), those below the cap."""
        if self.status is None or self.decided:
            return []
        leader, *rest = self.ranked
        close = [c for c in rest if not leader.apart_from(c)]
        return [config for competitor in (leader, *close) for config in competitor.below_cap]

    def to_run_beside(self) -> list[RunConfig]:
        """The leader's configurations, to run once more (past the cap if need be) where a competitor has no counted
        run because it ran alone in its sitting (measured on another day than the others, which are done): one run of
        the leader in that competitor's sitting makes its runs there count."""
        leader = self.ranked[0] if self.ranked else None
        return list(leader.configs) if leader and leader.stats and self.measured_alone else []

    @property
    def measured_alone(self) -> list[Competitor]:
        """The competitors with no counted run because their runs were made alone in their sitting."""
        return [c for c in self.ranked if c.stats is None and c.alone]

    def where(self, with_mode: bool = False) -> str:
        """The comparison's name in the matrix's lines: ``bs 32``, ``bs 32 bf16``, ``bs 256 warm compile_seconds``."""
        where = f"bs {self.batch_size}" + (f" {self.mode}" if with_mode else "")
        where += "" if self.precision == REFERENCE_PRECISION else f" {self.precision}"
        return where + (f" {self.figure.name}" if self.figure.name else "")

    def line(self, stopped: str, with_mode: bool = False) -> str:
        """The comparison in words (``bs 32: PyTorch ahead of TensorFlow (n=3, 3)``, ``bs 32 bf16: …`` for a precision
        other than fp32, ``bs 256 warm compile_seconds: …`` for a figure other than throughput); ``stopped``: why the
        matrix stopped, named after an undecided one (``undecided at n=2 (budget)``)."""
        where = self.where(with_mode)
        if not self.ranked:
            return f"{where}: " + ("no ok runs" if self.tried else f"not run yet ({stopped})")
        if len(self.ranked) == 1:
            alone = "ran ok" if self.figure is THROUGHPUT else "has a figure"  # the others' within their steps' noise
            return f"{where}: only {self.ranked[0].name} {alone}, nothing to compare"
        first, second = self.ranked[0], self.ranked[1]
        n = f"n={first.n}" + (f", {second.n}" if second.n != first.n else "")
        waiting = "".join(f"; {c.not_counted()}" for c in self.ranked if c.stats is None)
        if self.uneven:  # as the site says it under the row's table
            shares = ", ".join(f"{name} {'+'.join(map(str, spread))}" for name, spread in self.uneven)
            waiting += f"; pooled from {len(self.uneven[0][1])} sittings in unequal shares ({shares})"
        if self.status == APART:
            return f"{where}: {first.name} ahead of {second.name} (n={first.n}, {second.n}){waiting}" + (
                "" if self.decided else f" ({stopped})"
            )
        if self.decided:
            return f"{where}: within noise at {n}{waiting}"
        return f"{where}: undecided at {n}{waiting} ({stopped})"


def due_again(found: list[Comparison]) -> set[str]:
    """The ids of the configurations that the comparisons ``found`` still ask to run again (``to_run_again``)."""
    return {config.config_id for comparison in found for config in comparison.to_run_again()}


def judged(record: dict) -> bool:
    """Whether a run may enter a comparison: ok, and the machine was not busy."""
    return record["status"] == "ok" and not (record.get("load") or {}).get("busy")


def counts(record: dict, alone: set[int]) -> bool:
    """Whether a run counts (towards a figure and the cap): judged, and not among ``alone``, the ids of the runs made
    alone in their sitting."""
    return judged(record) and id(record) not in alone


def comparisons(
    order: list[RunConfig],
    runs: dict[str, list[dict]],
    cap: int,
    decides: tuple[str, ...] = ("throughput",),
    limit: int | None = None,
) -> list[Comparison]:
    """The comparisons of one matrix's configurations ``order`` (first runs), by batch size, mode and precision in the
    order's order, from ``runs`` (config id → the records of its runs, any repeat); ``cap``: counted runs a
    configuration needs; ``limit``: the runs in all at which it stops anyway (default: ``RUNS_LIMIT_FACTOR`` × the
    cap; a fixed count gives its own); ``decides``: the figures to compare (``DECIDES``): throughput at every batch
    size, start-up and memory at the largest in compiled mode, after its throughput."""
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
        judged_runs = [
            [r for config in configs for r in runs.get(config.config_id, []) if judged(r)]
            for configs in competitors.values()
        ]
        alone = {id(record) for record in made_alone(judged_runs)}
        per_sitting = runs_per_sitting(judged_runs)
        uneven = (
            tuple((_name(*key, several_versions), tuple(n)) for key, n in zip(competitors, per_sitting, strict=True))
            if unequal_shares(per_sitting)
            else ()
        )
        figures = [THROUGHPUT]
        if mode == "compiled" and batch_size == largest[precision]:
            figures += [WARM_COMPILE] if "start-up" in decides else []
            figures += [memory_peak(_memory_name(competitors, runs))] if "memory" in decides else []
        for figure in figures:
            ranked = _ranked(competitors, runs, (cap, limit), figure, several_versions, alone)
            tried = any(runs.get(c.config_id) for configs in competitors.values() for c in configs)
            found.append(Comparison(mode, batch_size, tuple(ranked), precision, tried, figure, uneven))
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
    cap_and_limit: tuple[int, int],
    figure: Figure,
    several_versions: bool,
    alone: set[int],
) -> list[Competitor]:
    """The competitors with ok runs by ``figure``, the best first, those without a figure yet last; without one whose
    counted runs hold no figure. ``alone``: the ids of the runs made alone in their sitting, which never count;
    ``cap_and_limit``: the counted runs a configuration needs, and its runs in all at which it stops anyway."""
    cap, limit = cap_and_limit
    ranked = []
    for (framework, version), configs in competitors.items():
        records = [r for config in configs for r in runs.get(config.config_id, [])]
        if not any(r["status"] == "ok" for r in records):
            continue
        counted = [r for r in records if counts(r, alone) and (warm_cache(r) or not figure.warm_only)]
        values = [value for r in counted if (value := figure.value(r)) is not None]
        if counted and not values:
            continue
        name = _name(framework, version, several_versions)
        per_config = tuple(sum(counts(r, alone) for r in runs.get(c.config_id, [])) for c in configs)
        below = tuple(
            c for c, n in zip(configs, per_config, strict=True) if n < cap and len(runs.get(c.config_id, [])) < limit
        )
        lone = sum(1 for r in records if id(r) in alone)
        busy = sum(1 for r in records if r["status"] == "ok" and not judged(r))
        ranked.append(Competitor(name, tuple(configs), describe(values), below, per_config, lone, busy))
    sign = 1 if figure.lower_is_better else -1
    ranked.sort(key=lambda c: sign * c.stats.mean if c.stats else float("inf"))
    return ranked
