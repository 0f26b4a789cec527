"""What a matrix made: each run's result, why it stopped, and the outcome the summary reports
(``runners.matrix.driver`` makes them, ``runners.matrix.summary`` reads them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from runners.executors.boundary import Target
from runners.matrix.comparisons import Comparison
from runners.measure.profiles import RunConfig


class Result(NamedTuple):
    """What became of one run of the matrix."""

    config: RunConfig
    record: dict | None  # None: not run (not installed, or no machine left to run it)
    note: str  # "" when it ran now
    where: str = ""  # the node that ran it now ("" for this machine)
    seconds: float = 0.0  # how long it ran now


class Stop(NamedTuple):
    """Why a matrix stopped: the reason, a few words after it, and the tag an undecided comparison's line carries."""

    reason: str  # all decided, cap reached, budget spent, or repeats done
    detail: str
    undecided_tag: str  # e.g. (budget), (cap): after an undecided comparison's line


@dataclass
class Outcome:
    """A matrix's runs in the order they were made, its comparisons (per target) after the last, why it stopped,
    and the ends it did not start for want of time (target, batch size, precision → why)."""

    results: list[Result]
    comparisons: list[tuple[Target, list[Comparison]]]
    stop: Stop
    not_started: dict[tuple[Target, int, str], str] = field(default_factory=dict)
