"""Two competitors of a matrix's comparison (``runners.matrix.comparisons``) judged on their paired rounds: the latest
sitting's decision, which the matrix's stopping rule reads, beside the verdict over every sitting, which says whether
it replicates (on another boot or machine), and the line that says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE, UNDECIDED, SittingDecision, Verdict
from fwbench.gap import MIN_EFFECT
from fwbench.pairing import compare
from fwbench.sittings import sittings
from fwbench.stats import Stats
from runners.matrix.figures import Figure
from runners.measure.profiles import RunConfig

#: the outcomes of a sitting that decide a comparison
DECISIVE = (AHEAD, ABOUT_EQUAL)

#: what a line asks for where its decision is not replicated yet: a sitting on another boot or machine
REPLICATE = "replicate on another boot or machine"


@dataclass(frozen=True)
class Competitor:
    """One framework (at one version) in a comparison: its configurations (one per seed), its runs that count (every
    sitting's, of its newest harness), the figure of those in the latest sitting (None: none there yet), its
    configurations below the limit (fewer runs in the sitting than the limit), how many runs of each count in the
    sitting (in ``configs``' order), and of its ok runs that do not count in the latest sitting, how many were made on
    a busy machine, are older records, count in an earlier sitting, or ran an older harness."""

    name: str
    configs: tuple[RunConfig, ...]
    stats: Stats | None
    runs: tuple[dict, ...] = field(default=(), repr=False, compare=False)
    below_limit: tuple[RunConfig, ...] = ()
    counted: tuple[int, ...] = ()
    busy: int = 0
    older: int = 0
    earlier: int = 0
    older_harness: int = 0

    @property
    def n(self) -> int:
        """Its runs with a figure in the latest sitting."""
        return self.stats.n if self.stats else 0

    @property
    def at_limit(self) -> bool:
        """Whether every configuration has as many runs in the sitting as the limit allows."""
        return not self.below_limit

    def not_counted(self) -> str:
        """Why it has no figure in this sitting: ``no run of JAX counts in this sitting yet, 3 on a busy machine``
        (or ``…, 2 in earlier sittings``, ``…, 1 older record``, ``…, 4 of an older harness``, or ``…, no warm
        run``)."""
        why = [f"{self.busy} on a busy machine"] if self.busy else []
        why += [f"{self.older} older record{'s' if self.older > 1 else ''}"] if self.older else []
        why += [f"{self.earlier} in earlier sittings"] if self.earlier else []
        why += [f"{self.older_harness} of an older harness"] if self.older_harness else []
        return f"no run of {self.name} counts in this sitting yet, " + (" and ".join(why) or "no warm run")


@dataclass(frozen=True)
class Pair:
    """Two competitors judged on their paired rounds: the latest sitting's decision (``now``; n = 0 where no round of
    that sitting pairs) and the verdict over every sitting, ``first`` over ``second``."""

    first: Competitor
    second: Competitor
    now: SittingDecision
    verdict: Verdict

    @property
    def decided(self) -> bool:
        """Whether the latest sitting decided: one ahead, or the two about equal."""
        return self.now.outcome in DECISIVE

    def words(self) -> str:
        """The latest sitting's decision in words: ``PyTorch ahead of TensorFlow 1.31× (1.18–1.45×) at n = 3 in this
        sitting; replicate on another boot or machine``, ``… about equal (within 5 %), 1.01× (0.98–1.04×)
        …``, or ``undecided at n = 2`` (with the ratio where it has an interval)."""
        now, n = self.now, f"at n = {self.now.n}"
        if now.outcome == AHEAD:
            leader, other = (self.first, self.second) if now.leader == 0 else (self.second, self.first)
            return f"{leader.name} ahead of {other.name} {now.lead} {n} {self.replication()}"
        if now.outcome == ABOUT_EQUAL:
            within = f"within {round((MIN_EFFECT - 1) * 100)} %"
            return (
                f"{self.first.name} and {self.second.name} about equal ({within}), {now.gap} {n} {self.replication()}"
            )
        ratio = f", {self.first.name} ÷ {self.second.name} {now.gap}" if now.gap else ""
        return f"undecided at n = {now.n}{ratio}"

    def replication(self) -> str:
        """Where the latest sitting's decision stands among the sittings: replicated on another boot or machine
        (``replicated in 2 of 3 sittings; 1 undecided``), agreed after a pause on one boot, contradicted, or alone."""
        verdict = self.verdict
        if verdict.outcome == DISAGREE:
            return "in this sitting; earlier sittings decided otherwise"
        if not (verdict.replicated or verdict.after_a_pause):
            return f"in this sitting; {REPLICATE}"
        of = f" of {len(verdict.sittings)}" if len(verdict.sittings) > verdict.agreeing else ""
        undecided = f"; {verdict.undecided} undecided" if verdict.undecided else ""
        if verdict.replicated:
            return f"in this sitting; replicated in {verdict.agreeing}{of} sittings{undecided}"
        paused = f"{verdict.agreeing}{of} sittings agree after a pause on one boot{undecided}"
        return f"in this sitting; {paused}; {REPLICATE}"


def pair(first: Competitor, second: Competitor, figure: Figure, new_sitting: bool = False) -> Pair:
    """``first`` and ``second`` judged on their paired rounds of ``figure`` (``fwbench.pairing.compare``); with
    ``new_sitting``, the latest sitting is one after all their runs, none of it paired yet."""
    verdict = compare(first.runs, second.runs, figure.of, figure.lower_is_better)
    latest = len(sittings([first.runs, second.runs])) - (0 if new_sitting else 1)
    now = next(
        (d for d in verdict.sittings if d.sitting.number == latest), SittingDecision(latest, 0, UNDECIDED, None, None)
    )
    return Pair(first, second, now, verdict)
