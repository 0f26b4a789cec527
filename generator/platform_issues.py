"""Known platform issues (``data/platform_issues.json``) and their size as the run records measure it.

An issue's workaround is a set of tuning variables. Its size on a machine is the throughput of the runs made
with exactly those variables beside the out-of-the-box runs of the same setting, framework version, mode and
batch size: the records show it, or the page says that no such pair of runs exists yet.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from generator.aggregate import Summary, Table
from generator.data_text import translated
from generator.i18n import ngettext
from generator.stats import Stats

ISSUES_FILE = Path(__file__).resolve().parent / "data" / "platform_issues.json"


@cache
def _issues_file() -> dict[str, Any]:
    return json.loads(ISSUES_FILE.read_text(encoding="utf-8"))


def load_issues() -> dict[str, Any]:
    """The data file: ``about`` and the list of ``issues``, their prose in the language being written."""
    return translated(ISSUES_FILE.name, _issues_file())


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


def size_text(pairs: list[Pair]) -> str | None:
    """The measured size in words, e.g. ``3.0–3.5× faster with the workaround (4 configurations, n=1 each)``."""
    if not pairs:
        return None
    low, high = min(p.ratio for p in pairs), max(p.ratio for p in pairs)
    span = f"{low:.1f}×" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f}×"
    runs = sorted({min(p.plain_rate.n, p.tuned_rate.n) for p in pairs})
    if len(runs) == 1:
        return ngettext(
            "{span} faster with the workaround ({count} configuration, n={n} each)",
            "{span} faster with the workaround ({count} configurations, n={n} each)",
            len(pairs),
        ).format(span=span, count=len(pairs), n=runs[0])
    return ngettext(
        "{span} faster with the workaround ({count} configuration, n={low}–{high})",
        "{span} faster with the workaround ({count} configurations, n={low}–{high})",
        len(pairs),
    ).format(span=span, count=len(pairs), low=runs[0], high=runs[-1])
