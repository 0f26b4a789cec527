"""Which runs a comparison pairs, and which framework it ranks first: one rule for the matrix
(``runners.matrix.comparisons``) and the site (``generator.verdicts.leads``), ``docs/design.md``, "Verdicts".

Pairing. A round pairs only runs that one matrix compared: the same sitting (``fwbench.sittings``), the same matrix
(the configurations its record says it planned, ``matrix.planned``: runs of two matrices, or of another configuration
of the same setting, were never run beside each other) and the same round of it (seed and repeat). Runs of
``runners run`` alone, which name no matrix, pair only with each other. A round that two runs of one framework claim
pairs with nothing. Each framework is judged on its newest harness (``fwbench.records.harness_digest``, the trainer
code that shaped its step): runs of an older trainer stay shown, counted in the verdict, and are never judged against
the newer ones.

Ranking. Two frameworks are ranked by the paired ratio (``Verdict.ratio``: the geometric mean of the per-round
ratios of the sittings that decided, pooled, else of every paired round); only where no round pairs, by the mean of
their figures.
"""

from __future__ import annotations

import functools
import hashlib
import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from fwbench.decision import RoundKey, Verdict, decide
from fwbench.records import harness_digest, throughput
from fwbench.sittings import SittingKey, boot_of, sittings

#: a run record's figure that a comparison pairs round by round (None where the run has none)
Figure = Callable[[dict], float | None]


def run_throughput(record: dict) -> float | None:
    """A run's throughput (images/s, or tokens/s for the GPT); None without a timing."""
    return throughput(record["timing"])[0] if record.get("timing") else None


def plan_of(record: dict) -> str | None:
    """The matrix a run was made by, as the configurations it planned (a digest of their ids); None for a run of
    ``runners run`` alone."""
    planned = (record.get("matrix") or {}).get("planned")
    if not planned:
        return None
    ids = "\n".join(sorted(entry["config_id"] for entry in planned))
    return hashlib.sha256(ids.encode()).hexdigest()[:12]


def newest_digest(runs: Sequence[dict]) -> str | None:
    """The harness digest the latest of ``runs`` (one framework's, not empty) started under; None: unversioned."""
    return harness_digest(max(runs, key=lambda record: datetime.fromisoformat(record["started_at"])))


def newest_harness(runs: Sequence[dict]) -> tuple[list[dict], list[dict]]:
    """``runs`` of one framework split by trainer: those of its newest harness digest (``newest_digest``; None,
    unversioned, is a digest like any other), and those of older ones."""
    if not runs:
        return [], []
    newest = newest_digest(runs)
    current = [record for record in runs if harness_digest(record) == newest]
    return current, [record for record in runs if harness_digest(record) != newest]


def paired_rounds(
    first_runs: Sequence[dict],
    second_runs: Sequence[dict],
    figure: Figure = run_throughput,
    lower_is_better: bool = False,
) -> tuple[dict[RoundKey, float], dict[RoundKey, float]]:
    """Two frameworks' runs (of one trainer each) at one batch size, mode and precision as ``decide`` takes them:
    each run's ``figure`` (its inverse where ``lower_is_better``, such as a compile time or a memory peak, so that a
    ratio above 1 always favours the first) keyed by its sitting (``SittingKey``: its place among the sittings of both
    frameworks' runs, and its boot) and its round (the matrix that made it, seed and repeat: a matrix numbers a
    sitting's rounds after every repeat of its configurations' earlier sittings, ``runners.matrix.store``). A run
    without the figure is a round its framework did not run; a round two runs of one framework claim pairs with
    nothing."""
    competitors = (first_runs, second_runs)
    keyed: tuple[dict[RoundKey, float], dict[RoundKey, float]] = ({}, {})
    claimed_twice: set[RoundKey] = set()
    for number, sitting in enumerate(sittings(competitors)):
        key_of_sitting = SittingKey(number, boot_of(competitors[side][index] for side, index in sitting))
        for side, index in sitting:
            record = competitors[side][index]
            value = figure(record)
            if value is None:
                continue
            value = 1 / value if lower_is_better and value else value  # a figure of 0 is left for ``decide`` to refuse
            config = record["config"]
            key = (key_of_sitting, (plan_of(record), config["seed"], config.get("repeat") or 0))
            if key in keyed[side]:
                claimed_twice.add(key)
            keyed[side][key] = value
    return tuple({key: value for key, value in side.items() if key not in claimed_twice} for side in keyed)


def compare(
    first_runs: Sequence[dict],
    second_runs: Sequence[dict],
    figure: Figure = run_throughput,
    lower_is_better: bool = False,
) -> Verdict:
    """The verdict on two frameworks' runs that count (``fwbench.judged.counts``, of any trainer): each judged on
    its newest harness, paired by ``paired_rounds``, decided by ``fwbench.decision``; the runs of older trainers
    counted in ``Verdict.older_harness_runs``."""
    (first, first_older), (second, second_older) = newest_harness(first_runs), newest_harness(second_runs)
    verdict = decide(*paired_rounds(first, second, figure, lower_is_better))
    return replace(verdict, older_harness_runs=len(first_older) + len(second_older))


def ranked(
    competitors: Sequence[Sequence[dict]], figure: Figure = run_throughput, lower_is_better: bool = False
) -> list[int]:
    """The positions of ``competitors`` (each a framework's runs that count) best first: of two, the one the paired
    ratio favours (``Verdict.ratio``, over their newest harness's runs), or where no round pairs them, the one with
    the better mean figure; a tie keeps the given order."""
    means = [_mean_figure(newest_harness(runs)[0], figure) for runs in competitors]
    sign = -1 if lower_is_better else 1

    def better(one: int, other: int) -> int:
        ratio = compare(competitors[one], competitors[other], figure, lower_is_better).ratio
        if ratio is not None and ratio != 1:
            return -1 if ratio > 1 else 1
        if means[one] is None or means[other] is None or means[one] == means[other]:
            return (means[one] is None) - (means[other] is None)
        return -1 if sign * (means[one] - means[other]) > 0 else 1

    return sorted(range(len(competitors)), key=functools.cmp_to_key(better))


def _mean_figure(runs: Sequence[dict], figure: Figure) -> float | None:
    """The mean of ``runs``' figures; None where none has one."""
    values = [value for record in runs if (value := figure(record)) is not None]
    return statistics.fmean(values) if values else None
