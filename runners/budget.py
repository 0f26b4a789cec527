"""The matrix's time: how long a run is expected to take here, and the budget no run may be started past.

A run's expected duration comes from this machine's records of its configuration: the mean wall time (started_at to
finished_at) of its ok runs, of those with the run's compile-cache state (cold for a configuration's first run,
warm for its repeats) when there are any. Without such records it is the profile's ``seconds_per_run`` for
the device, a first guess stated as such.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from fwbench.time_breakdown import wall_seconds
from runners.profiles import RunConfig, profile, resolve_device

#: where an expected duration came from, in the dry run's words
FROM_RECORDS, FROM_PROFILE = "this machine's records", "the profile's guess"


def expected_seconds(config: RunConfig, warm: bool, runs: list[dict]) -> tuple[float, str]:
    """(seconds, where they came from) for a run of ``config`` with warm compile caches or cold, given the records
    of its earlier ``runs`` here."""
    ok = [r for r in runs if r["status"] == "ok"]
    cache = "warm" if warm else "cold"
    alike = [r for r in ok if (r.get("timing") or {}).get("compile_cache", "cold") == cache] or ok
    if alike:
        return statistics.fmean(wall_seconds(r) for r in alike), FROM_RECORDS
    guess = profile(config.profile)["seconds_per_run"]
    return float(guess[config.sized_for or resolve_device(config.device)]), FROM_PROFILE


@dataclass
class Budget:
    """Minutes the matrix may take (None: no limit), counted from its start."""

    minutes: float | None = None
    started: float = field(default_factory=lambda: time.monotonic())  # looked up when made: a test may fake it

    def fits(self, seconds: float) -> bool:
        """Whether a run expected to take ``seconds`` would end within the budget if it started now."""
        return self.minutes is None or time.monotonic() - self.started + seconds <= self.minutes * 60
