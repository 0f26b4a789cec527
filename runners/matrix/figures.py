"""What a matrix's comparisons rank frameworks by (``runners.matrix.comparisons``): throughput at every batch size,
and, where a profile ``decides`` more (quick), the warm runs' compile time and memory peak at the largest batch size
in compiled mode, where lower is better and only runs with warm compiler caches count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fwbench.pairing import run_throughput
from fwbench.run_figures import compile_measurable, warm_cache


@dataclass(frozen=True)
class Figure:
    """What a comparison ranks frameworks by: its name in the matrix's lines (none for throughput), a counted run's
    value (None: not measured), whether lower is better, and whether only runs with warm compiler caches count."""

    name: str
    value: Callable[[dict], float | None]
    lower_is_better: bool = False
    warm_only: bool = False

    def takes(self, record: dict) -> bool:
        """Whether a run enters the comparison of this figure: any run, or a warm one where only warm runs count."""
        return warm_cache(record) or not self.warm_only

    def of(self, record: dict) -> float | None:
        """A run's figure as the comparison takes it (None for a run it does not take)."""
        return self.value(record) if self.takes(record) else None


def _compile_seconds(record: dict) -> float | None:
    """A run's compile time where it stands above its steps' noise (``compile_measurable``), as the site counts it."""
    return record["timing"]["compile_seconds"] if compile_measurable(record["timing"]) else None


def memory_peak(name: str) -> Figure:
    """The warm runs' memory peak ``name`` (one of ``MEMORY_PEAKS``), lowest first."""
    return Figure(f"warm {name}", lambda record: (record.get("memory") or {}).get(name), True, True)


THROUGHPUT = Figure("", run_throughput)
WARM_COMPILE = Figure("warm compile_seconds", _compile_seconds, lower_is_better=True, warm_only=True)
#: the figures a profile's ``decides`` may name (throughput first, always), each with its words
DECIDES = {"throughput": "throughput", "start-up": "compile time", "memory": "memory peak"}
