"""What the matrices planned on each machine (a run record's ``matrix.planned``) and which of it has no run yet.

``runners matrix`` writes its plan into every record it writes: one entry per configuration it planned on that
machine, first runs only. A configuration planned there that has no record at all there, ok or failed, is *not run
yet*: the matrix stopped before it (its time budget ran out, or it was interrupted). A machine's plans are united,
so a small matrix run after ``make site`` leaves make site's unrun sizes named; but where a later plan planned the
same run differently (a framework upgraded: its new version at that batch size), the earlier entry is superseded
and no longer owed. Records without the block (written before it, or by ``runners run`` alone) plan nothing.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
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


def supersession_key(planned: Planned) -> tuple:
    """What a planned configuration is a run of, its framework's version and seed aside: machine, table, framework,
    mode and batch size."""
    return planned.machine_id, planned.setting, planned.column.framework, planned.column.mode, planned.batch_size


def not_run_yet(runs: list[Loaded]) -> list[Planned]:
    """The configurations planned on each machine, in the union of its records' plans less those a later plan
    superseded (``supersession_key``), that have no record there, ok or failed, sorted."""
    ran = {(item.machine_id, config_id_of(item.record["record_id"])) for item in runs}
    planning = [item for item in runs if (item.record.get("matrix") or {}).get("planned")]
    planning.sort(key=lambda item: item.record["finished_at"], reverse=True)  # UTC, one format: order as strings
    # supersession key → the configurations the latest plan that planned it named there
    claimed: dict[tuple, set[str]] = {}
    found: dict[tuple[str, str], Planned] = {}
    for item in planning:
        plan = planned_by(item)
        for planned in plan:
            superseded = planned.config_id not in claimed.get(supersession_key(planned), {planned.config_id})
            if not superseded and (planned.machine_id, planned.config_id) not in ran:
                found.setdefault((planned.machine_id, planned.config_id), planned)
        slots: dict[tuple, set[str]] = defaultdict(set)
        for planned in plan:
            slots[supersession_key(planned)].add(planned.config_id)
        for where, config_ids in slots.items():
            claimed.setdefault(where, config_ids)
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
