"""Why a run is shown but never judged: the flags a run record carries, and the lone runs of a row.

Busy-flagged runs (``load.busy``), older records (upgraded from an earlier schema) and lone runs (made in a sitting
where no other framework of their row ran: ``fwbench.sittings``) are kept and shown, but a configuration's figures
leave them out whenever it has clean runs, and only clean runs enter a verdict (``aggregate.Summary``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from fwbench.sittings import made_alone, runs_per_sitting, unequal_shares
from generator.i18n import N_

BUSY = N_("busy")
OLDER = N_("older record")
LONE = N_("lone")
#: flag -> the runs it marks, in words (translated where shown)
FLAGGED_RUNS = {
    BUSY: N_("busy-flagged runs"),
    OLDER: N_("older records"),
    LONE: N_("lone runs (no other framework ran in their sitting)"),
}


def flags_of(record: dict[str, Any]) -> tuple[str, ...]:
    """Why a run may be shown but never judged, from its record alone: BUSY (the machine was busy), OLDER (upgraded
    from an older schema)."""
    flags = (BUSY,) if (record.get("load") or {}).get("busy") else ()
    return flags + ((OLDER,) if record.get("upgraded_from") else ())


def by_row(summaries: Iterable[Any]) -> dict[tuple, list[Any]]:
    """Configurations' summaries (``aggregate.Summary``) by row: machine, setting, mode and batch size, the
    configurations one table row compares and whose runs the lone rule sets side by side."""
    rows: dict[tuple, list[Any]] = defaultdict(list)
    for s in summaries:
        rows[(s.key.machine_id, s.key.setting, s.key.mode, s.key.batch_size)].append(s)
    return rows


def unflagged(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of ``records`` that their own flags (``flags_of``) leave to be judged."""
    return [record for record in records if not flags_of(record)]


def lone_ids(row: list[list[dict[str, Any]]]) -> frozenset[int]:
    """The ``id``s of the runs of a row (each column's successful runs: one batch size, mode and setting of a
    machine) that are flagged LONE: judged by their own flags, but made alone in their sitting."""
    return frozenset(id(record) for record in made_alone([unflagged(column) for column in row]))


def uneven_sittings(row: list[list[dict[str, Any]]]) -> list[tuple[int, ...] | None]:
    """Each column's judged runs per shared sitting (``fwbench.sittings.runs_per_sitting``) where a row (each column's
    successful runs, as ``lone_ids`` takes them) pooled them from two sittings or more in unequal shares; a None for
    each column where it did not."""
    counts = runs_per_sitting([unflagged(column) for column in row])
    return [tuple(spread) if unequal_shares(counts) else None for spread in counts]
