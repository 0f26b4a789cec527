"""``runners probes``: run the planted-bug probes, write one record per probe and print a summary table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabulate import tabulate
from tqdm import tqdm

from fwbench.cliargs import (
    EXIT_OK,
    UsageError,
    add_frameworks_flag,
    csv_of,
    ensure_writable,
    examples,
    positive_float,
)
from fwbench.progress import progress_bar
from fwbench.records import stored_record, write_record
from fwbench.timestamps import utc_now
from runners.measure import provenance
from runners.measure.output_lock import output_lock
from runners.probes.capture import DEFAULT_TIMEOUT_S, ProbeProcesses
from runners.probes.catalog import BUGS, FRAMEWORKS, MODES, ProbeSpec, all_specs, planted_line
from runners.probes.record import SCHEMA, build_record, installed_version
from runners.probes.rubric import RUBRIC_TEXT
from runners.probes.versions import Interpreter, build_interpreters, check_versions, requested_versions

DEFAULT_OUT = Path("results/probes")
TOOLING_CHOICES = {"on": True, "off": False}
#: the one bug whose probes run with the framework's NaN tooling on and off (``--tooling``)
TOOLING_BUG = "nan"


def chosen(values: list[str] | None, allowed: tuple) -> tuple:
    """The values of a filter in ``allowed``'s order; all of ``allowed`` when the filter was not given."""
    return tuple(a for a in allowed if not values or a in values)


def selected_specs(args: argparse.Namespace, versions: dict[str, list[str | None]] | None = None) -> list[ProbeSpec]:
    """The probes the filters select, of the ``versions`` of each framework (default the installed ones)."""
    return all_specs(
        frameworks=chosen(args.frameworks, FRAMEWORKS),
        bugs=chosen(args.bug, BUGS),
        modes=chosen(args.mode, MODES),
        tooling=tuple(TOOLING_CHOICES[t] for t in chosen(args.tooling, tuple(TOOLING_CHOICES))),
        versions=versions,
    )


def up_to_date(path: Path, spec: ProbeSpec, software: dict) -> dict | None:
    """The record at ``path`` when ``spec`` need not run again: a valid record made with the framework release that
    would run it now (``software``: this interpreter's provenance), of the same planted line, scored by the same
    rubric, compiled into an empty cache; None otherwise (no record, another release, an edited probe program, a
    changed rubric, an older record that compiled into the machine's shared cache)."""
    record = stored_record(path, SCHEMA)
    if record is None:
        return None
    release = spec.version or installed_version(spec.framework, software)
    same = (
        installed_version(spec.framework, record["software"]) == release
        and record["planted"]["line"] == planted_line(spec.framework, spec.bug)
        and record["score"]["rubric"] == RUBRIC_TEXT
        and record.get("compile_cache") == "cold"
    )
    return record if same else None


def run_probes(
    specs: list[ProbeSpec],
    out: Path,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: bool = True,
    interpreters: dict[tuple[str, str | None], Interpreter] | None = None,
    force: bool = False,
) -> list[dict]:
    """Run each probe in a process of its own (capture.ProbeProcesses) and write its record to
    ``out/<machine_id>/<record_id>.json``; a probe whose record there is ``up_to_date`` is kept as it is, unless
    ``force``.

    A probe of another version runs in the interpreter ``interpreters`` gives its (framework, version), else in
    this one. One line per probe goes to stderr; the bar (``progress``) only on a terminal.
    """
    machine_id = provenance.hardware_info()["machine_id"]
    software = provenance.software_info()
    records = []
    bar = progress_bar(specs, enabled=progress, desc="probes", unit="probe")
    with ProbeProcesses(timeout_s) as processes:
        for number, spec in enumerate(bar, 1):
            bar.set_postfix_str(spec.label)
            path = out / machine_id / f"{spec.record_id}.json"
            if not force and (kept := up_to_date(path, spec, software)):
                records.append(kept)
                line = f"[{number}/{len(specs)}] {spec.label}: {kept['outcome']} (done before, kept)"
                tqdm.write(line, file=sys.stderr)
                continue
            started_at = utc_now()
            where = (interpreters or {}).get((spec.framework, spec.version), Interpreter())
            capture = processes.run(spec, where.python)
            record = build_record(
                spec,
                capture,
                machine_id=machine_id,
                software=software,
                started_at=started_at,
                finished_at=utc_now(),
                environment=where.environment,
            )
            write_record(path, record)
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
        "version",
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
                r["framework"]["version"] or "-",
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
    if args.tooling and args.bug and TOOLING_BUG not in args.bug:  # the filter would select no probe of its own
        raise UsageError(
            f"--tooling {','.join(args.tooling)}: only the {TOOLING_BUG} bug's probes run with NaN tooling on or off; "
            f"--bug {','.join(args.bug)} selects none of them"
        )
    checked = check_versions(requested_versions(args.versions, chosen(args.frameworks, FRAMEWORKS)))
    ensure_writable(args.out)
    versions, interpreters = build_interpreters(checked, log=lambda line: print(line, file=sys.stderr, flush=True))
    specs = selected_specs(args, versions)
    with output_lock(args.out):  # one writer per folder (runners.measure.output_lock)
        records = run_probes(
            specs, args.out, args.timeout, progress=not args.no_progress, interpreters=interpreters, force=args.force
        )
    print(summary_table(records))
    if records:
        print(f"\n{len(records)} records under {args.out / records[0]['machine_id']}")
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
            "process of its own on the CPU (on Linux a fork of one that imported the framework once), and "
            "write one fwbench.probe/1 record per probe with the "
            "framework's verbatim error, its traceback and a debuggability score; a probe whose record there was "
            "made with the same framework release, probe program and rubric, each probe compiling into an empty cache "
            "of its own, is kept (--force runs it again). "
            "Filters take repeated or "
            "comma-separated values. --versions article probes the article's releases (PyTorch 2.2.1, TensorFlow "
            "2.15 with its own Keras 2.15, JAX 0.4.26) in environments of their own, built first (runners envs); "
            "their records carry the version in their id, beside today's."
        ),
        **examples(
            "runners probes",
            "runners probes --frameworks torch,jax --bug nan --tooling on",
            "runners probes --versions article",
            "runners probes --versions torch=2.2.1,2.5.0 --frameworks torch",
        ),
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
        help=f"{TOOLING_BUG} bug only: its probes with the framework's NaN tooling on, off (default: both; with --bug, "
        f"only where it includes {TOOLING_BUG})",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"stop a probe after this many seconds and record it as a timeout (default: {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--versions",
        action="append",
        metavar="VERSIONS",
        help="framework versions to probe (repeatable): installed (default) or article for every framework "
        "selected, or FRAMEWORK=V1,V2 for one; a version other than the installed one runs in its environment "
        "(the article's own install: TensorFlow 2.15 with Keras 2.15)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="run every probe again, also those whose record was made with the same framework release, probe "
        "program and rubric (by default kept as they are)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=cmd_probes)
