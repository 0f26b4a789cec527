"""Known platform issues (``data/platform_issues.json``) and their size as the run records measure it.

An issue's workaround is a set of tuning variables. Its size on a machine is the throughput of the runs made
with exactly those variables beside the out-of-the-box runs of the same setting, framework version, mode and
batch size: the records show it, or the page says that no such pair of runs exists yet. Whether the pairs tell
a size is a verdict (``generator.verdicts.platform_issue``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from fwbench.stats import Stats
from generator.data_text import load_data
from generator.records.aggregate import Summary, Table


def load_issues() -> dict[str, Any]:
    """The data file: ``about`` and the list of ``issues``, their prose in the language being written."""
    return load_data("platform_issues.json")


def workaround_text(issue: dict[str, Any]) -> str:
    """The workaround's variables as a table's ``tuning`` label has them: ``NAME=value; …``."""
    return "; ".join(f"{name}={value}" for name, value in sorted(issue["workaround"].items()))


@dataclass(frozen=True)
class Pair:
    """One configuration measured out of the box and with the workaround."""

    machine_id: str
    setting_label: str
    column_label: str
    batch_size: int
    plain: Summary
    tuned: Summary

    @property
    def plain_rate(self) -> Stats:
        """Images per second out of the box."""
        return self.plain.images_per_second

    @property
    def tuned_rate(self) -> Stats:
        """Images per second with the workaround."""
        return self.tuned.images_per_second

    @property
    def ratio(self) -> float:
        """How many times faster the workaround trains, from the means."""
        return self.tuned_rate.mean / self.plain_rate.mean


def measured_pairs(issue: dict[str, Any], tables: list[Table], device_kind: dict[str, str]) -> list[Pair]:
    """Every configuration of the issue's framework measured both ways on a machine of its device kind
    (``device_kind``: machine id -> ``cpu`` or ``gpu``)."""
    wanted = workaround_text(issue)
    plain_tables = {(t.machine_id, t.setting): t for t in tables if not t.setting.tuning}
    pairs = []
    for tuned in tables:
        if tuned.setting.tuning != wanted or device_kind.get(tuned.machine_id) != issue["device_kind"]:
            continue
        plain = plain_tables.get((tuned.machine_id, dataclasses.replace(tuned.setting, tuning="")))
        if plain is None:
            continue
        for column in tuned.columns:
            if column.framework != issue["framework"]:
                continue
            for bs in tuned.batch_sizes:
                with_fix, without = tuned.at(column, bs), plain.at(column, bs)
                if with_fix and without and with_fix.images_per_second and without.images_per_second:
                    pairs.append(
                        Pair(tuned.machine_id, plain.setting.label, plain.column_label(column), bs, without, with_fix)
                    )
    return pairs
