"""Machine load around a run (a bounded wait for quiet, the load across the clock, busy flag), host memory of the
whole process tree, and GPU memory by phase (NVML faked: no GPU here)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from runners.measure import host_memory, machine_load
from runners.measure.gpu_memory import NvmlPeakSampler

REPO = Path(__file__).resolve().parents[2]


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
    clock = FakeClock([1.0])
    assert clock.wait(120) == (sample(1.0), 0.0) and clock.slept == []


def test_a_busy_machine_is_polled_until_quiet():
    clock = FakeClock([95.0, 80.0, 1.0, 99.0])  # quiet: at most 2 % of 2 CPUs
    start, waited = clock.wait(120)
    assert start == sample(1.0) and waited == 4.0 and clock.slept == [2.0, 2.0]


def test_the_wait_is_bounded_and_the_run_goes_on_busy():
    clock = FakeClock([90.0] * 100)
    start, waited = clock.wait(7)
    assert start["other_cpu_percent"] == 90.0 and waited == 6.0  # three polls fit in 7 s, a fourth would not
    section = machine_load.load_section(start, sample(5.0), waited)
    assert section == {
        "start": start,
        "end": sample(5.0),
        "during_clock": None,
        "waited_seconds": 6.0,
        "busy": True,
        "threshold_cpu_percent": 2.0,
    }


def test_a_sample_already_taken_is_judged_first():
    clock = FakeClock([1.0])
    start, waited = machine_load.wait_for_quiet(
        120, take_sample=clock.take, sleep=clock.sleep, clock=lambda: clock.now, first=sample(95.0)
    )
    assert start == sample(1.0) and waited == 2.0 and clock.slept == [2.0]


def test_a_sample_over_the_runs_own_work_sleeps_only_what_is_missing(monkeypatch):
    slept = []
    monkeypatch.setattr(machine_load.time, "sleep", slept.append)
    # The machine's busy seconds are this process's real CPU time plus a steady 0.25 core of other work, so the
    # sample must find that quarter core and none of the spin below, whatever else this machine runs meanwhile.
    monkeypatch.setattr(
        machine_load, "_system_busy_seconds", lambda: machine_load.own_tree_cpu_seconds() + 0.25 * time.monotonic()
    )
    before = machine_load.counters()
    end = time.monotonic() + 0.6
    while time.monotonic() < end:  # the run's own work: one core of the machine, never other work
        pass
    spun = machine_load.sample_since(before)
    assert slept == [0.0] and spun["other_cpu_percent"] == pytest.approx(25 / spun["cpu_count"], abs=2.0)
    short = machine_load.sample_since(machine_load.counters(), seconds=0.5)
    assert 0.45 < slept[-1] <= 0.5 and 0 <= short["other_cpu_percent"] <= 100  # a fresh interval: slept


def test_zero_means_never_wait():
    clock = FakeClock([100.0])
    assert clock.wait(0) == (sample(100.0), 0.0)


@pytest.mark.parametrize("start, end, busy", [(1, 1, False), (2, 2, False), (1, 2.5, True), (2.5, 0, True)])
def test_without_a_clock_sample_busy_when_the_start_or_the_end_is_over_the_threshold(start, end, busy):
    assert machine_load.load_section(sample(start), sample(end), 0.0)["busy"] is busy


@pytest.mark.parametrize("start, end, mean, busy", [(1, 24, 1.5, False), (1, 24, 2.5, True), (2.5, 0, 0.0, True)])
def test_with_a_clock_sample_the_end_sample_does_not_judge(start, end, mean, busy):
    # the end sample covers the evaluation, which no figure times: a blip there (24 % on 2 cores while the timed
    # epochs read 2 %) leaves a run judged
    section = machine_load.load_section(sample(start), sample(end), 0.0, during(mean))
    assert section["busy"] is busy and section["end"]["other_cpu_percent"] == end


def test_the_busy_threshold_is_4_percent_of_one_core():
    assert [machine_load.busy_threshold(n) for n in (1, 2, 16)] == [4.0, 2.0, 0.25]


@pytest.mark.parametrize("share, threshold, busy", [(machine_load.BUSY_CORE_SHARE, 2.0, True), (0.25, 12.5, False)])
def test_a_record_made_under_the_quarter_core_rule_is_replayed_by_it(share, threshold, busy):
    section = machine_load.load_section(sample(1.0), sample(1.0), 0.0, during(10.0), core_share=share)
    assert (section["threshold_cpu_percent"], section["busy"]) == (threshold, busy)


def during(mean: float | None) -> dict:
    return {"samples": 4, "interval_seconds": 0.5, "mean_other_cpu_percent": mean, "peak_other_cpu_percent": mean}


@pytest.mark.parametrize("mean, busy", [(None, False), (2.0, False), (2.5, True)])
def test_busy_when_the_mean_across_the_clock_is_over_the_threshold(mean, busy):
    section = machine_load.load_section(sample(1.0), sample(1.0), 0.0, during(mean))
    assert section["busy"] is busy and section["during_clock"] == during(mean)


class FakeCounters:
    """``machine_load.counters`` readings, each ``step`` seconds after the last, while other processes use
    ``other`` and the run ``own`` CPU seconds per second; the last one ``last_step`` after its predecessor."""

    def __init__(self, step: float, other: float, own: float, last_step: float | None = None, stop_after: int = 0):
        self.step, self.other, self.own, self.last_step, self.stop_after = step, other, own, last_step, stop_after
        self.now = self.busy = self.own_seconds = 0.0
        self.calls = 0

    def __call__(self) -> tuple[float, float, float]:
        self.calls += 1
        step = self.last_step if self.calls > self.stop_after and self.last_step is not None else self.step
        if self.calls > 1:
            self.now += step
            self.busy += step * (self.other + self.own)
            self.own_seconds += step * self.own
        return self.busy, self.own_seconds, self.now


def clock_load(counters: FakeCounters, interval_s: float, ticks: int) -> dict:
    """``ClockLoad`` stopped right after ``ticks`` background readings (its thread's waits are real, its readings
    fake: the next one would come an interval later)."""
    clock = machine_load.ClockLoad(interval_s=interval_s, read=counters, cpu_count=2)
    clock.start()
    deadline = time.monotonic() + 10
    while counters.calls < 1 + ticks and time.monotonic() < deadline:
        time.sleep(0.001)
    return clock.stop()


def test_the_clock_load_is_other_work_over_the_region_the_runs_own_excluded():
    # 0.5 s readings: other processes busy 1 core of 2 (50 %), the run itself 1.5 cores, which never count
    figures = clock_load(FakeCounters(step=0.5, other=1.0, own=1.5, stop_after=3), interval_s=0.5, ticks=2)
    assert figures["samples"] == 3 and figures["interval_seconds"] == 0.5  # two in the background, one at stop
    assert figures["mean_other_cpu_percent"] == pytest.approx(50.0)
    assert figures["peak_other_cpu_percent"] == pytest.approx(50.0)


def test_a_last_interval_shorter_than_half_a_sample_is_left_out():
    counters = FakeCounters(step=0.5, other=2.0, own=0.0, last_step=0.1, stop_after=2)
    figures = clock_load(counters, interval_s=0.5, ticks=1)
    assert figures["samples"] == 1 and figures["mean_other_cpu_percent"] == pytest.approx(100.0)
    empty = clock_load(FakeCounters(step=0.1, other=2.0, own=0.0), interval_s=60, ticks=0)
    assert empty == {
        "samples": 0,
        "interval_seconds": 60,
        "mean_other_cpu_percent": None,
        "peak_other_cpu_percent": None,
    }


def test_one_spinning_core_beside_a_sampled_region_makes_it_busy():
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "busy_sampler.py"), "--seconds", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    quiet, spinning = figures["quiet"], figures["one_core_spinning"]
    for name, case in (("without a spinner", quiet), ("one core spinning", spinning)):
        print(
            f"busy sampler, {name}: {case['samples']} samples, mean {case['mean_other_cpu_percent']:.1f} %, "
            f"peak {case['peak_other_cpu_percent']:.1f} % of {figures['cpu_count']} CPUs, busy {case['busy']}"
        )
    one_core = 100.0 / figures["cpu_count"]  # 50 % of a 2-core machine; other users' work can only add to it
    assert spinning["samples"] >= 3 and spinning["mean_other_cpu_percent"] >= 0.7 * one_core
    assert spinning["busy"] is True and spinning["threshold_cpu_percent"] == machine_load.busy_threshold(
        figures["cpu_count"]
    )


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
from runners.measure.host_memory import HostPeakSampler
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


def test_children_are_counted_by_pss_where_the_system_reports_it():
    sampler = host_memory.HostPeakSampler()
    assert sampler.basis == ("pss" if sys.platform == "linux" else sampler.basis)
    assert "summed PSS" in sampler.basis_text or sys.platform != "linux"


class FakeProcess:
    """A psutil process whose full memory information lacks some fields, or is denied."""

    def __init__(self, fields: dict | None):
        self.fields = fields

    def memory_full_info(self):
        if self.fields is None:
            raise psutil.AccessDenied(pid=1)
        return type("Info", (), self.fields)()


@pytest.mark.parametrize(
    "fields, basis",
    [({"rss": 3, "uss": 1, "pss": 2}, "pss"), ({"rss": 3, "uss": 1}, "uss"), ({"rss": 3}, "rss"), (None, "rss")],
)
def test_the_basis_falls_back_from_pss_to_uss_to_rss(fields, basis):
    assert host_memory.best_basis(FakeProcess(fields)) == basis
    assert f"summed {basis.upper()} " in host_memory.basis_text(basis)


def test_nvml_phases_split_the_peak_at_each_mark():
    nvml = NvmlPeakSampler()
    nvml._handles = ["gpu0"]  # sampled by hand: no thread, no NVML
    used = iter([100, 300, 200, 150, 120])
    nvml._sample = lambda: next(used)
    nvml._update()
    nvml._update()
    assert nvml.mark() == 300  # 100, 300, and 200 sampled at the mark itself
    nvml._update()
    assert nvml.mark() == 150 and nvml.peak_bytes == 300  # the second phase; the whole run's peak stays


def test_without_nvml_every_phase_is_unknown_not_0():
    with NvmlPeakSampler() as nvml:
        assert nvml.mark() is None
    assert nvml.mark() is None and nvml.peak_bytes is None
