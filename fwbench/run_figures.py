"""Figures read from one run record before any pooling: its time to a target accuracy, whether its compile time is
a measurement at all, whether it found warm compiler caches, and which memory peaks a choice reads. The site
(``generator.records.aggregate.Summary``) pools them over a configuration's runs, never cold with warm where a figure
includes compile work; the matrix (``runners.matrix.comparisons``) reads them to decide when to stop repeating; how much
a run drifted between the halves of its timed steps (``drift``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fwbench.gap import MIN_EFFECT


def warm_cache(record: dict[str, Any]) -> bool:
    """Whether a run found the compiler caches an earlier run left (``timing.compile_cache``); a record that does not
    say compiled cold, as every run did before repeats shared a cache."""
    return (record.get("timing") or {}).get("compile_cache") == "warm"


#: the memory peaks the leanest framework is judged by, the first that the runs carry: the driver's view of the GPU
#: process, the framework's own allocator (both on a GPU), the host's resident memory (a CPU)
MEMORY_PEAKS = ("nvml_process_peak_bytes", "allocator_peak_bytes", "host_peak_rss_bytes")


def time_to_accuracy(record: dict[str, Any], target: float) -> float | None:
    """Training seconds until the test accuracy first reaches ``target`` (a fraction): the compile time plus
    the timed epochs up to that epoch, evaluation excluded. None when it never did or a figure is missing."""
    timing, accuracy = record.get("timing") or {}, record.get("accuracy") or {}
    each = timing.get("epoch_seconds_each") or []
    if timing.get("compile_seconds") is None:
        return None
    for row in sorted(accuracy.get("epochs") or [], key=lambda r: r["epoch"]):
        if row.get("test_accuracy") is not None and row["test_accuracy"] >= target:
            return timing["compile_seconds"] + sum(each[: row["epoch"]]) if len(each) >= row["epoch"] else None
    return None


def compile_measurable(timing: dict[str, Any]) -> bool:
    """True when a run's compile time (its first step minus the same step run again; before timing protocol 3, minus
    the median steady step, clamped at 0) stands above the steady steps' own spread (``step_seconds_p90`` −
    ``step_seconds_median``): at or below it, or below 0, the difference is step-time noise, not compilation.
    Records without step times: above 0."""
    seconds = timing.get("compile_seconds")
    p90, median = timing.get("step_seconds_p90"), timing.get("step_seconds_median")
    noise = p90 - median if p90 is not None and median is not None else 0.0
    return seconds is not None and seconds > max(noise, 0.0)


@dataclass(frozen=True)
class Drift:
    """How a run's step time moved within the run: ``ratio`` is its second half's seconds per step ÷ its first's."""

    ratio: float

    @property
    def beyond_band(self) -> bool:
        """True when the halves differ by more than ``fwbench.gap.MIN_EFFECT`` (5 %) either way: the same band
        the verdicts use (within it two frameworks are about equal), so a run marked as drifting moved by as much as
        a lead the site would name."""
        return not 1 / MIN_EFFECT <= self.ratio <= MIN_EFFECT


def drift(record: dict[str, Any]) -> Drift | None:
    """A run's drift (``Drift``) between the halves of its timed windows (``timing.window_step_seconds``, every
    epoch's windows in order): the first ⌊n/2⌋ windows against the last ⌊n/2⌋ (a middle one of an odd count in
    neither), each half's seconds per step its windows' mean weighted by their steps (``timing.window_steps``). None
    for a record without window times (before timing protocol 3) or with fewer than 2 windows."""
    timing = record.get("timing") or {}
    seconds, steps = timing.get("window_step_seconds") or [], timing.get("window_steps")
    if len(seconds) < 2:
        return None
    half = len(seconds) // 2

    def per_step(windows: slice) -> float:
        return sum(s * n for s, n in zip(seconds[windows], steps[windows], strict=True)) / sum(steps[windows])

    return Drift(per_step(slice(-half, None)) / per_step(slice(None, half)))
