"""bf16 (and default) against strict fp32, per framework: images/s and memory, from the run records of a results
directory.

For every machine, framework, mode and batch size that has ok runs at fp32 and at another precision policy, prints the
median images/s of each, their ratio, and the ratio of the memory peaks (the allocator's on a GPU, the process tree's
host peak on a CPU). Busy-flagged runs are left out. A ratio, not a verdict: n is printed beside each figure.

    python benchmarks/precision_ratio.py [--results results/runs] [--precision bf16]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from fwbench.records import RecordError, read_record
from runners.recipe import PRECISION_POLICIES, REFERENCE_PRECISION

#: per device kind, the memory figure a ratio is taken of (the allocator's is null on a CPU)
MEMORY_FIGURE = {"gpu": "allocator_peak_bytes", "cpu": "host_peak_rss_bytes"}


def judged_runs(results: Path) -> list[dict]:
    """The ok, not busy-flagged run records under ``results`` (any depth); unreadable files are skipped."""
    runs = []
    for path in sorted(results.rglob("*.json")):
        try:
            record = read_record(path, kind="fwbench.run/3")
        except RecordError:
            continue
        if record["status"] == "ok" and not (record.get("load") or {}).get("busy"):
            runs.append(record)
    return runs


def median_of(values: list[float | None]) -> tuple[float | None, int]:
    """The median of the known values and how many there were."""
    known = [v for v in values if v is not None]
    return (statistics.median(known) if known else None), len(known)


def ratios(runs: list[dict], policy: str) -> list[dict]:
    """One row per (machine, framework, mode, batch size) that ran at both ``policy`` and fp32 in one setting (the
    same profile, data, framework version and tuning environment: a tuned run never stands in for a plain one):
    medians and ratios."""
    groups: dict[tuple, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for record in runs:
        config = record["config"]
        key = (
            record["hardware"]["machine_id"],
            record["framework"]["name"],
            record["framework"]["mode"],
            config["batch_size"],
            (config["profile"], config["dataset"], record["framework"]["version"]),
            tuple(sorted((config.get("tuning_environment") or {}).items())),
        )
        groups[key][config["precision"]].append(record)
    rows = []
    for (machine, name, mode, batch, _setting, tuning), by_policy in sorted(groups.items()):
        if not (by_policy.get(policy) and by_policy.get(REFERENCE_PRECISION)):
            continue
        figure = MEMORY_FIGURE[by_policy[policy][0]["hardware"]["device_kind"]]
        speed = {p: median_of([r["timing"]["images_per_second"] for r in by_policy[p]]) for p in (policy, "fp32")}
        memory = {p: median_of([r["memory"][figure] for r in by_policy[p]]) for p in (policy, "fp32")}
        rows.append(
            {
                "machine": machine,
                "framework": name,
                "mode": mode,
                "batch_size": batch,
                "speed": speed,
                "memory": memory,
                "memory_figure": figure,
                "tuning": "; ".join(f"{k}={v}" for k, v in tuning),
            }
        )
    return rows


def ratio_text(a: float | None, b: float | None) -> str:
    return "—" if a is None or not b else f"{a / b:.2f}×"


def main(argv: list[str] | None = None) -> int:
    """Print the ratios of ``--precision`` to fp32 for the records under ``--results``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results/runs"), help="run records (default %(default)s)")
    others = [p for p in PRECISION_POLICIES if p != REFERENCE_PRECISION]
    parser.add_argument("--precision", choices=others, default="bf16", help="the policy set beside fp32 (bf16)")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.error(f"--results {args.results}: not a directory")
    rows = ratios(judged_runs(args.results), args.precision)
    if not rows:
        print(f"no machine, framework, mode and batch size with ok runs at both {args.precision} and fp32")
        return 0
    print(f"{args.precision} ÷ fp32, medians of ok runs (n in brackets)")
    for row in rows:
        (fast, n_fast), (slow, n_slow) = row["speed"][args.precision], row["speed"]["fp32"]
        (mem, _), (mem_ref, _) = row["memory"][args.precision], row["memory"]["fp32"]
        print(
            f"{row['machine']} {row['framework']}/{row['mode']} bs{row['batch_size']}: images/s "
            f"{fast:,.1f} (n={n_fast}) vs {slow:,.1f} (n={n_slow}) = {ratio_text(fast, slow)}; "
            f"{row['memory_figure']} {ratio_text(mem, mem_ref)}"
            + (f" (tuned: {row['tuning']})" if row["tuning"] else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
