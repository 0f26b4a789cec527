"""bf16 (and default) against strict fp32, per framework: images/s and memory, from the run records of a results
directory.

For every configuration that ran at fp32 and at another precision policy in one setting otherwise (the same machine,
profile, data, sizes, tuning and timing protocol: ``generator.records.identity.Setting``, which also keeps tuned runs
apart from plain ones), prints the median images/s of each, their ratio, and the ratio of the memory peaks (the
allocator's on a GPU, the process tree's host peak on a CPU). The runs counted are those the site counts
(``generator.records.aggregate.Summary.counted``: busy-flagged and older runs left out where clean ones exist). A
ratio, not a verdict: n is printed beside each figure.

    python benchmarks/precision_ratio.py [--results results] [--precision bf16]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from fwbench.stats import Stats
from generator.records.aggregate import Summary, summarise
from generator.records.load import load_results
from runners.frameworks.precision import PRECISION_POLICIES, REFERENCE_PRECISION

#: per device kind, the memory figure a ratio is taken of (the allocator's is null on a CPU)
MEMORY_FIGURE = {"gpu": "allocator_peak_bytes", "cpu": "host_peak_rss_bytes"}


def pairs(summaries: list[Summary], policy: str) -> list[tuple[Summary, Summary]]:
    """(``policy`` summary, its fp32 twin) for every configuration measured both ways, in the site's order."""
    by_key = {s.key: s for s in summaries}
    found = []
    for summary in summaries:
        if summary.key.setting.precision != policy:
            continue
        setting = dataclasses.replace(summary.key.setting, precision=REFERENCE_PRECISION)
        twin = by_key.get(dataclasses.replace(summary.key, setting=setting))
        if twin is not None and summary.images_per_second and twin.images_per_second:
            found.append((summary, twin))
    return found


def ratio_text(a: Stats | None, b: Stats | None) -> str:
    """``1.69×``: the ratio of two medians, or — where either is unknown."""
    return "—" if a is None or b is None or not b.median else f"{a.median / b.median:.2f}×"


def main(argv: list[str] | None = None) -> int:
    """Print the ratios of ``--precision`` to fp32 for the records under ``--results``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="results root (default %(default)s)")
    others = [p for p in PRECISION_POLICIES if p != REFERENCE_PRECISION]
    parser.add_argument("--precision", choices=others, default="bf16", help="the policy set beside fp32 (bf16)")
    args = parser.parse_args(argv)
    if not (args.results / "runs").is_dir():
        parser.error(f"--results {args.results}: no runs/ folder of run records there")
    found = pairs(summarise(load_results(args.results).runs), args.precision)
    if not found:
        print(f"no configuration with ok runs at both {args.precision} and fp32")
        return 0
    print(f"{args.precision} ÷ fp32, medians of the runs the site counts (n in brackets)")
    for other, fp32 in found:
        key, kind = other.key, other.runs[0].record["hardware"]["device_kind"]
        figure = MEMORY_FIGURE[kind]
        fast, slow = other.images_per_second, fp32.images_per_second
        tuned = f" (tuned: {key.setting.tuning})" if key.setting.tuning else ""
        print(
            f"{key.machine_id} {key.framework}/{key.mode} bs{key.batch_size}: images/s {fast.median:,.1f} "
            f"(n={fast.n}) vs {slow.median:,.1f} (n={slow.n}) = {ratio_text(fast, slow)}; "
            f"{figure} {ratio_text(other.memory(figure), fp32.memory(figure))}{tuned}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
