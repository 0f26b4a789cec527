"""How busy the machine was with other work while a run was measured, and a bounded wait for quiet.

A sample is the share of the machine's total CPU capacity that processes *other than this run's process tree*
used over ~0.5 s: the system's busy CPU time minus this process's and its descendants' CPU time, over the
interval's capacity (wall time × logical CPUs). The 1- and 5-minute load averages are recorded for information
only: they lag a minute and still count the previous configuration of a matrix. Only numbers are recorded,
never process names or arguments (records are published).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import psutil

BUSY_THRESHOLD_CPU_PERCENT = 50.0  # more than half the cores' worth of other work
SAMPLE_SECONDS = 0.5
POLL_SECONDS = 2.0


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


def sample(seconds: float = SAMPLE_SECONDS) -> dict:
    """One load sample: load averages, other processes' CPU share (0–100) over ``seconds``, logical CPUs."""
    cpu_count = psutil.cpu_count() or 1
    busy, own, start = _system_busy_seconds(), own_tree_cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    busy, own, wall = _system_busy_seconds() - busy, own_tree_cpu_seconds() - own, time.monotonic() - start
    other = 100.0 * (busy - own) / (wall * cpu_count)
    load_1m, load_5m, _ = psutil.getloadavg()
    return {
        "load_avg_1m": load_1m,
        "load_avg_5m": load_5m,
        "other_cpu_percent": min(100.0, max(0.0, other)),
        "cpu_count": cpu_count,
    }


def wait_for_quiet(
    max_wait_s: float,
    threshold: float = BUSY_THRESHOLD_CPU_PERCENT,
    take_sample: Callable[[], dict] = sample,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[dict, float]:
    """Sample until other processes use at most ``threshold`` percent of the CPUs or ``max_wait_s`` has passed
    (0: never wait), polling every ``POLL_SECONDS``; return (the last sample, seconds waited)."""
    current, waited, start = take_sample(), 0.0, clock()
    while current["other_cpu_percent"] > threshold and waited + POLL_SECONDS <= max_wait_s:
        sleep(POLL_SECONDS)
        current = take_sample()
        waited = clock() - start
    return current, waited


def load_section(start: dict, end: dict, waited_seconds: float, threshold: float = BUSY_THRESHOLD_CPU_PERCENT) -> dict:
    """The record's ``load``: ``busy`` when the start sample (after waiting) or the end sample is over the
    threshold."""
    return {
        "start": start,
        "end": end,
        "waited_seconds": waited_seconds,
        "busy": max(start["other_cpu_percent"], end["other_cpu_percent"]) > threshold,
        "threshold_cpu_percent": threshold,
    }
