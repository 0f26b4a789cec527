"""Load and validate every record under a results directory; invalid ones are skipped with a reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from fwbench.records import RecordError, read_record

#: results sub-directory -> record schema it holds
KINDS = {"runs": "fwbench.run/1", "probes": "fwbench.probe/1", "ecosystem": "fwbench.ecosystem/1"}


@dataclass(frozen=True)
class Loaded:
    """One valid record with where it came from."""

    path: Path
    record: dict[str, Any]

    @property
    def machine_id(self) -> str:
        """The machine the record was made on: from its hardware, else from its folder name.

        A failed run may have no hardware section; the runners file it under ``<machine_id>/``.
        """
        hardware = self.record.get("hardware") or {}
        return hardware.get("machine_id") or self.record.get("machine_id") or self.path.parent.name


@dataclass(frozen=True)
class Skipped:
    """A record that could not be used: its path, its name under the results root, why (names the field)."""

    path: Path
    reason: str
    name: str

    @property
    def message(self) -> str:
        """``file: field: problem`` as printed by the CLI."""
        return f"{self.path}: {self.reason}"


@dataclass
class Results:
    """Everything found under one results directory."""

    root: Path
    runs: list[Loaded] = field(default_factory=list)
    probes: list[Loaded] = field(default_factory=list)
    snapshots: list[Loaded] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def machines(self) -> list[str]:
        """Machine ids seen in runs or probes, sorted."""
        return sorted({item.machine_id for item in self.runs + self.probes})

    def latest_snapshot(self) -> Loaded | None:
        """The ecosystem snapshot with the latest date (a complete one wins a tie), or None."""
        if not self.snapshots:
            return None
        return max(
            self.snapshots, key=lambda s: (s.record["date"], s.record["complete"], s.record["collected_at"])
        )


def load_results(root: str | Path, strict: bool = False, progress: bool = False) -> Results:
    """Read every ``*.json`` under ``root/{runs,probes,ecosystem}`` and validate it against its schema.

    A bad record raises RecordError when ``strict``; otherwise it is listed in ``Results.skipped``.
    A missing results directory simply yields empty results (the site then shows its empty states).
    """
    root = Path(root)
    results = Results(root=root)
    buckets = {"runs": results.runs, "probes": results.probes, "ecosystem": results.snapshots}
    paths = [(sub, p) for sub in KINDS for p in sorted((root / sub).rglob("*.json")) if p.is_file()]
    for sub, path in tqdm(paths, desc="records", unit="file", disable=not progress):
        try:
            record = read_record(path, kind=KINDS[sub])
        except RecordError as exc:
            if strict:
                raise
            results.skipped.append(
                Skipped(
                    path=path,
                    reason=str(exc).removeprefix(f"{path}: "),
                    name=path.relative_to(root).as_posix(),
                )
            )
            continue
        buckets[sub].append(Loaded(path=path, record=record))
    results.snapshots.sort(key=lambda s: (s.record["date"], s.record["collected_at"]))
    return results
