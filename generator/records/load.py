"""Load and validate every record under a results directory, and the harness checks beside them
(``fwbench.harness_checks``); invalid ones are skipped with a reason.

Whatever lies under the results directory, loading it never raises (except with ``strict``): every ``*.json``
is a record or a one-line skip saying why (see ``fwbench.records`` for what a record file may be).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fwbench.cliargs import UsageError
from fwbench.harness_checks import HarnessCheck, check_files, read_checks
from fwbench.processes import process_pool
from fwbench.progress import progress_bar
from fwbench.records import RUN_SCHEMA, RecordError, printable, read_record

#: results sub-directory -> record schema it holds (older run records are upgraded on read)
KINDS = {
    "runs": RUN_SCHEMA,
    "probes": "fwbench.probe/1",
    "ecosystem": "fwbench.ecosystem/1",
    "bisect": "fwbench.bisect/1",
}
#: the run records behind a bisect report (``results/bisect/<machine>/runs/``): validated, kept apart from ``runs``
BISECT_RUNS = "bisect runs"
SCHEMAS = {**KINDS, BISECT_RUNS: RUN_SCHEMA}
#: records read per task: below this many files one process reads them all (validation dominates the time)
CHUNK = 250


@dataclass(frozen=True)
class Loaded:
    """One valid record with where it came from."""

    path: Path
    record: dict[str, Any]
    root: Path | None = None  # the results root it was found under (one of several: ``load_roots``)

    def name_under(self, root: Path) -> str:
        """Its name in downloads: its path relative to its own results root (``runs/<machine>/<file>``), or to
        ``root`` when it was made without one."""
        return self.path.relative_to(self.root or root).as_posix()

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
    bisects: list[Loaded] = field(default_factory=list)  # release bisect reports (runners bisect)
    bisect_runs: list[Loaded] = field(default_factory=list)  # the runs behind them: never in a results table
    harness_checks: list[HarnessCheck] = field(default_factory=list)  # results/harness/<machine>/<stamp>.json
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def machines(self) -> list[str]:
        """Machine ids seen in runs or probes, sorted."""
        return sorted({item.machine_id for item in self.runs + self.probes})

    def latest_snapshot(self) -> Loaded | None:
        """The ecosystem snapshot with the latest date (a complete one wins a tie), or None."""
        if not self.snapshots:
            return None
        return max(self.snapshots, key=lambda s: (s.record["date"], s.record["complete"], s.record["collected_at"]))


def candidate_paths(directory: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Everything named ``*.json`` under ``directory``, sorted, and the folders that could not be listed (with why).

    Not only files: a directory, a link or a special file so named is a candidate too, for ``read_record`` to
    refuse with its reason. Links to folders are not followed (a link loop would never end); links to files are.
    """
    found: list[Path] = []
    unlisted: list[tuple[Path, str]] = []
    if not os.path.lexists(directory):
        return found, unlisted

    def on_error(exc: OSError) -> None:
        unlisted.append((Path(exc.filename or directory), f"cannot list the folder: {exc.strerror or exc}"))

    for folder, folders, files in os.walk(directory, onerror=on_error):
        found += [Path(folder, name) for name in (*folders, *files) if name.endswith(".json")]
    return sorted(found), unlisted


