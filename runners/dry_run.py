"""Dry runs: ``runners run --dry-run-child`` (and ``runners matrix --dry-run-child``, which passes it on to every run)
write a configuration's record without training it, to measure and test what carries configurations to machines (the
matrix's executors), never a framework. ``runners matrix --dry-run`` and ``runners run --dry-run`` are another thing:
they print the plan and run nothing (``runners.plan_preview``).

A dry-run record cannot pass for a measurement: its status is ``error`` and its failure type ``DryRun``, so no
table, chart or verdict counts it, and it has no timing, memory or accuracy. It also stays out of ``results/``, which
the site is built from: a dry run refuses an output directory there.
"""

from __future__ import annotations

from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.timestamps import utc_now
from runners import provenance
from runners.profiles import RunConfig
from runners.record import failed_record

DRY_RUN_FAILURE = "DryRun"
DRY_RUN_MESSAGE = "dry run: nothing was trained or measured (a test of the matrix's executors, not a result)"


def dry_run_record(config: RunConfig, run_order: dict | None = None) -> dict:
    """The record of ``config`` on this machine, dry: status error, failure type ``DryRun``."""
    return failed_record(
        config,
        provenance.hardware_for(config.device),
        utc_now(),
        "error",
        DRY_RUN_FAILURE,
        DRY_RUN_MESSAGE,
        run_order=run_order,
    )


def refuse_results_dir(out: Path, flag: str = "--out") -> None:
    """UsageError naming ``flag`` when ``out`` lies in a ``results/`` the site is built from (the repository's, or
    the one in the current directory, where the commands write by default)."""
    target = out.resolve()
    for results in {(provenance.REPO_ROOT / "results").resolve(), Path("results").resolve()}:
        if target == results or results in target.parents:
            raise UsageError(
                f"{flag} {out}: a dry run writes no record under {results}, which the site is built "
                "from; give a directory elsewhere"
            )
