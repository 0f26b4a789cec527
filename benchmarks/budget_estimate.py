"""How well the matrix's budget expects a first run from the first runs of other batch sizes
(``runners.matrix.budget``), from the run records of a results directory.

For each machine and each framework's out-of-the-box first runs (cold caches) of a profile, the estimate the budget
makes of a batch size's first run from those a matrix made before it (at the ends first: the smallest batch size's
for the largest, the two ends' for the sizes between, the nearer taken), beside the wall time the run took and the
ratio of the two. A ratio below 1 is a run the budget expected shorter than it was: the direction that lets a matrix
start a run it has no room for.

    python benchmarks/budget_estimate.py [RESULTS_DIR] [--profile quick]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, add_run_records_arguments
from fwbench.time_breakdown import wall_seconds
from runners.matrix.budget import expected_seconds
from runners.matrix.store import ok_runs_under
from runners.measure.profiles import RunConfig


def first_runs(root: Path, profile: str) -> dict[tuple, dict[int, tuple[RunConfig, dict]]]:
    """(machine id, framework, version, mode, precision) → batch size → (its configuration, the record of its first
    run): ok, cold, out of the box, written by ``runners run --config-json`` (the configuration it ran)."""
    groups: dict[tuple, dict[int, tuple[RunConfig, dict]]] = defaultdict(dict)
    for record in ok_runs_under(root, profile):
        command = record.get("command") or []
        if "--config-json" not in command:
            continue
        config = RunConfig.from_json(command[command.index("--config-json") + 1])
        if config.repeat or config.tuning:
            continue
        if (record["timing"].get("compile_cache") or "cold") != "cold":
            continue
        key = (record["hardware"]["machine_id"], config.framework, config.framework_version, config.mode)
        groups[(*key, config.precision)][config.batch_size] = (config, record)
    return groups


def estimates(by_size: dict[int, tuple[RunConfig, dict]]) -> list[tuple[int, float, float, str]]:
    """(batch size, expected seconds, wall seconds, where the estimate came from) for every batch size but the
    smallest, each expected from the sizes a matrix runs before it."""
    sizes = sorted(by_size)
    rows = []
    for size in sizes[1:]:
        before = [sizes[0]] if size == sizes[-1] else [sizes[0], sizes[-1]]
        config, record = by_size[size]
        others = [(by_size[b][0], [by_size[b][1]]) for b in before]
        expected, source = expected_seconds(config, False, [], others)
        rows.append((size, expected, wall_seconds(record), source))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print each estimate beside its run and the ratio, and each machine's range of ratios; exit 1 when there is
    nothing to estimate."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_records_arguments(parser, "first runs")
    args = parser.parse_args(argv)
    ratios: dict[str, list[float]] = defaultdict(list)
    found = sorted(first_runs(args.results, args.profile).items())
    for (machine, framework, version, mode, precision), by_size in found:
        for size, expected, wall, source in estimates(by_size):
            ratios[machine].append(expected / wall)
            print(
                f"{machine}  {framework} {version} {mode} {precision} bs{size}: expected {expected:.0f} s "
                f"({source}), ran {wall:.0f} s  →  {expected / wall:.2f} ×"
            )
    if not ratios:
        print(f"no {args.profile} first runs at two or more batch sizes under {args.results}", file=sys.stderr)
        return EXIT_FAILURE
    for machine, each in sorted(ratios.items()):
        print(f"{machine}: {min(each):.2f}–{max(each):.2f} × over {len(each)} first runs")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
