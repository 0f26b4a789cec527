"""A gap between two frameworks: a ratio of throughputs with its 95 % interval, and the smallest lead named
(``fwbench.decision`` judges gaps; ``fwbench.harness_tolerance`` widens them).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the smallest lead named: a sitting's interval of the ratio must lie above this (or below its inverse)
MIN_EFFECT = 1.05
#: the band's edges as two decimals write them
BAND_EDGES = {f"{MIN_EFFECT:.2f}", f"{1 / MIN_EFFECT:.2f}"}


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
