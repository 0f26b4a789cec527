"""How busy the machine was with other work while a run was measured, and a bounded wait for quiet.

A sample is the share of the machine's total CPU capacity that processes *other than this run's process tree*
used over an interval: the system's busy CPU time minus this process's and its descendants' CPU time, over the
interval's capacity (wall time × logical CPUs). A run is sampled at its start, over its own set-up (the data, the
framework's import), at its end, over its evaluation, each sample at least 0.5 s long (the rest slept), and every
0.5 s across its timed region by a background thread (``ClockLoad``). The run's own CPU time never counts, so a
sample may lie over the run's own work instead of a sleep of its own. The 1- and 5-minute load averages are
recorded for information only: they lag a minute and still count the previous configuration of a matrix. Only
numbers are recorded, never process names or arguments (records are published).

The busy rule: other work above 4 % of one core's worth, ``4 / cpu_count`` percent of the machine (2 % on 2 cores,
0.25 % on 16), in the start sample or the mean over the timed region. 4 % is where the committed records stop
being measurably slower (``benchmarks/busy_threshold.py``: runs at 4–6 % of a core ran a median 5.4 % slower,
interval 0.7–8.5 %; no bin below 4 % excluded 0). Those records are all from 2-core machines; the rule counts
cores' worth because a run's threads wait for each other, so a slice of any core taken delays them all.
The end sample judges only a run whose timed region was too short for a sample (a fast GPU's): it covers the
evaluation, which no figure times, and over its second or so a blip of kernel work flagged runs whose timed epochs
read 2 and 6 % (21 and 24 % at the end, two of five runs on a 2-core VM), so it discarded good runs and cost
repeats.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import psutil

SAMPLE_SECONDS = 0.5
POLL_SECONDS = 2.0
#: a share of one core's worth above which other work makes the machine busy: what benchmarks/busy_threshold.py
#: prints for the committed records
BUSY_CORE_SHARE = 0.04
#: the share before it: ``generator check`` replays the flag of a record of rules below 3
#: (``runners.measure.protocol.RECORD_RULES``) by this one
EARLIER_CORE_SHARE = 0.25


def busy_threshold(cpu_count: int, core_share: float = BUSY_CORE_SHARE) -> float:
    """The busy threshold in percent of the machine: ``core_share`` of one of its ``cpu_count`` cores."""
    return 100.0 * core_share / cpu_count


def _system_busy_seconds() -> float:
    """CPU seconds all CPUs spent on anything but idling since boot (psutil's notion of busy)."""
    times = psutil.cpu_times()
    total = sum(times) - getattr(times, "guest", 0.0) - getattr(times, "guest_nice", 0.0)  # guest is in user
    return total - times.idle - getattr(times, "iowait", 0.0)


def own_tree_cpu_seconds() -> float:
    """CPU seconds used by this process, its reaped children and its live descendants."""
    me = psutil.Process()
    seconds = sum(me.cpu_times()[:4])  # user, system, children_user, children_system
    for child in me.children(recursive=True):
        try:
            seconds += sum(child.cpu_times()[:2])
        except psutil.Error:  # ended between listing and reading
            continue
    return seconds


def counters() -> tuple[float, float, float]:
    """(system busy CPU seconds, this run's process tree's CPU seconds, monotonic time): two of them, a moment
    apart, give other processes' CPU share over that moment (``other_share``)."""
    return _system_busy_seconds(), own_tree_cpu_seconds(), time.monotonic()


def other_share(before: tuple[float, float, float], after: tuple[float, float, float], cpu_count: int) -> float:
    """Other processes' share (0–100) of the machine's CPU capacity between two ``counters`` readings."""
    busy, own, wall = (b - a for a, b in zip(before, after, strict=True))
    return min(100.0, max(0.0, 100.0 * (busy - own) / (wall * cpu_count)))


def sample(seconds: float = SAMPLE_SECONDS) -> dict:
    """One load sample: load averages, other processes' CPU share (0–100) over ``seconds``, logical CPUs."""
    return sample_since(counters(), seconds)


def sample_since(before: tuple[float, float, float], seconds: float = SAMPLE_SECONDS) -> dict:
    """A load sample (``sample``) over the interval from the ``counters`` reading ``before`` to now, at least
    ``seconds`` long: the rest of them slept."""
    cpu_count = psutil.cpu_count() or 1
    time.sleep(max(0.0, seconds - (time.monotonic() - before[2])))
    other = other_share(before, counters(), cpu_count)
    load_1m, load_5m, _ = psutil.getloadavg()
    return {"load_avg_1m": load_1m, "load_avg_5m": load_5m, "other_cpu_percent": other, "cpu_count": cpu_count}


class ClockLoad:
    """Other processes' CPU share across a timed region, sampled every ``interval_s`` by a background thread
    between ``start()`` and ``stop()``.

    A sample costs about 1.5 ms of this process's CPU (``own_tree_cpu_seconds`` lists every process), 0.3 % of one
    core at 0.5 s, and it counts as the run's own. The region's last, partial interval is a sample when it lasted
    at least half an interval (shorter ones are mostly the CPU clock's 10 ms ticks).
    """

    def __init__(
        self,
        interval_s: float = SAMPLE_SECONDS,
        read: Callable[[], tuple[float, float, float]] = counters,
        cpu_count: int | None = None,
    ):
        self.interval_s = interval_s
        self.cpu_count = cpu_count or psutil.cpu_count() or 1
        self._read = read
        self._readings: list[tuple[float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="clock-load-sampler", daemon=True)

    def start(self) -> None:
        """Take the first reading and start sampling."""
        self._readings.append(self._read())
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._readings.append(self._read())

    def stop(self) -> dict:
        """Stop sampling; return the record's ``load.during_clock``: the number of samples, their interval, other
        processes' mean share over them (time-weighted) and the largest sample (null without a sample)."""
        self._stop.set()
        self._thread.join()
        last = self._read()
        if last[2] - self._readings[-1][2] >= self.interval_s / 2:
            self._readings.append(last)
        readings = self._readings
        shares = [other_share(a, b, self.cpu_count) for a, b in itertools.pairwise(readings)]
        mean = other_share(readings[0], readings[-1], self.cpu_count) if shares else None
        return {
            "samples": len(shares),
            "interval_seconds": self.interval_s,
            "mean_other_cpu_percent": mean,
            "peak_other_cpu_percent": max(shares, default=None),
        }


def wait_for_quiet(
    max_wait_s: float,
    take_sample: Callable[[], dict] = sample,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    first: dict | None = None,
) -> tuple[dict, float]:
    """Sample until other processes' share is within the busy rule (``busy_threshold``) or ``max_wait_s`` has
    passed (0: never wait), polling every ``POLL_SECONDS``; return (the last sample, seconds waited). ``first``: a
    sample already taken (``sample_since``), judged before any new one."""
    current, waited, start = first or take_sample(), 0.0, clock()
    limit = busy_threshold(current["cpu_count"])
    while current["other_cpu_percent"] > limit and waited + POLL_SECONDS <= max_wait_s:
        sleep(POLL_SECONDS)
        current = take_sample()
        waited = clock() - start
    return current, waited


def judged_share(start: dict, end: dict, during_clock: dict | None) -> float:
    """The share of the machine other work took that the busy rule judges (percent): the larger of the start sample
    (after waiting) and the mean over the timed region (``ClockLoad.stop()``; None when the run never reached its
    clock), the end sample standing in for the timed region where it has no sample."""
    during = (during_clock or {}).get("mean_other_cpu_percent")
    return max(start["other_cpu_percent"], end["other_cpu_percent"] if during is None else during)


def load_section(
    start: dict, end: dict, waited_seconds: float, during_clock: dict | None = None, core_share: float = BUSY_CORE_SHARE
) -> dict:
    """The record's ``load``: ``busy`` when the share the busy rule judges (``judged_share``) is over its threshold
    for the machine's CPU count (``busy_threshold``; ``core_share``: replaying a record made under an earlier rule)."""
    limit = busy_threshold(start["cpu_count"], core_share)
    return {
        "start": start,
        "end": end,
        "during_clock": during_clock,
        "waited_seconds": waited_seconds,
        "busy": judged_share(start, end, during_clock) > limit,
        "threshold_cpu_percent": limit,
    }
