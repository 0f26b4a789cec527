"""What the matrices planned on each machine (a run record's ``matrix.planned``) and which of it has no run yet.

``runners matrix`` writes its plan into every record it writes: one entry per configuration it planned on that
machine, first runs only. A configuration planned there that has no record at all there, ok or failed, is *not run
yet*: the matrix stopped before it (its time budget ran out, or it was interrupted). Only a machine's latest plan
counts (per setting, its precisions together: one matrix plans them all): after an upgrade, or another profile's
sizes, what an earlier matrix planned and never ran is no longer owed. Records without the block (written before it,
or by ``runners run`` alone) plan nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fwbench.records import config_id_of
from generator.records.aggregate import Table
from generator.records.identity import Column, Setting, setting_of
from generator.records.load import Loaded


@dataclass(frozen=True, order=True)
class Planned:
    """One configuration a matrix planned on a machine: the table it would join and the column and row it names."""

    machine_id: str
    setting: Setting  # the table it would join: its plan's record's setting at its own precision
    planned_with: Setting  # the setting of the record that carried the plan
    batch_size: int
    column: Column
    config_id: str


def planned_by(item: Loaded) -> list[Planned]:
    """The configurations the matrix that wrote ``item`` planned on its machine; none when it carries no plan."""
    setting = setting_of(item.record)
    return [
        Planned(
            item.machine_id,
            dataclasses.replace(setting, precision=entry["precision"]),
            setting,
            entry["batch_size"],
            Column(entry["framework"], entry.get("framework_version") or "unknown", entry["mode"]),
            entry["config_id"],
        )
        for entry in (item.record.get("matrix") or {}).get("planned", ())
    ]


def latest_plans(runs: list[Loaded]) -> list[Loaded]:
    """Per machine and setting (any precision), the record with a plan that finished last: the latest matrix's."""
    latest: dict[tuple[str, Setting], Loaded] = {}
    for item in runs:
        if (item.record.get("matrix") or {}).get("planned"):
            key = (item.machine_id, dataclasses.replace(setting_of(item.record), precision=""))
            if key not in latest or item.record["finished_at"] > latest[key].record["finished_at"]:
                latest[key] = item  # same-format UTC timestamps (fwbench.timestamps) order as strings
    return list(latest.values())


def not_run_yet(runs: list[Loaded]) -> list[Planned]:
    """The configurations of each machine's latest plans (``latest_plans``) that have no record there, ok or
    failed, sorted."""
    ran = {(item.machine_id, config_id_of(item.record["record_id"])) for item in runs}
    found: dict[tuple[str, str], Planned] = {}
    for item in latest_plans(runs):
        for planned in planned_by(item):
            if (planned.machine_id, planned.config_id) not in ran:
                found.setdefault((planned.machine_id, planned.config_id), planned)
    return sorted(found.values())


def named_with(table: Table, unrun: list[Planned], tables: list[Table]) -> list[Planned]:
    """The configurations of ``unrun`` that ``table`` names: those that would join it, and those of a setting without
    a table on its machine whose plan this table's records carried (an extra precision none of whose runs ran)."""
    present = {(t.machine_id, t.setting) for t in tables}
    return [
        planned
        for planned in unrun
        if planned.machine_id == table.machine_id
        and (
            planned.setting == table.setting
            or (planned.planned_with == table.setting and (planned.machine_id, planned.setting) not in present)
        )
    ]
