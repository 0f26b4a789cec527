"""Why a run is shown but never judged: the flags a run record carries (``fwbench.judged``, the rule the matrix
shares).

Busy-flagged runs and older records (upgraded from an earlier schema) are kept and shown, but a configuration's
figures leave them out whenever it has clean runs, and only clean runs enter a verdict (``aggregate.Summary``).
"""

from __future__ import annotations

from typing import Any

from fwbench.judged import busy, older
from generator.i18n import N_

BUSY = N_("busy")
OLDER = N_("older record")
#: flag -> the runs it marks, in words (translated where shown)
FLAGGED_RUNS = {BUSY: N_("busy-flagged runs"), OLDER: N_("older records")}


def flags_of(record: dict[str, Any]) -> tuple[str, ...]:
    """Why a run may be shown but never judged, from its record alone: BUSY (the machine was busy), OLDER (upgraded
    from an older schema)."""
    return ((BUSY,) if busy(record) else ()) + ((OLDER,) if older(record) else ())
