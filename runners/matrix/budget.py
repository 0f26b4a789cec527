"""The matrix's time: how long a run is expected to take here, and the budget no run may be started past: minutes
from the matrix's start (``--budget``), a time of day (``--deadline``: ``make site``'s whole time), or both.

A run's expected duration comes from this machine's records of its configuration: the mean wall time (started_at to
finished_at) of its ok runs, of those with the run's compile-cache state (cold for a configuration's first run,
warm for its repeats) when there are any. A configuration not run here yet takes the records of the same framework's
nearest batch size, their steps rescaled to its own (``scaled_seconds``): on a slow machine a batch-256 run can take
seven times the profile's guess, and the budget would start a run it has no room for. Without either it is the
profile's ``seconds_per_run`` for the device, a first guess stated as such.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from fwbench.time_breakdown import wall_seconds
from fwbench.timestamps import utc_clock
from runners.matrix.store import ok_repeats
from runners.measure.profile_devices import resolve_device
from runners.measure.profile_loading import profile
from runners.measure.profiles import RunConfig

#: where an expected duration came from, in the dry run's words
FROM_RECORDS, FROM_PROFILE = "this machine's records", "the profile's guess"


def expected_seconds(
    config: RunConfig, warm: bool, runs: list[dict], others: Iterable[tuple[RunConfig, list[dict]]] = ()
) -> tuple[float, str]:
    """(seconds, where they came from) for a run of ``config`` with warm compile caches or cold, given the records
    of its earlier ``runs`` here; without any, from ``others`` (``other_sizes``): the records of the nearest batch
    size that has some, rescaled."""
    if own := _alike(runs, warm):
        return statistics.fmean(wall_seconds(r) for r in own), FROM_RECORDS
    near = [
        (abs(math.log(other.batch_size / config.batch_size)), other.batch_size, alike)
        for other, records in others
        if (alike := _alike(records, warm))
    ]
    if near:
        _, batch_size, alike = min(near, key=lambda found: found[:2])
        return statistics.fmean(scaled_seconds(r, config) for r in alike), f"{FROM_RECORDS} at batch {batch_size}"
    guess = profile(config.profile)["seconds_per_run"]
    return float(guess[config.sized_for or resolve_device(config.device)]), FROM_PROFILE


def rounds_seconds(
    config: RunConfig, runs: list[dict], others: Iterable[tuple[RunConfig, list[dict]]], rounds: int
) -> float:
    """The expected seconds of ``rounds`` more runs of ``config`` given its earlier ``runs`` here (and ``others``, as
    ``expected_seconds`` takes them): its first run cold where it has none yet, the others warm (its compile cache
    filled by the first)."""
    if not rounds:
        return 0.0
    warm = expected_seconds(config, True, runs, others)[0]
    if 0 in ok_repeats(runs):
        return warm * rounds
    return expected_seconds(config, False, runs, others)[0] + warm * (rounds - 1)


def _alike(runs: list[dict], warm: bool) -> list[dict]:
    """The ok ``runs``, those with the compile-cache state asked for when there are any."""
    ok = [r for r in runs if r["status"] == "ok"]
    cache = "warm" if warm else "cold"
    return [r for r in ok if (r.get("timing") or {}).get("compile_cache", "cold") == cache] or ok


def other_sizes(
    config: RunConfig, order: list[RunConfig], runs: dict[str, list[dict]]
) -> list[tuple[RunConfig, list[dict]]]:
    """The configurations of ``order`` that differ from ``config`` in batch size alone, each with its records in
    ``runs`` (config id → records)."""
    return [
        (other, runs.get(other.config_id, []))
        for other in order
        if other.batch_size != config.batch_size
        and replace(other, batch_size=config.batch_size, repeat=config.repeat) == config
    ]


def scaled_seconds(record: dict, config: RunConfig) -> float:
    """The wall time of ``record``'s run with its training steps rescaled to ``config``'s batch size: its timed epochs
    by the samples they train, its warm-up step by its batch; compile, imports, set-up and evaluation as they were."""
    timing, then = record["timing"], record["config"]
    timed = sum(timing["epoch_seconds_each"])
    warm_up = max(0.0, (timing.get("first_step_seconds") or 0.0) - (timing.get("compile_seconds") or 0.0))
    samples = config.epoch_train_images * config.epochs / (then["images_per_epoch"] * then["epochs"])
    return wall_seconds(record) + timed * (samples - 1) + warm_up * (config.batch_size / then["batch_size"] - 1)


@dataclass
class Budget:
    """Minutes the matrix may take, counted from its start, and a deadline it may not pass (Unix seconds: ``make
    site``'s own, which its set-up and probes count against); None: no such limit."""

    minutes: float | None = None
    deadline: float | None = None
    started: float = field(default_factory=lambda: time.monotonic())  # looked up when made: a test may fake it

    def left(self) -> dict[str, float]:
        """Seconds from now until each limit set (negative once passed), by its name."""
        left = {}
        if self.minutes is not None:
            left["minutes"] = self.minutes * 60 - (time.monotonic() - self.started)
        if self.deadline is not None:
            left["deadline"] = self.deadline - time.time()
        return left

    def seconds_left(self) -> float | None:
        """Seconds from now until the nearer limit (negative once passed); None without a limit."""
        return min(self.left().values(), default=None)

    def fits(self, seconds: float) -> bool:
        """Whether a run expected to take ``seconds`` would end within the budget if it started now."""
        left = self.seconds_left()
        return left is None or seconds <= left

    def limit(self) -> str:
        """The nearer limit in words: ``the 12-minute budget``, ``the deadline 14:39:03 UTC``."""
        left = self.left()
        if "deadline" in left and left["deadline"] < left.get("minutes", float("inf")):
            return f"the deadline {utc_clock(self.deadline)}"
        return f"the {self.minutes:g}-minute budget"
