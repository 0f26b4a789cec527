"""Busy sampler: other processes' CPU share as a run's background sampler (``machine_load.ClockLoad``) measures it
across a short region, with and without one spinning core beside it.

The spinner is started outside this process's tree (its launcher exits at once), as another user's work would be;
the region itself only sleeps. For each case: the samples, other processes' mean and peak share in percent of
the machine, the busy threshold, and whether the record would be flagged busy (``load_section``, with a start and
an end sample around the region as a run takes them). On a quiet 2-core machine one spinning core is 50 %.

    python benchmarks/busy_sampler.py [--seconds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from fwbench.cliargs import positive_float
from runners.measure import machine_load

#: one core's worth of work, bounded: a spinner that outlives a killed benchmark stops by itself
SPIN = "import time\nend = time.monotonic() + 120\nwhile time.monotonic() < end: pass"


def start_spinner() -> int:
    """Start a process that spins one core, outside this process's tree (not the run's own work); its pid."""
    launcher = (
        "import subprocess, sys\n"
        f"spinner = subprocess.Popen([sys.executable, '-c', {SPIN!r}], stdin=subprocess.DEVNULL, "
        "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(spinner.pid)"
    )
    done = subprocess.run([sys.executable, "-c", launcher], capture_output=True, text=True, check=True, timeout=60)
    return int(done.stdout)


def sampled_region(seconds: float) -> dict:
    """The load of a region of ``seconds`` as a run records it: ``during_clock`` with the threshold and the busy
    flag."""
    start = machine_load.sample()
    clock = machine_load.ClockLoad()
    clock.start()
    time.sleep(seconds)
    during = clock.stop()
    section = machine_load.load_section(start, machine_load.sample(), 0.0, during)
    return {**during, "threshold_cpu_percent": section["threshold_cpu_percent"], "busy": section["busy"]}


def line(name: str, figures: dict) -> str:
    return (
        f"{name}: {figures['samples']} samples of {figures['interval_seconds']} s, other processes' mean "
        f"{figures['mean_other_cpu_percent']:.1f} %, peak {figures['peak_other_cpu_percent']:.1f} % of the machine "
        f"(threshold {figures['threshold_cpu_percent']:.1f} %): busy {figures['busy']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="length of each sampled region")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    quiet = sampled_region(args.seconds)
    spinner = start_spinner()
    try:
        time.sleep(0.3)  # the spinner is up before the region starts
        spinning = sampled_region(args.seconds)
    finally:
        os.kill(spinner, signal.SIGKILL)
    figures = {"cpu_count": os.cpu_count(), "quiet": quiet, "one_core_spinning": spinning}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{figures['cpu_count']} logical CPUs")
        print(line("without a spinner", quiet))
        print(line("one core spinning ", spinning))
    return 0


if __name__ == "__main__":
    sys.exit(main())
