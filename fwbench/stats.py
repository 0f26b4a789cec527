"""Statistics of repeated measurements: mean, spread, a 95 % interval, whether two figures are apart, and the
interval of their ratio.

Shared by the generator (every verdict) and the runners (the matrix repeats a configuration until its
comparison is decided by the same rule), so both live by one definition of "apart".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

#: two-sided 95 % Student-t quantiles by degrees of freedom (1..30); the normal 1.96 beyond
_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)
#: fewer runs than this give no interval: two points say little about spread
MIN_RUNS_FOR_INTERVAL = 3
#: how two figures compare once their noise is taken into account (see ``separation``)
APART = "apart"
WITHIN_NOISE = "within noise"
TOO_FEW_RUNS = "too few runs"


@dataclass(frozen=True)
class Stats:
    """Summary of repeated measurements of one quantity."""

    n: int
    mean: float
    median: float
    std: float | None
    ci95: tuple[float, float] | None

    @property
    def half_width(self) -> float | None:
        """The spread shown beside the mean: the interval's half-width (n ≥ 3), else the sd (n = 2), else None."""
        if self.ci95 is not None:
            return self.ci95[1] - self.mean
        return self.std


def _t95(df: int) -> float:
    """The two-sided 95 % Student-t quantile for ``df`` degrees of freedom (the normal 1.96 beyond 30)."""
    return _T95[df - 1] if df <= len(_T95) else 1.96


def describe(values: list[float]) -> Stats | None:
    """Mean, median, sample std (n ≥ 2) and a 95% t-interval of the mean (n ≥ 3); None for no values."""
    values = [float(v) for v in values if v is not None]
    if not values:
        return None
    n = len(values)
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if n >= 2 else None
    ci = None
    if n >= MIN_RUNS_FOR_INTERVAL and std is not None:
        half = _t95(n - 1) * std / math.sqrt(n)
        ci = (mean - half, mean + half)
    return Stats(n=n, mean=mean, median=statistics.median(values), std=std, ci95=ci)


def separation(a: Stats, b: Stats) -> str:
    """APART when the two 95 % intervals do not overlap, WITHIN_NOISE when they do, TOO_FEW_RUNS when either
    figure has fewer than MIN_RUNS_FOR_INTERVAL runs (no interval: the data cannot tell)."""
    if a.ci95 is None or b.ci95 is None:
        return TOO_FEW_RUNS
    return APART if a.ci95[1] < b.ci95[0] or b.ci95[1] < a.ci95[0] else WITHIN_NOISE


def ratio_interval(a: Stats, b: Stats) -> tuple[float, float] | None:
    """The 95 % interval of ``a.mean / b.mean``, from the log-ratio (delta method): var(log ratio) ≈
    sd_a² / (n_a·mean_a²) + sd_b² / (n_b·mean_b²), with the t-quantile of the smaller n − 1. Defined whatever
    the figures' own intervals reach (a lower bound at or below zero included); None when either figure has
    fewer than MIN_RUNS_FOR_INTERVAL runs or a mean that is not positive."""
    if min(a.n, b.n) < MIN_RUNS_FOR_INTERVAL or a.std is None or b.std is None or a.mean <= 0 or b.mean <= 0:
        return None
    spread = math.sqrt(a.std**2 / (a.n * a.mean**2) + b.std**2 / (b.n * b.mean**2))
    half = _t95(min(a.n, b.n) - 1) * spread
    centre = math.log(a.mean / b.mean)
    return math.exp(centre - half), math.exp(centre + half)
