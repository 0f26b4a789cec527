"""The comparisons a matrix decides: at one batch size, mode and precision policy, the leader's throughput (images/s,
or the GPT's tokens/s) beside the
runner-up's (frameworks are compared only within one precision: a bf16 run never races an fp32 one).

A comparison is made from the judged runs this machine recorded for the matrix's configurations (status ok, not
busy-flagged, as the site's verdicts take them), every seed and repeat pooled as the generator pools them, existing
records included. A framework whose runs ended ok but all on a busy machine is in it without a figure, and runs
again; one whose runs all failed is not in it. A comparison is decided when the two 95 % intervals do not overlap
(``fwbench.stats.separation``, the rule of the site's verdicts, which needs n ≥ 3 each), and it ends "within noise"
when they still overlap after both reached the cap. ``runners.repeats`` runs again the configurations of the
comparisons not decided yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.frameworks import label
from fwbench.records import throughput
from fwbench.stats import APART, TOO_FEW_RUNS, WITHIN_NOISE, Stats, describe, separation
from runners.profiles import RunConfig
from runners.recipe import REFERENCE_PRECISION


@dataclass(frozen=True)
class Competitor:
    """One framework (at one version) in a comparison: its configurations (one per seed), its judged runs'
    throughput (None: none judged yet), and whether each configuration has run as often as the cap allows."""

    name: str
    configs: tuple[RunConfig, ...]
    stats: Stats | None
    at_cap: bool

    @property
    def n(self) -> int:
        """Its judged runs."""
        return self.stats.n if self.stats else 0

    def apart_from(self, other: Competitor) -> bool:
        """Whether the two figures' 95 % intervals do not overlap."""
        return bool(self.stats and other.stats) and separation(self.stats, other.stats) == APART


@dataclass(frozen=True)
class Comparison:
    """The competitors at one batch size, mode and precision with ok runs: best throughput first, those without a figure
    last."""

    mode: str
    batch_size: int
    ranked: tuple[Competitor, ...]
    precision: str = REFERENCE_PRECISION
    tried: bool = True  # False: none of its configurations has run yet (a budget stopped the matrix before them)

    @property
    def status(self) -> str | None:
        """``separation`` of the leader and the runner-up (TOO_FEW_RUNS when one has no figure); None with fewer than
        two competitors."""
        if len(self.ranked) < 2:
            return None
        first, second = self.ranked[0].stats, self.ranked[1].stats
        return separation(first, second) if first and second else TOO_FEW_RUNS

    @property
    def decided(self) -> bool:
        """Apart, or within noise with both at the cap: nothing a further run would change."""
        return self.status == APART or (self.status == WITHIN_NOISE and all(c.at_cap for c in self.ranked[:2]))

    def to_run_again(self) -> list[RunConfig]:
        """The configurations to run again while undecided: the leader's and those of every competitor not apart
        from it (the runner-up, and a third that overlaps too)."""
        if self.status is None or self.decided:
            return []
        leader, *rest = self.ranked
        close = [c for c in rest if not leader.apart_from(c)]
        return [config for competitor in (leader, *close) for config in competitor.configs]

    def line(self, stopped: str, with_mode: bool = False) -> str:
        """The comparison in words (``bs 32: PyTorch ahead of TensorFlow (n=3, 3)``, ``bs 32 bf16: …`` for a precision
        other than fp32); ``stopped``: why the matrix stopped, named after an undecided one (``undecided at n=2
        (budget)``)."""
        where = f"bs {self.batch_size}" + (f" {self.mode}" if with_mode else "")
        where += "" if self.precision == REFERENCE_PRECISION else f" {self.precision}"
        if not self.ranked:
            return f"{where}: " + ("no ok runs" if self.tried else f"not run yet ({stopped})")
        if len(self.ranked) == 1:
            return f"{where}: only {self.ranked[0].name} ran ok, nothing to compare"
        first, second = self.ranked[0], self.ranked[1]
        n = f"n={first.n}" + (f", {second.n}" if second.n != first.n else "")
        if self.status == APART:
            return f"{where}: {first.name} ahead of {second.name} (n={first.n}, {second.n})"
        if self.decided:
            return f"{where}: within noise at {n}"
        return f"{where}: undecided at {n} ({stopped})"


def due_again(found: list[Comparison]) -> set[str]:
    """The ids of the configurations that the comparisons ``found`` still ask to run again (``to_run_again``)."""
    return {config.config_id for comparison in found for config in comparison.to_run_again()}


def judged(record: dict) -> bool:
    """Whether a run may enter a comparison: ok, and the machine was not busy."""
    return record["status"] == "ok" and not (record.get("load") or {}).get("busy")


def comparisons(order: list[RunConfig], runs: dict[str, list[dict]], cap: int) -> list[Comparison]:
    """The comparisons of one matrix's configurations ``order`` (first runs), by batch size, mode and precision in the
    order's order, from ``runs`` (config id → the records of its runs, any repeat); ``cap``: runs a configuration may
    have."""
    several_versions = len({(c.framework, c.framework_version) for c in order}) > len({c.framework for c in order})
    groups: dict[tuple[str, int, str], dict[tuple[str, str | None], list[RunConfig]]] = {}
    for config in order:
        competitors = groups.setdefault((config.mode, config.batch_size, config.precision), {})
        competitors.setdefault((config.framework, config.framework_version), []).append(config)
    found = []
    for (mode, batch_size, precision), competitors in groups.items():
        ranked = []
        for (framework, version), configs in competitors.items():
            records = [r for config in configs for r in runs.get(config.config_id, [])]
            if any(r["status"] == "ok" for r in records):
                stats = describe([throughput(r["timing"])[0] for r in records if judged(r)])
                name = label(framework) + (f" {version}" if several_versions else "")
                at_cap = all(len(runs.get(c.config_id, [])) >= cap for c in configs)
                ranked.append(Competitor(name, tuple(configs), stats, at_cap))
        ranked.sort(key=lambda c: -c.stats.mean if c.stats else float("inf"))
        tried = any(runs.get(c.config_id) for configs in competitors.values() for c in configs)
        found.append(Comparison(mode, batch_size, tuple(ranked), precision, tried))
    return found
