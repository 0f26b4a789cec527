"""Placeholder records: ``runners run --placeholder-record`` (and ``runners matrix --placeholder-record``, which passes
it on to every run) writes a configuration's record without training it, to measure and test what carries
configurations to machines (the matrix's executors), never a framework. (The dry runs, ``--dry-run``, print the plan
and run nothing: ``runners.matrix.plan_preview``.)

A placeholder record cannot pass for a measurement: its status is ``error`` and its failure type
``PlaceholderRecord``, so no table, chart or verdict counts it, and it has no timing, memory or accuracy. It also
stays out of ``results/``, which the site is built from: it refuses an output directory there.
"""

from __future__ import annotations

from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.timestamps import utc_now
from runners.measure import provenance
from runners.measure.profiles import RunConfig
from runners.measure.record import failed_record

PLACEHOLDER_FAILURE = "PlaceholderRecord"
PLACEHOLDER_MESSAGE = (
    "placeholder record: nothing was trained or measured (a test of the matrix's executors, not a result)"
)


def placeholder_record(config: RunConfig, run_order: dict | None = None) -> dict:
    """The record of ``config`` on this machine, a placeholder: status error, failure type ``PlaceholderRecord``."""
    return failed_record(
        config,
        provenance.hardware_for(config.device),
        utc_now(),
        "error",
        PLACEHOLDER_FAILURE,
        PLACEHOLDER_MESSAGE,
        run_order=run_order,
    )


def refuse_results_dir(out: Path, flag: str = "--out") -> None:
    """UsageError naming ``flag`` when ``out`` lies in a ``results/`` the site is built from (the repository's, or
    the one in the current directory, where the commands write by default)."""
    target = out.resolve()
    for results in {(provenance.REPO_ROOT / "results").resolve(), Path("results").resolve()}:
        if target == results or results in target.parents:
            raise UsageError(
                f"{flag} {out}: a placeholder record is never written under {results}, which the site is built "
                "from; give a directory elsewhere"
            )
