"""Where other work on the CPUs starts to slow a run measurably, from the committed run records: the busy threshold
that ``runners.measure.machine_load`` uses (``BUSY_CORE_SHARE``).

Usage: .venv/bin/python benchmarks/busy_threshold.py [RESULTS_DIR]   (default results; its runs/ are read)

The method. A run is a CPU run record that ended ok, with other processes' mean CPU share across its clock
(``load.during_clock``, busy runs included: they hold the high shares). The share is read in the busy rule's own
unit, percent of one core's worth (the record's percent of the machine × its logical CPUs), so machines of any size
pool. A configuration is everything a results table keys its runs on (``generator.records.aggregate.config_key``:
machine, framework and version, mode, batch size, precision, workload, timing protocol, …); one with a single run has
nothing to compare it with and is left out. A run's slowdown is 1 − its throughput over its configuration's
reference: the median throughput of the configuration's quietest half of runs (the ⌈n/2⌉ with the lowest shares).

The runs are binned by share (``EDGES``). Per bin: the median slowdown and its distribution-free 95 % interval (the
order statistics that cover the median with at least 95 % probability; none below 6 runs). A bin is measurably
slower when its interval lies above 0 and does not lie wholly below ``MIN_SLOWDOWN`` (1 %). Going up from the
quietest bin, the threshold is the upper edge of the last bin judged not slower below the first measurably slower
one (bins too small for an interval are passed over): the largest share at which the records show no slowdown.
Printed: the table, then the threshold as ``BUSY_CORE_SHARE`` and in percent of each CPU count in the data. Exit 1
when there are no runs to compare, or when the data set no threshold (no bin slower, or none quiet below it).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, existing_directory
from fwbench.records import throughput
from generator.records.aggregate import config_key
from generator.records.identity import ConfigKey
from generator.records.load import Loaded, load_results

#: bin edges in percent of one core's worth of other work (on 2 CPUs: 0, 0.5, 1, … % of the machine); the last bin
#: is open above
EDGES = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 20.0)
#: a slowdown smaller than this (1 %) is below what a verdict could notice, measured or not
MIN_SLOWDOWN = 0.01
#: the coverage of a bin's interval of its median slowdown
COVERAGE = 0.95


@dataclass(frozen=True)
class LoadedRun:
    """One run: its configuration, other work across its clock (percent of one core's worth), its slowdown against
    its configuration's quietest runs (a fraction: 0.05 is 5 % slower) and its machine's logical CPUs."""

    configuration: ConfigKey
    core_percent: float
    slowdown: float
    cpu_count: int


def clock_share(record: dict) -> tuple[float, int] | None:
    """Other processes' mean share across a run's clock in percent of one core's worth, and the machine's logical
    CPUs; None without a clock sample (a record made before the sampler, or a clock too short for one)."""
    load = record.get("load") or {}
    mean = (load.get("during_clock") or {}).get("mean_other_cpu_percent")
    if mean is None:
        return None
    cpu_count = load["start"]["cpu_count"]
    return mean * cpu_count, cpu_count


def loaded_runs(items: list[Loaded]) -> list[LoadedRun]:
    """Every CPU run that ended ok with a clock sample, in a configuration with two such runs or more, with its
    share and its slowdown (the module's docstring says how)."""
    by_config = defaultdict(list)
    for item in items:
        record = item.record
        if record["status"] != "ok" or (record.get("hardware") or {}).get("device_kind") != "cpu":
            continue
        share, rate = clock_share(record), throughput(record["timing"])[0]
        if share is not None and rate is not None:
            by_config[config_key(item)].append((*share, rate))
    runs = []
    for configuration, config_runs in by_config.items():
        if len(config_runs) < 2:
            continue
        quietest = sorted(config_runs)[: math.ceil(len(config_runs) / 2)]
        reference = statistics.median(rate for _, _, rate in quietest)
        runs += [LoadedRun(configuration, share, 1 - rate / reference, cpus) for share, cpus, rate in config_runs]
    return runs


def median_interval(values: list[float]) -> tuple[float, float] | None:
    """The distribution-free ``COVERAGE`` interval of the median of ``values``: the narrowest pair of order
    statistics, as many from each end, that covers it with at least that probability (binomial, p = ½); None when
    even the smallest and largest value cover it less often (fewer than 6 values)."""
    ordered, n = sorted(values), len(values)
    inside = None
    for k in range(n // 2):  # the interval runs from the (k+1)-th smallest to the (k+1)-th largest
        if sum(math.comb(n, i) for i in range(k + 1, n - k)) / 2**n < COVERAGE:
            break
        inside = (ordered[k], ordered[n - 1 - k])
    return inside


@dataclass(frozen=True)
class ShareBin:
    """The runs whose share lies in [low, high) percent of one core's worth (high None: open above)."""

    low: float
    high: float | None
    slowdowns: tuple[float, ...]

    @property
    def median(self) -> float | None:
        """The bin's median slowdown (None when empty)."""
        return statistics.median(self.slowdowns) if self.slowdowns else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The median slowdown's 95 % interval (``median_interval``)."""
        return median_interval(list(self.slowdowns))

    @property
    def slower(self) -> bool | None:
        """Whether its runs are measurably slower: the interval above 0 and not wholly below MIN_SLOWDOWN; None when
        the bin has too few runs for an interval."""
        interval = self.interval
        return None if interval is None else interval[0] > 0 and interval[1] >= MIN_SLOWDOWN


def share_bins(runs: list[LoadedRun], edges: tuple[float, ...] = EDGES) -> list[ShareBin]:
    """``runs``'s slowdowns binned by share at ``edges`` (increasing, the first 0), the last bin open above."""
    highs = (*edges[1:], None)
    return [
        ShareBin(
            low,
            high,
            tuple(r.slowdown for r in runs if low <= r.core_percent and (high is None or r.core_percent < high)),
        )
        for low, high in zip(edges, highs, strict=True)
    ]


def busy_threshold(bins: list[ShareBin]) -> float | None:
    """The largest share (percent of one core's worth) the records show no slowdown at: the upper edge of the last
    bin judged not slower below the first measurably slower bin; None when no bin is slower or none below it is
    judged not slower (the data set no threshold)."""
    quiet_edge = None
    for share_bin in bins:
        if share_bin.slower:
            return quiet_edge
        if share_bin.slower is False:
            quiet_edge = share_bin.high
    return None


def percent(value: float) -> str:
    """A fraction as a signed percentage with one decimal."""
    return f"{100 * value:+.1f} %"


def table(bins: list[ShareBin]) -> str:
    """The bins as a text table: share, runs, median slowdown, its interval, the judgement."""
    judged = {True: "slower", False: "not slower", None: "too few runs"}
    rows = [
        [
            f"{b.low:g}–{b.high:g}" if b.high is not None else f"{b.low:g}+",
            len(b.slowdowns),
            percent(b.median) if b.median is not None else "—",
            f"{percent(b.interval[0])} to {percent(b.interval[1])}" if b.interval else "—",
            judged[b.slower],
        ]
        for b in bins
        if b.slowdowns
    ]
    headers = ["other work, % of a core", "runs", "median slowdown", "95 % interval", "measurably"]
    return tabulate(rows, headers=headers, disable_numparse=True)


def main(argv: list[str] | None = None) -> int:
    """Print the table and the threshold; exit 1 when no runs can be compared or the data set no threshold."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "results", nargs="?", type=existing_directory, default=Path("results"), help="a results folder (runs/ in it)"
    )
    args = parser.parse_args(argv)
    runs = loaded_runs(load_results(args.results).runs)
    if not runs:
        print(
            f"no CPU runs with a clock sample, two or more of a configuration, under {args.results / 'runs'}",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    bins = share_bins(runs)
    configurations = len({r.configuration for r in runs})
    print(f"{len(runs)} runs of {configurations} configurations; slowdown against each one's quietest half")
    print(table(bins))
    found = busy_threshold(bins)
    if found is None:
        print(
            "the data set no threshold: no bin is measurably slower, or none below the first slower one is quiet",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    machines = ", ".join(
        f"{found / cpus:.2g} % of a {cpus}-CPU machine" for cpus in sorted({r.cpu_count for r in runs})
    )
    print(f"threshold: {found:g} % of one core's worth (BUSY_CORE_SHARE = {found / 100:g}): {machines}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
