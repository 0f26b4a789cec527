"""The kit's result as text (``accelerator_kit.txt``): the runs' figures, the forward parity, every check, the
frameworks skipped and the tally."""

from __future__ import annotations

from fwbench.records import throughput
from runners.kit.checks import Check, mib
from runners.measure.profiles import RunConfig


def table(header: list[str], rows: list[list[str]], right: tuple[int, ...] = ()) -> str:
    """Plain-text columns, those in ``right`` (the figures) right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def run_row(config: RunConfig, record: dict | str) -> list[str]:
    """One run's figures for the table (— where a figure is unknown)."""
    head = [f"{config.profile} {config.framework}", config.mode, str(config.batch_size), config.precision]
    if isinstance(record, str) or record["status"] != "ok":
        return head + [record if isinstance(record, str) else record["status"]] + ["—"] * 6
    timing, memory, mfu = record["timing"], record["memory"], (record.get("mfu") or {}).get("value")
    rate, unit = throughput(timing)
    return head + [
        "ok",
        f"{rate:,.0f} {unit}",
        f"{timing['compile_seconds']:.1f}",
        f"{timing['step_seconds_median'] * 1e3:.2f}",
        mib(memory["allocator_peak_bytes"]),
        mib(memory["nvml_process_peak_bytes"]),
        "—" if mfu is None else f"{mfu:.3f}",
    ]


RUN_HEADER = [
    "profile framework",
    "mode",
    "batch",
    "precision",
    "status",
    "throughput",
    "compile s",
    "step ms",
    "allocator peak",
    "NVML peak",
    "MFU",
]


def report(
    runs: list[tuple[RunConfig, dict | str]],
    parity_rows: list[dict],
    checks: list[Check],
    skipped: dict[str, str],
    device: str,
) -> str:
    """The kit's whole result as text: runs, parity figures, checks, skipped frameworks and the tally."""
    parts = [f"runs on the {device}", table(RUN_HEADER, [run_row(c, r) for c, r in runs], (2, 5, 6, 7, 8, 9, 10))]
    if parity_rows:
        parts += [
            f"\nfloat32 forward parity on the {device} (max |a - b| / max |b|)",
            table(
                ["pair", "logits.train", "logits.eval", "bound"],
                [
                    [r["pair"], f"{r['logits.train']:.2e}", f"{r['logits.eval']:.2e}", f"{r['bound']:.0e}"]
                    for r in parity_rows
                ],
                (1, 2, 3),
            ),
        ]
    parts += [
        "\nchecks",
        table(["outcome", "check", "subject", "detail"], [[c.outcome, c.name, c.subject, c.detail] for c in checks]),
    ]
    parts += [f"skipped: {name} ({why})" for name, why in skipped.items()]
    tally = {label: sum(c.outcome == label for c in checks) for label in ("pass", "FAIL", "n/a")}
    parts.append(f"accelerator_kit: {tally['pass']} passed, {tally['FAIL']} failed, {tally['n/a']} not applicable")
    return "\n".join(parts)
