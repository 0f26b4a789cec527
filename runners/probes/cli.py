"""``runners probes``: run the planted-bug probes, write one record per probe and print a summary table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabulate import tabulate
from tqdm import tqdm

from fwbench.cliargs import EXIT_OK, add_frameworks_flag, csv_of, ensure_writable, examples, positive_float
from fwbench.progress import progress_bar
from fwbench.records import write_record
from fwbench.timestamps import utc_now
from runners import provenance
from runners.probes.capture import DEFAULT_TIMEOUT_S, run_child
from runners.probes.catalog import BUGS, FRAMEWORKS, MODES, ProbeSpec, all_specs
from runners.probes.record import build_record

DEFAULT_OUT = Path("results/probes")
TOOLING_CHOICES = {"on": True, "off": False}


def chosen(values: list[str] | None, allowed: tuple) -> tuple:
    """The values of a filter in ``allowed``'s order; all of ``allowed`` when the filter was not given."""
    return tuple(a for a in allowed if not values or a in values)


def selected_specs(args: argparse.Namespace) -> list[ProbeSpec]:
    """The probes the filters select."""
    return all_specs(
        frameworks=chosen(args.frameworks, FRAMEWORKS),
        bugs=chosen(args.bug, BUGS),
        modes=chosen(args.mode, MODES),
        tooling=tuple(TOOLING_CHOICES[t] for t in chosen(args.tooling, tuple(TOOLING_CHOICES))),
    )


def run_probes(
    specs: list[ProbeSpec], out: Path, timeout_s: float = DEFAULT_TIMEOUT_S, progress: bool = True
) -> list[dict]:
    """Run each probe in its own subprocess and write its record to ``out/<machine_id>/<record_id>.json``.

    One line per probe goes to stderr; the bar (``progress``) only on a terminal.
    """
    machine_id = provenance.hardware_info()["machine_id"]
    software = provenance.software_info()
    records = []
    bar = progress_bar(specs, enabled=progress, desc="probes", unit="probe")
    for number, spec in enumerate(bar, 1):
        bar.set_postfix_str(spec.label)
        started_at = utc_now()
        capture = run_child(spec, timeout_s)
        record = build_record(
            spec, capture, machine_id=machine_id, software=software, started_at=started_at, finished_at=utc_now()
        )
        write_record(out / machine_id / f"{spec.record_id}.json", record)
        records.append(record)
        tqdm.write(f"[{number}/{len(specs)}] {spec.label}: {record['outcome']}", file=sys.stderr)
    return records


def _flag(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"


def summary_table(records: list[dict]) -> str:
    """A plain-text table: one row per record, the fields the site's debuggability table shows."""
    header = (
        "bug",
        "framework",
        "mode",
        "tooling",
        "outcome",
        "exception",
        "line",
        "shapes",
        "layer",
        "tb lines",
        "s to error",
        "score",
    )
    rows = []
    for r in records:
        rows.append(
            (
                r["bug"],
                r["framework"]["name"],
                r["framework"]["mode"],
                _flag(r["tooling"]),
                r["outcome"],
                (r["exception_type"] or "-").rsplit(".", 1)[-1],
                _flag(r["points_to_line"]),
                _flag(r["names_shapes"]),
                _flag(r["names_layer"]),
                "-" if r["traceback_lines"] is None else str(r["traceback_lines"]),
                "-" if r["seconds_to_error"] is None else f"{r['seconds_to_error']:.2f}",
                f"{r['score']['total']:g}/{r['score']['max']:g}",
            )
        )
    return tabulate(rows, headers=header, disable_numparse=True)


def cmd_probes(args: argparse.Namespace) -> int:
    """Run the selected probes, write their records and print the summary table."""
    ensure_writable(args.out)
    records = run_probes(selected_specs(args), args.out, args.timeout, progress=not args.no_progress)
    print(summary_table(records))
    if records:
        print(f"\n{len(records)} records written under {args.out / records[0]['machine_id']}")
    return EXIT_OK


def register(subparsers) -> None:
    """Add the ``probes`` subcommand to the ``runners`` CLI."""
    parser = subparsers.add_parser(
        "probes",
        help="run planted bugs in each framework and record their real error messages",
        description=(
            "Plant four bugs (a dense layer with the wrong input width, float64 data into a float32 model, "
            "logits/labels shape mismatch in the loss, a NaN with the framework's NaN tooling on and off) in "
            "tiny PyTorch, TensorFlow/Keras and JAX/Flax programs, run each in eager and compiled mode in a "
            "fresh subprocess on the CPU, and write one fwbench.probe/1 record per probe with the "
            "framework's verbatim error, its traceback and a debuggability score. Filters take repeated or "
            "comma-separated values."
        ),
        **examples("runners probes", "runners probes --frameworks torch,jax --bug nan --tooling on"),
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"directory for the records, one subfolder per machine (default: {DEFAULT_OUT})",
    )
    add_frameworks_flag(parser, old_spellings=("--framework",))
    parser.add_argument(
        "--bug",
        action="extend",
        type=csv_of(str, BUGS),
        metavar="BUG",
        help=f"only these bugs: {', '.join(BUGS)} (default: all)",
    )
    parser.add_argument(
        "--mode",
        action="extend",
        type=csv_of(str, MODES),
        metavar="MODE",
        help=f"only these modes: {', '.join(MODES)} (default: all)",
    )
    parser.add_argument(
        "--tooling",
        action="extend",
        type=csv_of(str, tuple(TOOLING_CHOICES)),
        metavar="ON_OFF",
        help="NaN probe only: run with the framework's NaN tooling on, off (default: both)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"stop a probe after this many seconds and record it as a timeout (default: {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=cmd_probes)
