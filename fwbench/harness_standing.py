"""How a verdict stands against the harness checks (``fwbench.harness_tolerance`` decides it; a
``fwbench.decision.Verdict`` carries it).
"""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.gap import Gap
from fwbench.harness_checks import HarnessCheck

#: how a lead stands against the harness's tolerance (``HarnessStanding.applies``)
NOT_CHECKED = "harness not checked against an idiomatic loop"
WIDENED = "widened by the harness's tolerance"
WITHHELD = "within the harness's tolerance"
NOT_A_LEAD = "checked; no lead to widen"


@dataclass(frozen=True)
class HarnessStanding:
    """How a verdict stands against the harness checks: ``applies`` (NOT_CHECKED, WIDENED, WITHHELD or NOT_A_LEAD),
    the two frameworks' checks (first, second; None where absent) and ``factor``, second's ratio ÷ first's with its
    range: what first ÷ second was multiplied by (None unless both were checked)."""

    applies: str
    first: HarnessCheck | None
    second: HarnessCheck | None
    factor: Gap | None = None

    @property
    def checked(self) -> bool:
        """Whether both frameworks' trainers were checked against their minimal loops."""
        return self.first is not None and self.second is not None

    def batch_sizes(self) -> tuple[int, int] | None:
        """The batch sizes the two checks measured (the comparison's own, or the nearest); None unless checked."""
        return (self.first.batch_size, self.second.batch_size) if self.first and self.second else None
