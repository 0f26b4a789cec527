"""Where a benchmark matrix's wall time went, from its run records, and how it compares with a budget.

Usage: .venv/bin/python benchmarks/matrix_time.py [RESULTS_DIR] [--profile quick] [--budget 720]

For each machine and tuning (out of the box, or the tuning variables a run recorded): in all, the span from the
first start to the last finish, split into compile, the warm-up step's own run, the timed epochs, the wait for
a quiet machine, the rest inside each run (imports, set-up, evaluation, the record) and the time between runs;
per framework, the time inside its own runs (the matrix interleaves the frameworks, so a framework's span would
hold the others' runs). The span is a wall time only for records written by one sequential ``runners matrix``.
Where a framework also has tuned runs, the out-of-the-box span with that framework's runs swapped for the tuned
ones is printed too: a projection from measured run times, not a run. Where the matrix repeated configurations
(``runners matrix --repeats``), each repeat round's time inside its runs is set beside the first runs of the same
configurations, with how many ran with warm compile caches: a repeat round should cost at most ``--repeat-ratio``
(0.6) of its first round. Beside it, the round's training steps alone (its first steps, warm compile included, and
its timed epochs) against the same first runs: what the round would cost if imports, set-up, evaluation and the
record took no time in the repeats; and the floor: its training steps less their warm compile against the first
runs' training steps with their cold compile, what it would cost if those took no time in either round and a warm
compile none. A floor above the target says that no harness meets it on that machine: only faster training steps
would, since a warm cache removes a cold compile and nothing else.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, add_run_records_arguments, positive_float
from fwbench.time_breakdown import breakdown_line, repeat_rounds, time_breakdown
from fwbench.tuning import tuning_of
from runners.matrix.store import ok_runs_under


def load_runs(root: Path, profile: str) -> dict[tuple[str, str], list[dict]]:
    """``ok`` runs of ``profile`` under ``root``, grouped by (machine id, tuning label)."""
    groups = defaultdict(list)
    for record in ok_runs_under(root, profile):
        tuning = tuning_of(record)
        label = f"tuned: {tuning}" if tuning else "out of the box"
        groups[(record["hardware"]["machine_id"], label)].append(record)
    return groups


def framework_spans(records: list[dict]) -> dict[str, list[dict]]:
    """``records`` grouped by framework."""
    by_framework = defaultdict(list)
    for record in records:
        by_framework[record["framework"]["name"]].append(record)
    return by_framework


def repeat_lines(records: list[dict], most: float) -> list[str]:
    """One line per repeat round of ``records``: its runs' time against their first runs', whether the ratio is at
    most ``most``, the ratio of its training steps alone, and the floor no harness passes (``repeat_rounds``)."""
    lines = []
    for repeat, round_ in repeat_rounds(records).items():
        ratio = round_["seconds"] / round_["first_seconds"]
        floor = round_["uncompiled_seconds"] / round_["first_steps_seconds"]
        lines.append(
            f"  repeat {repeat:<4} {round_['runs']} runs ({round_['warm']} warm) {round_['seconds']:.0f} s against "
            f"{round_['first_seconds']:.0f} s for their first runs  →  {ratio:.2f} × "
            f"({'at most' if ratio <= most else 'above'} {most:g}); its training steps alone "
            f"{round_['steps_seconds']:.0f} s  →  {round_['steps_seconds'] / round_['first_seconds']:.2f} ×; "
            f"floor {floor:.2f} × ({'a harness could meet' if floor <= most else 'no harness meets'} {most:g}: "
            f"{round_['uncompiled_seconds']:.0f} s of steps without compile against "
            f"{round_['first_steps_seconds']:.0f} s with the cold compile)"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the breakdown of each machine's and tuning's runs; exit 1 when there are none."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_records_arguments(parser, "runs")
    parser.add_argument(
        "--budget",
        type=positive_float,
        default=720,
        help="budget in seconds (default 720: the 12 minutes make site's matrix had before its deadline)",
    )
    parser.add_argument(
        "--repeat-ratio",
        type=positive_float,
        default=0.6,
        help="the most a repeat round (warm caches) may cost against its first round (default 0.6)",
    )
    args = parser.parse_args(argv)
    groups = load_runs(args.results, args.profile)
    if not groups:
        print(f"no ok {args.profile} runs under {args.results}", file=sys.stderr)
        return EXIT_FAILURE
    spans = {}
    for (machine, label), records in sorted(groups.items()):
        print(f"{machine} · {label} · {len(records)} runs")
        for framework, runs in framework_spans(records).items():
            breakdown = time_breakdown(runs)
            # frameworks are interleaved: a framework's own share is the time inside its runs, not a span
            spans[machine, label, framework] = breakdown["run_s"]
            print(f"  {framework:<11} {breakdown_line(breakdown, within_runs=True)}")
        total = time_breakdown(records)
        spans[machine, label, None] = total["span_s"]
        print(
            f"  {'all':<11} {breakdown_line(total)}  →  {total['span_s'] / args.budget:.2f} × the "
            f"{args.budget:g} s budget"
        )
        for line in repeat_lines(records, args.repeat_ratio):
            print(line)
    for (machine, label, framework), span in spans.items():
        plain = (machine, "out of the box")
        if label != plain[1] and framework and (*plain, framework) in spans and (*plain, None) in spans:
            projected = spans[(*plain, None)] - spans[(*plain, framework)] + span
            print(
                f"{machine}: out of the box with {framework}'s runs {label}: {projected:.0f} s (projected) →  "
                f"{projected / args.budget:.2f} × the budget"
            )
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
