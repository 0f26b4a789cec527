"""A results table as the speed, memory and accuracy pages head it: its device, setting, provenance and warnings."""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS, label
from generator.aggregate import BUSY, Table
from generator.machines import Machine
from generator.sitedata import SiteData


@dataclass(frozen=True)
class TableView:
    """One table with what its heading, warnings and provenance block show."""

    table: Table
    machine: Machine | None

    @property
    def device(self) -> str:
        """The device's name, or the machine id when no run recorded hardware."""
        return self.machine.device if self.machine else self.table.machine_id

    @property
    def on_cpu(self) -> bool:
        """True when the runs trained on a CPU."""
        return bool(self.machine and not self.machine.is_gpu)

    @property
    def synthetic(self) -> bool:
        """True when the runs trained on the synthetic set."""
        return self.table.setting.dataset == "synthetic"

    @property
    def lacking(self) -> list[str]:
        """The fields that the table's older records lack."""
        return sorted({name for s in self.table.summaries for name in s.missing})

    @property
    def busy_runs(self) -> int:
        """Busy-flagged successful runs in the table."""
        return sum(s.flagged[BUSY] for s in self.table.summaries)

    @property
    def versions(self) -> list[str]:
        """``PyTorch 2.x`` for every framework version the table's runs used."""
        seen = {(c.framework, c.version) for c in self.table.columns}
        return [f"{label(fw)} {v}" for fw, v in sorted(seen, key=lambda p: (FRAMEWORKS.index(p[0]), p[1]))]

    @property
    def commits(self) -> list[str]:
        """The benchmark code's commits the table's runs came from (``+dirty`` with uncommitted changes)."""
        found = set()
        for run in self.table.runs:
            software = run.record.get("software")
            if software and software.get("git_commit"):
                found.add(software["git_commit"][:12] + ("+dirty" if software.get("git_dirty") else ""))
        return sorted(found)


def views(site: SiteData, tables: list[Table]) -> list[TableView]:
    """The views of ``tables``."""
    return [TableView(t, site.machine_by_id.get(t.machine_id)) for t in tables]
