"""How often a run's two halves agree, from the committed run records: whether each machine times enough work per
run that its step time holds still within the run (issue 55 asks for 90 % of a CPU's runs within 5 %).

The method. A run is a record that ended ok and keeps its timed windows' step times (``timing.window_step_seconds``,
timing protocol 3 on); its drift is its second half's seconds per step over its first half's
(``fwbench.run_figures.drift``: the halves of its windows, weighted by their steps). Its halves agree when the drift
lies within ``fwbench.gap.MIN_EFFECT`` (5 %, either way), the band the verdicts use and the site marks drift
beyond. Per machine and device kind: the runs, how many agree and their share, whether that share reaches
``TARGET_SHARE`` (90 %), and the worst drift (the farthest from 1 on the log scale) with its record. Exit 1 with one
line when no record under the folder keeps window times.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, existing_directory
from fwbench.gap import MIN_EFFECT
from fwbench.run_figures import Drift, drift
from generator.records.load import Loaded, load_results

#: the share of runs whose halves should agree within the band (issue 55's aim for a CPU)
TARGET_SHARE = 0.9


@dataclass(frozen=True)
class MachineHalves:
    """The drifts of one machine's (and device kind's) ok runs that keep window times, each with its record's name."""

    machine: str
    device_kind: str
    drifts: tuple[tuple[Drift, str], ...]

    @property
    def agreeing(self) -> int:
        """How many runs' halves agree within the band."""
        return sum(not found.beyond_band for found, _ in self.drifts)

    @property
    def share(self) -> float:
        """The share of runs whose halves agree."""
        return self.agreeing / len(self.drifts)

    @property
    def worst(self) -> tuple[Drift, str]:
        """The drift farthest from 1 on the log scale, and its record."""
        return max(self.drifts, key=lambda pair: abs(math.log(pair[0].ratio)))


def machine_halves(items: list[Loaded], root: Path) -> list[MachineHalves]:
    """Every machine (and device kind) with an ok run that keeps window times, its runs' drifts, sorted by name."""
    by_machine = defaultdict(list)
    for item in items:
        record = item.record
        found = drift(record) if record["status"] == "ok" else None
        if found is not None:
            hardware = record["hardware"]
            key = (hardware["machine_id"], hardware["device_kind"])
            by_machine[key].append((found, item.name_under(root)))
    return [MachineHalves(machine, kind, tuple(drifts)) for (machine, kind), drifts in sorted(by_machine.items())]


def signed_percent(ratio: float) -> str:
    """A ratio as a signed percentage with one decimal: 1.07 → ``+7.0 %``."""
    return f"{100 * (ratio - 1):+.1f} %"


def table(machines: list[MachineHalves]) -> str:
    """The machines as a text table: runs, how many agree, their share against the target, the worst drift."""
    rows = [
        [
            m.machine,
            m.device_kind,
            len(m.drifts),
            m.agreeing,
            f"{100 * m.share:.0f} %",
            "yes" if m.share >= TARGET_SHARE else "no",
            signed_percent(m.worst[0].ratio),
            m.worst[1],
        ]
        for m in machines
    ]
    band = f"{100 * (MIN_EFFECT - 1):.0f} %"
    headers = [
        "machine",
        "device",
        "n",
        f"within {band}",
        "share",
        f"≥ {100 * TARGET_SHARE:.0f} %",
        "worst drift",
        "its record",
    ]
    return tabulate(rows, headers=headers, disable_numparse=True)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when no record keeps window times."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--results",
        type=existing_directory,
        default=Path("results"),
        metavar="DIR",
        help="the results folder whose runs/ are read (default: results)",
    )
    args = parser.parse_args(argv)
    machines = machine_halves(load_results(args.results).runs, args.results)
    if not machines:
        print(
            f"no ok run record keeps its windows' times (timing.window_step_seconds) under {args.results / 'runs'}",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    print(table(machines))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
