"""The matrix's summary: a table of what became of each run, the counts, each node's share, the time, why the matrix
stopped and each comparison.

``report`` is what ``runners matrix`` prints once its runs are over; ``status_words`` also names each run's end in the
matrix's progress lines.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from pathlib import Path

from tabulate import tabulate

from fwbench.records import throughput
from fwbench.time_breakdown import breakdown_line, time_breakdown
from runners.matrix.outcome import Outcome, Result
from runners.measure.machine_load import judged_share


def report(outcome: Outcome, out: Path) -> list[str]:
    """The summary's lines: the table, how many ended ok, failed or were skipped, each node's share (on a cluster),
    where the time of the runs made now went (when they ran one after the other); last, why the matrix stopped and
    each comparison (``closing_lines``)."""
    results = outcome.results
    records = [r.record for r in results if r.record]
    failed = [r for r in records if r["status"] != "ok"]
    configurations = len({r.config.config_id for r in results})
    counted = f"{configurations} configuration{'s' if configurations != 1 else ''}"
    if len(results) != configurations:
        counted = f"{len(results)} runs of {counted}"
    lines = [
        summary_table(results),
        f"{counted}: {len(records) - len(failed)} ok, {len(failed)} failed, "
        f"{len(results) - len(records)} skipped; records in {out}",
        *node_lines(results),
    ]
    ran = [r.record for r in results if r.record and not r.note]  # not the resumed: their time was spent before
    if ran and not side_by_side(ran):  # the breakdown adds up the time of runs made one after the other
        lines.append(f"time of the runs made now: {breakdown_line(time_breakdown(ran))}")
    return lines + closing_lines(outcome)


def closing_lines(outcome: Outcome) -> list[str]:
    """Why the matrix stopped, then each comparison on a line: ``bs 32: PyTorch ahead of TensorFlow 1.31×
    (1.18–1.45×) at n = 3 in this sitting; replicate on another boot or machine``,
    after its machine's label when there are several matrices, with the mode when there are several; an end not
    started says why (``bs 256: not started: 3 rounds need ≈ 17 min, 6 min left``)."""
    lines = [f"stopped: {outcome.stop.reason}: {outcome.stop.detail}"]
    for target, found in outcome.comparisons:
        prefix = f"{target.label}: " if len(outcome.comparisons) > 1 else ""
        with_mode = len({c.mode for c in found}) > 1
        for comparison in found:
            held = outcome.not_started.get((target, comparison.batch_size, comparison.precision))
            line = (
                f"{comparison.where(with_mode)}: {held}"
                if held
                else comparison.line(outcome.stop.undecided_tag, with_mode)
            )
            lines.append(prefix + line)
    return lines


def status_words(record: dict) -> str:
    """A record's status in a few words: ``ok`` or its status and failure type."""
    failure = record.get("failure") or {}
    return record["status"] if record["status"] == "ok" else f"{record['status']} ({failure.get('exception_type')})"


def busy_note(record: dict) -> str:
    """Why an ok run does not count, where its machine was busy (``load.busy``): how much of the CPUs other processes
    took, against the limit; "" otherwise."""
    load = record.get("load") or {}
    if record["status"] != "ok" or not load.get("busy"):
        return ""
    taken = judged_share(load["start"], load["end"], load.get("during_clock"))
    return (
        f"the machine was busy (other processes took {taken:.0f} % of the CPUs, above "
        f"{load['threshold_cpu_percent']:g} %): shown, not judged"
    )


def machine_of(record: dict | None) -> str:
    """The machine id a record carries ("—" for none)."""
    return ((record or {}).get("hardware") or {}).get("machine_id") or "—"


def summary_table(results: list[Result]) -> str:
    """A plain-text table of the matrix: version, status, seconds per epoch, images/s (the GPT's tokens/s), peak
    memory; and the machine, when the records come from several. The seed column names a repeat too (``0 r1``)."""
    several = len({machine_of(r.record) for r in results if r.record}) > 1
    rates = [throughput((r.record or {}).get("timing") or {}) for r in results]
    unit = next((unit for rate, unit in rates if rate is not None), "img/s")  # a matrix trains one workload
    headers = ["framework", "version", "mode", "batch", "seed", "status", "s/epoch", unit, "peak MiB", "compile s"]
    rows = []
    for config, record, note, *_ in results:
        timing, memory = (record or {}).get("timing") or {}, (record or {}).get("memory") or {}
        peak = (
            memory.get("allocator_peak_bytes")
            or memory.get("nvml_process_peak_bytes")
            or memory.get("host_peak_rss_bytes")
        )
        why = note or ((record or {}).get("failure") or {}).get("message") or (busy_note(record) if record else "")
        row = [
            config.framework,
            config.framework_version or "—",
            config.mode,
            str(config.batch_size),
            f"{config.seed} r{config.repeat}" if config.repeat else str(config.seed),
            record["status"] if record else "skipped",
            number(timing.get("epoch_seconds"), 2),
            number(throughput(timing)[0], 1),
            number(peak / 2**20 if peak else None, 0),
            number(timing.get("compile_seconds"), 1),
            why[:120],
        ]
        rows.append([machine_of(record), *row] if several else row)
    align = ["left"] * 3 + ["right"] * 2 + ["left"] + ["right"] * 4 + ["left"]
    return tabulate(
        rows,
        headers=(["machine"] if several else []) + headers + ["note"],
        colalign=(["left"] if several else []) + align,
        disable_numparse=True,
    )


def number(value: float | None, decimals: int) -> str:
    """A table cell: ``value`` with ``decimals`` decimals, or — when there is none."""
    return "—" if value is None else f"{value:.{decimals}f}"


def side_by_side(records: list[dict]) -> bool:
    """Whether any two of ``records`` ran at the same time (on a cluster's nodes)."""
    spans = sorted((r["started_at"], r["finished_at"]) for r in records)
    return any(later[0] < earlier[1] for earlier, later in pairwise(spans))


def node_lines(results: list[Result]) -> list[str]:
    """One line per node that ran configurations now: how many, how they ended, and its busy time."""
    by_node = defaultdict(list)
    for result in results:
        if result.where and result.record and not result.note:
            by_node[result.where].append(result)
    lines = []
    for where, ran in sorted(by_node.items()):
        ok = sum(1 for r in ran if r.record["status"] == "ok")
        lines.append(
            f"node {where}: ran {len(ran)} ({ok} ok, {len(ran) - ok} failed) in {sum(r.seconds for r in ran):.0f} s"
        )
    return lines
