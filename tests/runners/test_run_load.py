"""Machine load around a run (a bounded wait for quiet, busy flag) and host memory of the whole process tree."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from runners import machine_load


def sample(other: float) -> dict:
    return {"load_avg_1m": 1.0, "load_avg_5m": 1.0, "other_cpu_percent": other, "cpu_count": 2}


class FakeClock:
    """Samples in turn; sleeping advances the clock (a sample itself takes no time here)."""

    def __init__(self, others: list[float]):
        self.others, self.now, self.slept = list(others), 0.0, []

    def take(self) -> dict:
        return sample(self.others.pop(0))

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def wait(self, max_wait_s: float) -> tuple[dict, float]:
        return machine_load.wait_for_quiet(max_wait_s, take_sample=self.take, sleep=self.sleep, clock=lambda: self.now)


def test_a_quiet_machine_starts_at_once():
    clock = FakeClock([10.0])
    assert clock.wait(120) == (sample(10.0), 0.0) and clock.slept == []


def test_a_busy_machine_is_polled_until_quiet():
    clock = FakeClock([95.0, 80.0, 30.0, 99.0])
    start, waited = clock.wait(120)
    assert start == sample(30.0) and waited == 4.0 and clock.slept == [2.0, 2.0]


def test_the_wait_is_bounded_and_the_run_goes_on_busy():
    clock = FakeClock([90.0] * 100)
    start, waited = clock.wait(7)
    assert start["other_cpu_percent"] == 90.0 and waited == 6.0  # three polls fit in 7 s, a fourth would not
    section = machine_load.load_section(start, sample(5.0), waited)
    assert section == {
        "start": start,
        "end": sample(5.0),
        "waited_seconds": 6.0,
        "busy": True,
        "threshold_cpu_percent": 50.0,
    }


def test_zero_means_never_wait():
    clock = FakeClock([100.0])
    assert clock.wait(0) == (sample(100.0), 0.0)


@pytest.mark.parametrize("start, end, busy", [(10, 10, False), (50, 50, False), (10, 60, True), (51, 0, True)])
def test_busy_when_the_start_or_the_end_is_over_the_threshold(start, end, busy):
    assert machine_load.load_section(sample(start), sample(end), 0.0)["busy"] is busy


def test_a_real_sample_is_in_range():
    quiet = machine_load.sample(0.3)
    assert set(quiet) == {"load_avg_1m", "load_avg_5m", "other_cpu_percent", "cpu_count"}
    assert 0 <= quiet["other_cpu_percent"] <= 100 and quiet["cpu_count"] >= 1


def test_the_runs_own_child_processes_are_not_other_work():
    spin = "import time\nend = time.time() + 3\nwhile time.time() < end: pass"
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    try:
        time.sleep(0.3)
        before = machine_load.own_tree_cpu_seconds()
        time.sleep(1.0)
        spent = machine_load.own_tree_cpu_seconds() - before
    finally:
        spinner.kill()
        spinner.wait()
    assert spent > 0.3  # the spinning child's CPU time counts as the run's own (a shared CPU may slow it)


def test_host_peak_counts_child_processes():
    # in a fresh interpreter, as a run is: getrusage's peak of a long-lived test process may already lie above
    # anything this test allocates
    script = """
import subprocess, sys
from runners.host_memory import HostPeakSampler
with HostPeakSampler(interval_s=0.02) as host:
    child = subprocess.Popen([sys.executable, "-c", "import time\\nblock = bytearray(200 << 20)\\ntime.sleep(1.5)"])
    child.wait()
    kept = bytearray(64 << 20)  # this process's own growth
print(host.children_peak_bytes, host.self_peak_bytes)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    children_peak, self_peak = map(int, done.stdout.split())
    assert children_peak > 150 << 20
    assert self_peak >= 60 << 20
