"""How far a machine's speed moved between sittings, from its run records: the day drift that the lone rule guards.

Usage: .venv/bin/python benchmarks/sitting_drift.py [RESULTS_DIR]   (default results; its runs/ are read)

A row is one machine, setting, mode and batch size, as a results table has it; a sitting is a stretch of its runs
less than an hour apart (``fwbench.sittings``). For each row whose runs (ok, neither busy nor older, of the newest
timing protocol) fall in two sittings or more: each framework's runs and mean throughput per sitting, the ratio of a
later sitting's mean to the framework's first, and whether the frameworks' runs are spread over the sittings in the
same shares. Where they are not, the pooled figures the site compares carry some of the drift: a framework measured
mostly on a slower day looks slower. Last, the range of the ratios over every row: how much the same configuration
moved between sittings on these machines.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, existing_directory
from fwbench.records import throughput
from fwbench.sittings import sittings, unequal_shares
from generator.records.aggregate import Summary, summarise
from generator.records.flags import by_row, unflagged
from generator.records.load import load_results


def judged_runs(summary: Summary) -> list[dict]:
    """A configuration's runs that a verdict could take by their own record: ok, neither busy nor older."""
    return unflagged([r.record for r in summary.runs if r.record["status"] == "ok"])


def mean(values: list[float]) -> float:
    """The mean of ``values`` (not empty)."""
    return sum(values) / len(values)


def row_lines(row: list[Summary]) -> tuple[list[str], list[float]]:
    """The lines of one row with two sittings or more (none otherwise), and each framework's later sittings' mean
    throughput against its first sitting's."""
    columns = [judged_runs(s) for s in row]
    found = sittings(columns)
    if len(found) < 2:
        return [], []
    gaps = [
        datetime.fromisoformat(columns[later[0][0]][later[0][1]]["started_at"])
        - max(datetime.fromisoformat(columns[side][index]["finished_at"]) for side, index in earlier)
        for earlier, later in zip(found, found[1:], strict=False)
    ]
    key = row[0].key
    apart = ", ".join(f"{gap.total_seconds() / 3600:.1f} h" for gap in gaps)
    row_name = f"{key.machine_id} · {key.setting.label} · {key.mode} · bs {key.batch_size}"
    lines = [f"{row_name}: {len(found)} sittings, {apart} apart"]
    ratios, counts = [], {}
    for side, summary in enumerate(row):
        per_sitting = [[columns[s][i] for s, i in sitting if s == side] for sitting in found]
        rates = [mean([throughput(r["timing"])[0] for r in runs]) if runs else None for runs in per_sitting]
        first = next((k for k, rate in enumerate(rates) if rate is not None), None)
        moved = [rate / rates[first] for rate in rates[first + 1 :] if rate is not None] if first is not None else []
        ratios += moved
        name = f"{summary.key.framework} {summary.key.version}"
        counts[name] = [len(runs) for runs in per_sitting]
        cells = " | ".join(
            f"{len(runs)} × {rate:.1f}" if runs else "—" for runs, rate in zip(per_sitting, rates, strict=True)
        )
        said = f"  →  {', '.join(f'{r:.2f} ×' for r in moved)} its first sitting's" if moved else ""
        lines.append(f"  {name:<18} {cells}{said}")
    spread_text = "; ".join(f"{name} {'+'.join(map(str, spread))}" for name, spread in counts.items())
    lines.append(
        f"  runs per sitting: {spread_text}: "
        + (
            "unequal shares: the pooled figures carry part of whatever moved between the sittings"
            if unequal_shares(list(counts.values()))
            else "equal shares"
        )
    )
    return lines, ratios


def main(argv: list[str] | None = None) -> int:
    """Print each row with several sittings and the range of the drift; exit 1 when no row has runs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "results", nargs="?", type=existing_directory, default=Path("results"), help="a results folder (runs/ in it)"
    )
    args = parser.parse_args(argv)
    rows = [[s for s in row if not s.superseded] for row in by_row(summarise(load_results(args.results).runs)).values()]
    rows = [row for row in rows if row]  # an older timing protocol's rows are never judged
    if not rows:
        print(f"no run records under {args.results / 'runs'}", file=sys.stderr)
        return EXIT_FAILURE
    several, ratios = 0, []
    for row in rows:
        lines, moved = row_lines(row)
        several += bool(lines)
        ratios += moved
        for line in lines:
            print(line)
    rows_text = f"{len(rows)} row{'s' if len(rows) > 1 else ''}"
    summary = f"{rows_text}: {len(rows) - several} in one sitting, {several} in several"
    if ratios:
        summary += f"; a framework's later sitting against its first: {min(ratios):.2f}–{max(ratios):.2f} ×"
    print(summary)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
