"""How far a machine's speed, and the gap between two frameworks on it, moved between sittings, from its run records:
the drift that makes a sitting the unit that replicates a verdict (``fwbench.decision``).

Usage: .venv/bin/python benchmarks/sitting_drift.py [RESULTS_DIR]   (default results; its runs/ are read)

A row is one machine, setting, mode and batch size, as a results table has it; a sitting is a stretch of its runs
less than an hour apart on one boot (``fwbench.sittings``). For each row whose runs that count (``Summary.judged``:
ok, neither busy nor older, of the newest timing protocol) fall in two sittings or more: each framework's runs and
mean throughput per sitting with a later sitting's mean against the framework's first, then for each two frameworks
the ratio of their means per sitting with a later sitting's ratio against their first shared one. Last, the range of
both over every row: how much the same configuration, and the gap between two, moved between sittings on these
machines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from datetime import datetime
from itertools import combinations
from pathlib import Path

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, existing_directory
from fwbench.records import throughput
from fwbench.sittings import sittings
from generator.records.aggregate import Summary, summarise
from generator.records.load import load_results


def by_row(summaries: Iterable[Summary]) -> list[list[Summary]]:
    """Configurations' summaries by row (machine, setting, mode and batch size: what one table row compares), each
    with only the configurations that have runs that count."""
    rows: dict[tuple, list[Summary]] = {}
    for s in summaries:
        if s.judged:
            rows.setdefault((s.key.machine_id, s.key.setting, s.key.mode, s.key.batch_size), []).append(s)
    return list(rows.values())


def mean(values: list[float]) -> float:
    """The mean of ``values`` (not empty)."""
    return sum(values) / len(values)


def against_first(values: list[float | None]) -> list[float]:
    """Each known value after the first known one, divided by that first one."""
    known = [value for value in values if value is not None]
    return [value / known[0] for value in known[1:]]


def moved_text(moved: list[float], first: str) -> str:
    """``  →  1.08 ×, 0.95 × <first>``: the moves against the first, or nothing where nothing moved."""
    return f"  →  {', '.join(f'{r:.2f} ×' for r in moved)} {first}" if moved else ""


def row_lines(row: list[Summary]) -> tuple[list[str], list[float], list[float]]:
    """The lines of one row with two sittings or more (none otherwise), each framework's later sittings' mean
    throughput against its first sitting's, and each two frameworks' later gaps against their first shared one."""
    columns = [s.judged for s in row]
    found = sittings(columns)
    if len(found) < 2:
        return [], [], []
    gaps = [
        datetime.fromisoformat(columns[later[0][0]][later[0][1]]["started_at"])
        - max(datetime.fromisoformat(columns[side][index]["finished_at"]) for side, index in earlier)
        for earlier, later in zip(found, found[1:], strict=False)
    ]
    key = row[0].key
    apart = ", ".join(f"{gap.total_seconds() / 3600:.1f} h" for gap in gaps)
    lines = [
        f"{key.machine_id} · {key.setting.label} · {key.mode} · bs {key.batch_size}: {len(found)} sittings, "
        f"{apart} apart"
    ]
    names = [f"{s.key.framework} {s.key.version}" for s in row]
    rates: list[list[float | None]] = []
    speeds: list[float] = []
    for side, name in enumerate(names):
        per_sitting = [[columns[s][i] for s, i in sitting if s == side] for sitting in found]
        rates.append([mean([throughput(r["timing"])[0] for r in runs]) if runs else None for runs in per_sitting])
        moved = against_first(rates[side])
        speeds += moved
        cells = " | ".join(
            f"{len(runs)} × {rate:.1f}" if runs else "—" for runs, rate in zip(per_sitting, rates[side], strict=True)
        )
        said = moved_text(moved, "its first sitting's")
        lines.append(f"  {name:<18} {cells}{said}")
    gap_moves: list[float] = []
    for a, b in combinations(range(len(row)), 2):
        ratios = [x / y if x and y else None for x, y in zip(rates[a], rates[b], strict=True)]
        if sum(ratio is not None for ratio in ratios) < 2:
            continue  # the two never shared a second sitting: no gap moved
        moved = against_first(ratios)
        gap_moves += moved
        cells = " | ".join(f"{ratio:.3g}" if ratio else "—" for ratio in ratios)
        pair = f"{names[a]} ÷ {names[b]}"
        said = moved_text(moved, "their first shared sitting's")
        lines.append(f"  {pair:<36} {cells}{said}")
    return lines, speeds, gap_moves


def spread(values: list[float]) -> str:
    """``0.67–1.12 ×``."""
    return f"{min(values):.2f}–{max(values):.2f} ×"


def main(argv: list[str] | None = None) -> int:
    """Print each row with several sittings and the range of the drift; exit 1 when no row has runs that count."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "results", nargs="?", type=existing_directory, default=Path("results"), help="a results folder (runs/ in it)"
    )
    args = parser.parse_args(argv)
    rows = by_row(summarise(load_results(args.results).runs))
    if not rows:
        print(f"no run records that count under {args.results / 'runs'}", file=sys.stderr)
        return EXIT_FAILURE
    several, speeds, gaps = 0, [], []
    for row in rows:
        lines, speed_moves, gap_moves = row_lines(row)
        several += bool(lines)
        speeds += speed_moves
        gaps += gap_moves
        for line in lines:
            print(line)
    rows_text = f"{len(rows)} row{'s' if len(rows) > 1 else ''}"
    summary = f"{rows_text}: {len(rows) - several} in one sitting, {several} in several"
    if speeds:
        summary += f"; a framework's later sitting against its first: {spread(speeds)}"
    if gaps:
        summary += f"; a gap between two frameworks, later sitting against their first shared one: {spread(gaps)}"
    print(summary)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
