"""Whether one framework is ahead of another: judged on paired rounds, with a minimum effect, replicated across
sittings (``docs/design.md``, "Verdicts": the one rule of the matrix's stopping and the site's verdicts).

A pair of frameworks is compared round by round: in a round the matrix runs every configuration once, interleaved
and rotated, so the two runs of a round share whatever the machine did meanwhile, and their ratio cancels it. Within
a sitting, the per-round ratios' logs give a paired-t 95 % interval (``fwbench.stats.describe``), back on the ratio
scale. A sitting decides "ahead" only when that interval lies beyond ``MIN_EFFECT`` (5 %: a smaller lead is not
worth a reader's choice, and a framework's speed moves between sittings by about as much), "about equal" when it
lies inside the band, and is otherwise undecided at its n. The band is symmetric on the log scale (1/1.05–1.05,
0.952–1.05), so a verdict does not depend on which framework is named first.

The gap between frameworks moves between sittings by as much as the smaller leads, which no interval from one
sitting can show: a sitting is the unit that replicates a verdict. A verdict stands on the sittings that decided it;
with fewer than ``MIN_SITTINGS`` it says so ("ahead in one sitting"), and sittings that decide differently make no
verdict. ``benchmarks/decision_simulation.py`` measures the rule's false "ahead" rate and power.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from fwbench.records import throughput
from fwbench.sittings import sittings
from fwbench.stats import describe

#: the smallest lead named: a sitting's interval of the ratio must lie above this (or below its inverse)
MIN_EFFECT = 1.05
#: the band's edges as two decimals write them
BAND_EDGES = {f"{MIN_EFFECT:.2f}", f"{1 / MIN_EFFECT:.2f}"}
#: the sittings that must each decide the same way before a verdict is published
MIN_SITTINGS = 2

AHEAD = "ahead"
ABOUT_EQUAL = "about equal"
UNDECIDED = "undecided"
#: decided sittings that decide differently (one says ahead, another about equal or the other ahead)
DISAGREE = "sittings disagree"

#: a round's key: (its sitting, the matrix's round within it); any hashable values
RoundKey = tuple[Hashable, Hashable]


@dataclass(frozen=True)
class Gap:
    """A ratio of two throughputs (the geometric mean of the per-round ratios) and its 95 % interval."""

    ratio: float
    low: float
    high: float

    def inverse(self) -> Gap:
        """The same gap the other way round."""
        return Gap(1 / self.ratio, 1 / self.high, 1 / self.low)

    def __str__(self) -> str:
        """``1.31× (1.18–1.45×)``; a third decimal where two would round a bound onto the band's edge, so that a
        lead decided at 1.053× never reads "1.05× (1.05–1.05×)" beside a 1.05× minimum."""
        digits = 3 if {f"{self.low:.2f}", f"{self.high:.2f}"} & BAND_EDGES else 2
        return f"{self.ratio:.{digits}f}× ({self.low:.{digits}f}–{self.high:.{digits}f}×)"


@dataclass(frozen=True)
class SittingDecision:
    """What one sitting's paired rounds decide: ``outcome`` (AHEAD, ABOUT_EQUAL or UNDECIDED), ``leader`` (0: the
    first framework, 1: the second; None unless AHEAD), ``n`` paired rounds, and ``gap``, first ÷ second (None with
    fewer paired rounds than an interval needs)."""

    sitting: Hashable
    n: int
    outcome: str
    leader: int | None
    gap: Gap | None

    @property
    def lead(self) -> Gap | None:
        """The leader's throughput over the other's, for a sitting that decided a leader; None otherwise."""
        if self.leader is None or self.gap is None:
            return None
        return self.gap if self.leader == 0 else self.gap.inverse()


@dataclass(frozen=True)
class Verdict:
    """The pair's verdict over its sittings: ``outcome`` (AHEAD, ABOUT_EQUAL, UNDECIDED or DISAGREE), ``leader`` (as
    in ``SittingDecision``), ``rests_on`` (the sittings that decided, in time order) and ``sittings`` (every sitting
    with a paired round). AHEAD or ABOUT_EQUAL resting on fewer than ``MIN_SITTINGS`` is not yet replicated: a page
    says "ahead in one sitting"."""

    outcome: str
    leader: int | None
    rests_on: tuple[SittingDecision, ...]
    sittings: tuple[SittingDecision, ...]

    @property
    def replicated(self) -> bool:
        """Whether enough sittings each decided as the verdict says for it to be published as it stands."""
        return self.outcome in (AHEAD, ABOUT_EQUAL) and len(self.rests_on) >= MIN_SITTINGS

    @property
    def n(self) -> int:
        """The paired rounds of every sitting: the K of "undecided at n = K"."""
        return sum(decision.n for decision in self.sittings)


def decide_sitting(sitting: Hashable, ratios: Sequence[float]) -> SittingDecision:
    """The decision of one sitting from its per-round ratios (first framework's throughput ÷ the second's)."""
    logs = describe([math.log(ratio) for ratio in ratios])
    if logs is None or logs.ci95 is None:
        return SittingDecision(sitting, len(ratios), UNDECIDED, None, None)
    gap = Gap(math.exp(logs.mean), math.exp(logs.ci95[0]), math.exp(logs.ci95[1]))
    if gap.low > MIN_EFFECT:
        return SittingDecision(sitting, logs.n, AHEAD, 0, gap)
    if gap.high < 1 / MIN_EFFECT:
        return SittingDecision(sitting, logs.n, AHEAD, 1, gap)
    outcome = ABOUT_EQUAL if gap.low >= 1 / MIN_EFFECT and gap.high <= MIN_EFFECT else UNDECIDED
    return SittingDecision(sitting, logs.n, outcome, None, gap)


def decide(first: Mapping[RoundKey, float], second: Mapping[RoundKey, float]) -> Verdict:
    """The verdict on two frameworks' throughputs keyed by (sitting, round): only the rounds where both ran count,
    each sitting is decided on its own (in the order of ``first``'s keys), and the verdict is what the decided
    sittings agree on."""
    ratios: dict[Hashable, list[float]] = {}
    for key, value in first.items():
        if key in second:
            if value <= 0 or second[key] <= 0:
                raise ValueError(f"round {key}: throughput {value} against {second[key]}; both must be above 0")
            ratios.setdefault(key[0], []).append(value / second[key])
    decisions = tuple(decide_sitting(sitting, values) for sitting, values in ratios.items())
    decided = tuple(d for d in decisions if d.outcome != UNDECIDED)
    calls = {(d.outcome, d.leader) for d in decided}
    if not calls:
        return Verdict(UNDECIDED, None, (), decisions)
    if len(calls) > 1:
        return Verdict(DISAGREE, None, decided, decisions)
    outcome, leader = calls.pop()
    return Verdict(outcome, leader, decided, decisions)


def run_throughput(record: dict) -> float | None:
    """A run's throughput (images/s, or tokens/s for the GPT); None without a timing."""
    return throughput(record["timing"])[0] if record.get("timing") else None


def paired_rounds(
    first_runs: Sequence[dict],
    second_runs: Sequence[dict],
    figure: Callable[[dict], float | None] = run_throughput,
    lower_is_better: bool = False,
) -> tuple[dict[RoundKey, float], dict[RoundKey, float]]:
    """Two frameworks' judged run records at one batch size, mode and precision as ``decide`` takes them: each run's
    ``figure`` (its throughput unless another is given; its inverse where ``lower_is_better``, such as a compile time
    or a memory peak, so that a ratio above 1 always favours the first) keyed by its sitting (its place among
    ``fwbench.sittings.sittings`` of both frameworks' runs) and its round (the configuration's seed and repeat: the
    matrix runs repeat r of every configuration in round r). A run without the figure is a round its framework did
    not run. Two runs of one framework that claim the same round of a sitting (records from before repeats were
    numbered, or two folders of one machine merged) cannot be told apart: that round pairs with nothing, for the
    matrix and the site alike."""
    competitors = (first_runs, second_runs)
    keyed: tuple[dict[RoundKey, float], dict[RoundKey, float]] = ({}, {})
    claimed_twice: set[RoundKey] = set()
    for number, sitting in enumerate(sittings(competitors)):
        for side, index in sitting:
            record = competitors[side][index]
            value = figure(record)
            if value is None:
                continue
            value = 1 / value if lower_is_better and value else value  # a figure of 0 is left for ``decide`` to refuse
            key = (number, (record["config"]["seed"], record["config"].get("repeat") or 0))
            if key in keyed[side]:
                claimed_twice.add(key)
            keyed[side][key] = value
    return tuple({key: value for key, value in side.items() if key not in claimed_twice} for side in keyed)
