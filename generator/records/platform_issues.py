"""Known platform issues (``data/platform_issues.json``) and their size as the run records measure it.

An issue is measured with a set of tuning variables: its workaround's, or, where no workaround is known, a
setting that reproduces its cause on a machine it does not affect (``reproduction``: an instruction-set cap that
gives that machine the affected one's code path). Its size on a machine is the throughput of the runs made with
exactly those variables beside the out-of-the-box runs of the same setting, framework version, mode and batch size,
in either workload (images per second for ResNet-18, tokens for the GPT): the records show it, or the page says
that no such pair of runs exists yet. Whether the pairs tell a size is a verdict
(``generator.verdicts.platform_issue``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from fwbench.stats import Stats
from generator.data_text import load_data
from generator.records.aggregate import Summary, Table, rate_of


def load_issues() -> dict[str, Any]:
    """The data file: ``about`` and the list of ``issues``, their prose in the language being written."""
    return load_data("platform_issues.json")


def reproduces(issue: dict[str, Any]) -> bool:
    """Whether the issue is measured by reproducing its cause (it has no workaround) rather than working round it."""
    return "workaround" not in issue


def tuning_text(issue: dict[str, Any]) -> str:
    """The variables the issue is measured with (its workaround's, else its reproduction's) as a table's ``tuning``
    label has them: ``NAME=value; …``."""
    variables = issue["reproduction"] if reproduces(issue) else issue["workaround"]
    return "; ".join(f"{name}={value}" for name, value in sorted(variables.items()))


@dataclass(frozen=True)
class Pair:
    """One configuration measured out of the box and with the issue's tuning (``tuning_text``)."""

    machine_id: str
    setting_label: str
    column_label: str
    batch_size: int
    plain: Summary
    tuned: Summary
    reproduces: bool = False  # the tuning reproduces the cause (it slows), rather than working round it (it speeds)

    @property
    def plain_rate(self) -> Stats:
        """Throughput out of the box: images per second, tokens for the GPT (``rate_of``)."""
        return rate_of(self.plain)

    @property
    def tuned_rate(self) -> Stats:
        """Throughput with the tuning, in the same unit."""
        return rate_of(self.tuned)

    @property
    def tokens(self) -> bool:
        """Whether the throughputs count tokens (the GPT) rather than images."""
        return self.plain.images_per_second is None

    @property
    def effect(self) -> tuple[Stats, Stats]:
        """(larger, smaller) where the tuning does what it is there for: a workaround's throughput over the plain
        one (how many times faster), the plain one over a reproduction's (how many times slower)."""
        return (self.plain_rate, self.tuned_rate) if self.reproduces else (self.tuned_rate, self.plain_rate)

    @property
    def ratio(self) -> float:
        """How many times faster the workaround trains, or slower the reproduction, from the means."""
        larger, smaller = self.effect
        return larger.mean / smaller.mean


def measured_pairs(issue: dict[str, Any], tables: list[Table], device_kind: dict[str, str]) -> list[Pair]:
    """Every configuration of the issue's framework measured both ways on a machine of its device kind
    (``device_kind``: machine id -> ``cpu`` or ``gpu``), in ``tables`` of either workload."""
    wanted, reproduction = tuning_text(issue), reproduces(issue)
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
                if with_fix and without and rate_of(with_fix) and rate_of(without):
                    pairs.append(
                        Pair(
                            tuned.machine_id,
                            plain.setting.label,
                            plain.column_label(column),
                            bs,
                            without,
                            with_fix,
                            reproduction,
                        )
                    )
    return pairs
