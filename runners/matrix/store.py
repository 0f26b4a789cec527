"""Storage and resume: where the matrix keeps each record, and which runs an earlier matrix finished.

Records live under ``<out>/<machine id>/<record id>.json`` (``record.record_path``); a repeat's record id ends in
``-r<repeat>`` (``RunConfig.record_id``). A run counts as done when an ``ok`` record of the same framework version
lies under one of its target's machine ids; an unreadable one is run again and replaced atomically. A matrix that
makes a new sitting (``fwbench.sittings``) numbers its rounds after every repeat of the earlier sittings
(``first_repeat``), so that none of them counts as done in it; so does a matrix after a trainer changed (a record's
``harness`` digest not the one its trainer has now): the older trainer's runs are kept, never resumed.
"""

from __future__ import annotations

import functools
import platform
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from fwbench.records import RecordError, read_record, stored_record
from fwbench.sittings import Start, latest_over, sittings
from runners.executors.boundary import Target
from runners.measure.harness import harness
from runners.measure.profiles import RunConfig
from runners.measure.provenance import boot_id
from runners.measure.record import SCHEMA, record_path
from runners.workloads import workload


def completed(config: RunConfig, out: Path, machine_ids: Iterable[str]) -> dict | None:
    """The existing ``ok`` record of ``config`` (this repeat of it) under one of ``machine_ids``, if there is a valid
    one of the same framework version (which the record id's hash holds too)."""
    for machine_id in machine_ids:
        record = readable(record_path(out, machine_id, config), config)
        if record and record["status"] == "ok":
            return record
    return None


def run_paths(config: RunConfig, folder: Path) -> list[Path]:
    """The record files of every run of ``config`` (the first run, then each repeat's) in one machine's ``folder``."""
    return [
        path
        for pattern in (f"{config.config_id}.json", f"{config.config_id}-r*.json")
        for path in sorted(folder.glob(pattern))
    ]


def runs_of(config: RunConfig, out: Path, machine_ids: Iterable[str]) -> list[dict]:
    """The valid records of every run of ``config`` (each repeat, any status) under ``machine_ids``."""
    paths = [path for machine_id in machine_ids for path in run_paths(config, Path(out) / machine_id)]
    return [record for path in paths if (record := readable(path, config))]


def ok_repeats(records: Iterable[dict]) -> set[int]:
    """The repeats (0: the first run) that have an ok record among one configuration's ``records`` (``runs_of``)."""
    return {record["config"].get("repeat") or 0 for record in records if record["status"] == "ok"}


def start_here(target: Target) -> Start:
    """Where a matrix on ``target`` begins: now, on this boot and kernel build (the kernel being the fingerprint's,
    ``platform.release()``); on a cluster's nodes (``Target.nodes``) by the time alone."""
    now = datetime.now(UTC)
    return Start(now) if target.nodes else Start(now, boot_id(), platform.release())


def first_repeat(runs: dict[str, list[dict]], start: Start) -> int:
    """The repeat from which a matrix beginning at ``start`` numbers its rounds, from its configurations' ``runs``
    (``runs_here``): 0 in their first sitting; in a later one, or after a trainer changed, the first above every repeat
    of the earlier sittings and the older trainers' runs, so that its rounds are not those resumed (``completed``), and
    a matrix run again within it resumes it where it stopped."""
    records = [record for found in runs.values() for record in found]
    found = sittings([records])
    in_latest = [] if latest_over(records, start) or not found else found[-1]
    latest = {index for _, index in in_latest if of_current_trainer(records[index])}
    earlier = [record["config"].get("repeat") or 0 for index, record in enumerate(records) if index not in latest]
    return max(earlier, default=-1) + 1


def of_current_trainer(record: dict) -> bool:
    """Whether ``record``'s trainer is the one its framework and workload (``model.workload``, which reading a record
    derives where an older one lacks it) have now (its ``harness`` digest; a record without one is older)."""
    trainer = workload(record["model"]["workload"]).trainer_module(record["framework"]["name"])
    return (record.get("harness") or {}).get("digest") == current_digest(trainer)


@functools.cache
def current_digest(trainer_module: str) -> str:
    """The harness digest of ``trainer_module``'s code as it is now (read once a process)."""
    return harness(trainer_module)["digest"]


def runs_here(order: Iterable[RunConfig], out: Path, machine_ids: Iterable[str]) -> dict[str, list[dict]]:
    """Config id → the records of every run of it under ``machine_ids`` (``runs_of``), for the configurations of
    ``order``."""
    return {config.config_id: runs_of(config, out, machine_ids) for config in order}


def readable(path: Path, config: RunConfig) -> dict | None:
    """The record at ``path`` when it is a valid one of ``config``'s framework version, else None (unreadable
    records are simply run again, and replaced atomically)."""
    record = stored_record(path, SCHEMA)
    return record if record and record["framework"]["version"] == config.framework_version else None


def stored_path(out: Path, record: dict) -> Path:
    """Where the matrix keeps ``record``: under the machine id and record id it carries, whichever machine ran it."""
    return Path(out) / record["hardware"]["machine_id"] / f"{record['record_id']}.json"


def ok_runs_under(root: Path, profile: str) -> Iterator[dict]:
    """Every readable ``ok`` run record of ``profile`` under ``root``, in path order (the benchmark scripts' input);
    each unreadable file is one ``skipped`` line on stderr."""
    for path in sorted(Path(root).rglob("*.json")):
        try:
            record = read_record(path, kind=SCHEMA)
        except RecordError as exc:
            print(f"skipped {exc}", file=sys.stderr)
            continue
        if record["status"] == "ok" and record["config"]["profile"] == profile:
            yield record
