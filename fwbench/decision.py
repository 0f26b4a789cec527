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
sitting can show: a sitting is the unit that replicates a verdict. A verdict stands on the sittings that decided it,
and is replicated only where they ran on at least ``MIN_SITTINGS`` boots or machines (``fwbench.sittings.
distinct_boots``): sittings that a pause alone parted, on one boot, are stated as such. With fewer it says so ("ahead
in one sitting"), sittings that decide differently make no verdict, and undecided sittings are counted beside the
decided ones. Which runs pair, and which framework is ranked first, is ``fwbench.pairing``'s; how a lead is set
against the harness's measured tolerance, ``fwbench.harness_tolerance``'s. ``benchmarks/decision_simulation.py``
measures the rule's false "ahead" rate and power.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from fwbench.gap import MIN_EFFECT, Gap
from fwbench.harness_standing import HarnessStanding
from fwbench.sittings import distinct_boots
from fwbench.stats import describe

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
class SittingDecision:
    """What one sitting's paired rounds decide: ``outcome`` (AHEAD, ABOUT_EQUAL or UNDECIDED), ``leader`` (0: the
    first framework, 1: the second; None unless AHEAD), ``n`` paired rounds, ``gap``, first ÷ second (None with
    fewer paired rounds than an interval needs), and ``ratio``, the geometric mean of its rounds' ratios (None
    without a paired round)."""

    sitting: Hashable
    n: int
    outcome: str
    leader: int | None
    gap: Gap | None
    ratio: float | None = None

    @property
    def lead(self) -> Gap | None:
        """The leader's throughput over the other's, for a sitting that decided a leader; None otherwise."""
        if self.leader is None or self.gap is None:
            return None
        return self.gap if self.leader == 0 else self.gap.inverse()


@dataclass(frozen=True)
class Verdict:
    """The pair's verdict over its sittings: ``outcome`` (AHEAD, ABOUT_EQUAL, UNDECIDED or DISAGREE), ``leader`` (as
    in ``SittingDecision``), ``rests_on`` (the sittings that decided, in time order), ``sittings`` (every sitting
    with a paired round), ``older_harness_runs`` (runs of an older trainer than their framework's newest, shown and
    never judged: ``fwbench.pairing``) and ``harness`` (how a lead stands against the harness's measured tolerance:
    widened, withheld, which leaves it UNDECIDED, or not checked; ``fwbench.harness_tolerance``; None where not
    asked). AHEAD or ABOUT_EQUAL on fewer than ``MIN_SITTINGS`` boots is not yet replicated: a page says "ahead in one
    sitting", or that two sittings of one boot agree (``after_a_pause``)."""

    outcome: str
    leader: int | None
    rests_on: tuple[SittingDecision, ...]
    sittings: tuple[SittingDecision, ...]
    older_harness_runs: int = 0
    harness: HarnessStanding | None = None

    @property
    def boots(self) -> int:
        """The boots (or machines) the sittings it rests on ran on, as far as their records show."""
        return distinct_boots(decision.sitting for decision in self.rests_on)

    @property
    def replicated(self) -> bool:
        """Whether sittings on enough boots each decided as the verdict says for it to be published as it stands."""
        return self.outcome in (AHEAD, ABOUT_EQUAL) and self.boots >= MIN_SITTINGS

    @property
    def after_a_pause(self) -> bool:
        """Whether enough sittings agree but a pause alone parted them, on one boot: stated as such, not replicated."""
        return self.outcome in (AHEAD, ABOUT_EQUAL) and len(self.rests_on) >= MIN_SITTINGS and not self.replicated

    @property
    def agreeing(self) -> int:
        """The sittings that decided as the verdict says: the K of "replicated in K of N sittings"."""
        return len(self.rests_on) if self.outcome in (AHEAD, ABOUT_EQUAL) else 0

    @property
    def undecided(self) -> int:
        """The sittings with a paired round that decided nothing, shown beside the decided ones."""
        return sum(decision.outcome == UNDECIDED for decision in self.sittings)

    @property
    def n(self) -> int:
        """The K of "undecided at n = K": the paired rounds of the sittings judged (those with an interval); where
        none has one, the most rounds any sitting paired (rounds of sittings that were never judged never add up)."""
        judged = [decision.n for decision in self.sittings if decision.gap is not None]
        return sum(judged) if judged else max((decision.n for decision in self.sittings), default=0)

    @property
    def ratio(self) -> float | None:
        """First ÷ second as a ranking reads it: the geometric mean of the per-round ratios of the sittings it rests
        on, pooled (of every paired round where none decided); None without a paired round."""
        pooled = [d for d in self.rests_on or self.sittings if d.ratio is not None]
        rounds = sum(d.n for d in pooled)
        return math.exp(sum(d.n * math.log(d.ratio) for d in pooled) / rounds) if rounds else None

    @property
    def harness_checked(self) -> bool:
        """Whether the lead was set against a measured harness tolerance (a check of both frameworks' trainers
        against an idiomatic loop); False where none exists, or none was asked for."""
        return bool(self.harness and self.harness.checked)


def judged(gap: Gap) -> tuple[str, int | None]:
    """What an interval of first ÷ second decides: (AHEAD, the leader), (ABOUT_EQUAL, None) or (UNDECIDED, None)."""
    if gap.low > MIN_EFFECT:
        return AHEAD, 0
    if gap.high < 1 / MIN_EFFECT:
        return AHEAD, 1
    return (ABOUT_EQUAL if gap.low >= 1 / MIN_EFFECT and gap.high <= MIN_EFFECT else UNDECIDED), None


def decide_sitting(sitting: Hashable, ratios: Sequence[float]) -> SittingDecision:
    """The decision of one sitting from its per-round ratios (first framework's throughput ÷ the second's)."""
    logs = describe([math.log(ratio) for ratio in ratios])
    ratio = math.exp(logs.mean) if logs else None
    if logs is None or logs.ci95 is None:
        return SittingDecision(sitting, len(ratios), UNDECIDED, None, None, ratio)
    gap = Gap(ratio, math.exp(logs.ci95[0]), math.exp(logs.ci95[1]))
    return SittingDecision(sitting, logs.n, *judged(gap), gap, ratio)


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
