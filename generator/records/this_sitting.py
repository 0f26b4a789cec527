"""A machine's latest sitting (``fwbench.sittings``): the runs that no pause of an hour, reboot or kernel build parts
from its newest. ``make site`` measures in it, so what it has not run yet is what ``make site`` would run next."""

from __future__ import annotations

from fwbench.sittings import sittings
from generator.records.load import Loaded


def latest_sitting(runs: list[Loaded], machine_id: str) -> list[Loaded]:
    """The records of ``runs`` made in ``machine_id``'s latest sitting, ok or not; none without a record there."""
    own = [item for item in runs if item.machine_id == machine_id]
    found = sittings([[item.record for item in own]])
    return [own[index] for _side, index in found[-1]] if found else []