def printable_name(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as one line of text that can be printed and written to a page."""
    return printable(os.fsencode(path.relative_to(root)).decode("utf-8", "backslashreplace"))


def read_chunk(files: list[tuple[str, Path]]) -> list[tuple[dict[str, Any] | None, str | None]]:
    """(record, None) or (None, why it is invalid) for each (kind, path): one task of ``read_all``."""
    found: list[tuple[dict[str, Any] | None, str | None]] = []
    for sub, path in files:
        try:
            found.append((read_record(path, kind=SCHEMAS[sub]), None))
        except RecordError as exc:
            found.append((None, str(exc).removeprefix(f"{path}: ")))
    return found


def read_all(files: list[tuple[str, Path]], progress: bool = False) -> list[tuple[dict[str, Any] | None, str | None]]:
    """``read_chunk`` over every file, in order, spread over the CPUs once there is more than one chunk."""
    chunks = [files[start : start + CHUNK] for start in range(0, len(files), CHUNK)]
    if len(chunks) <= 1:
        return read_chunk(files)
    with process_pool(min(len(chunks), os.cpu_count() or 1)) as pool:
        done = progress_bar(
            pool.map(read_chunk, chunks), enabled=progress, desc="records", unit="chunk", total=len(chunks)
        )
        return [outcome for chunk in done for outcome in chunk]


def load_results(root: str | Path, strict: bool = False, progress: bool = False) -> Results:
    """Read every ``*.json`` under ``root/{runs,probes,ecosystem,bisect}`` and validate it against its schema (run
    records under ``bisect/<machine>/runs/`` as runs, kept in ``bisect_runs``), and the harness checks under
    ``root/harness/`` (``fwbench.harness_checks``).

    A bad record raises RecordError when ``strict``; otherwise it is listed in ``Results.skipped`` with its
    reason, as is a folder that cannot be listed and a file whose name cannot be shown as it is (not UTF-8, or
    with a line break). A missing results directory simply yields empty results (the site then shows its
    empty states). The progress bar (``progress``) is drawn only on a terminal.
    """
    root = Path(root)
    results = Results(root=root)
    buckets = {
        "runs": results.runs,
        "probes": results.probes,
        "ecosystem": results.snapshots,
        "bisect": results.bisects,
        BISECT_RUNS: results.bisect_runs,
    }

    def skip(path: Path, reason: str) -> None:
        if strict:
            raise RecordError(f"{path}: {reason}")
        results.skipped.append(Skipped(path=path, reason=reason, name=printable_name(path, root)))

    paths = []
    for sub in KINDS:
        found, unlisted = candidate_paths(root / sub)
        for path in found:
            if printable_name(path, root) == path.relative_to(root).as_posix():
                behind_a_bisect = sub == "bisect" and path.parent.name == "runs"
                paths.append((BISECT_RUNS if behind_a_bisect else sub, path))
            else:
                skip(path, "the file name is not printable UTF-8 text")
        for path, reason in unlisted:
            skip(path, reason)
    for (sub, path), (record, reason) in zip(paths, read_all(paths, progress), strict=True):
        if record is None:
            skip(path, reason)
        else:
            buckets[sub].append(Loaded(path=path, record=record, root=root))
    results.snapshots.sort(key=lambda s: (s.record["date"], s.record["collected_at"]))
    for path in check_files(root):
        try:
            results.harness_checks += read_checks(path)
        except RecordError as exc:
            skip(path, str(exc).removeprefix(f"{path}: "))
    return results


def load_roots(roots: list[Path], strict: bool = False, progress: bool = False) -> Results:
    """The records of several results roots as one ``Results`` (the published ones and a user's own, read where
    they lie: nothing is copied), ``root`` the first. UsageError naming both roots when a machine's records lie in
    two of them: one machine's runs would otherwise pool from two sources."""
    twice = [root for root, count in Counter(Path(r).resolve() for r in roots).items() if count > 1]
    if twice:
        raise UsageError(f"--results {twice[0]}: given twice")
    found = [load_results(root, strict, progress) for root in roots]
    merged = Results(root=Path(roots[0]))
    owner: dict[str, Path] = {}
    for results in found:
        for machine in {item.machine_id for item in results.runs + results.probes + results.bisects}:
            if owner.setdefault(machine, results.root) != results.root:
                raise UsageError(
                    f"--results: machine {machine} has records in both {owner[machine]} and {results.root}"
                )
        for name in ("runs", "probes", "snapshots", "bisects", "bisect_runs", "harness_checks", "skipped"):
            getattr(merged, name).extend(getattr(results, name))
    merged.snapshots.sort(key=lambda s: (s.record["date"], s.record["collected_at"]))
    return merged
