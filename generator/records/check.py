"""``generator check``: run records checked as a submission, one line per failing file (docs/design.md,
"Submissions").

A file passes when it is a valid run record (upgraded as the build does), its provenance is complete, every field
the runner derives from others agrees with the runner's own recomputation, no fact it states twice disagrees, its
times are in order (``derivations``), its figures are physically possible, its first losses show it trained
fwbench's network on fwbench's data (``check_rules``), its id is no other file's on its machine and it lies in its
own machine's folder. Checking never raises: a file that
is not a record, a link, a folder named like a record or a huge file each get their one line.

A folder given may be a whole results folder: where the results layout keeps other records
(``generator.records.load``: probes/, ecosystem/, a bisect's report in bisect/<machine>/), a file passes when it is a
valid record of that kind, and a note says the submission rules were not applied to it; the runs behind a bisect
(bisect/<machine>/runs/) are run records of that machine. So ``generator check results`` checks what the build reads.
A file named on the command line is a submission's: a run record.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.harness_checks import read_checks
from fwbench.parity_files import PARITY_DIR, read_parity
from fwbench.records import RUN_SCHEMA, RecordError, read_record
from generator.records import check_rules, derivations, replay
from generator.records.check_rules import Commits, Finding, References
from generator.records.load import BISECT_RUNS, KINDS, SCHEMAS, candidate_paths

SCHEMA, PLACE, CHECK, NOT_A_RUN, DERIVED = "schema", "place", "check", "not a run record", "derived"


@dataclass
class Report:
    """What a check found: per file its failures, the notes on the rules it could not apply, the files checked."""

    files: list[Path] = field(default_factory=list)
    failures: dict[Path, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    notes: list[Finding] = field(default_factory=list)

    def failure_lines(self) -> list[str]:
        """One line per failing file: ``file: rule: why; rule: why``."""
        return [
            f"{path}: " + "; ".join(f"{rule}: {text}" for rule, text in found)
            for path, found in sorted(self.failures.items())
        ]

    def note_lines(self) -> list[str]:
        """One line per distinct note, with how many files it concerns."""
        return [
            f"note: {counted(n, 'file')}: {rule}: {text}" for (rule, text), n in sorted(Counter(self.notes).items())
        ]

    def summary_line(self) -> str:
        """How many files were checked, passed and failed."""
        failing = len(self.failures)
        return f"{counted(len(self.files), 'file')}, {len(self.files) - failing} pass, {failing} fail"


#: the folder of the trainers' checks against the frameworks' minimal loops (``fwbench.harness_checks``)
HARNESS = "harness"
#: the folders of files that are not run records, each with its reader and the words for what it holds
NOT_RUNS = {HARNESS: (read_checks, "harness checks"), PARITY_DIR: (read_parity, "attention parity checks")}


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, with an s unless there is one: the CLI's lines are English (the site's words go
    through ``ngettext``)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def submission_files(paths: list[Path]) -> list[tuple[Path, str]]:
    """The files a check covers, each with the kind of record kept there (``layout_kind``): each path given, a run
    record, and every ``*.json`` under a folder given (links and folders so named included, to be refused).
    UsageError naming the path when one does not exist or is a folder holding no ``*.json``: a check of nothing
    would pass."""
    found: dict[Path, str] = {}
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"PATH {path}: does not exist")
        if path.is_dir() and not path.is_symlink():
            listed, unlisted = candidate_paths(path)
            if not listed + unlisted:
                raise UsageError(f"PATH {path}: no record (*.json) found under it")
            found |= {file: layout_kind(path, file) for file in listed + [folder for folder, _why in unlisted]}
        else:
            found[path] = "runs"
    return sorted(found.items())


def layout_kind(folder: Path, path: Path) -> str:
    """The kind of record (``load.KINDS``' keys, or ``BISECT_RUNS``) that a results folder keeps at ``path`` under
    ``folder``, as ``load_results`` files them: by the first folder below the results root, which is ``folder`` or,
    where ``folder`` is named like a kind (results/probes), the one above it; ``runs`` anywhere else, as in a
    submission's own folder."""
    parts = path.relative_to(folder).parts
    parts = (folder.name, *parts) if folder.name in (*KINDS, *NOT_RUNS) else parts
    if len(parts) > 1 and parts[0] in NOT_RUNS:
        return parts[0]
    kind = parts[0] if len(parts) > 1 and parts[0] in KINDS else "runs"
    return BISECT_RUNS if kind == "bisect" and path.parent.name == "runs" else kind


def read_one(path: Path, schema: str = RUN_SCHEMA) -> dict:
    """The record in ``path``; RecordError (one line) when it is not a record of ``schema`` or is a link."""
    if path.is_symlink():
        raise RecordError(f"{path}: a link, not a record file (a submission holds the files themselves)")
    return read_record(path, kind=schema)


def check_record(record: dict, references: References, commits: Commits) -> tuple[list[Finding], list[Finding]]:
    """Every per-record rule over one valid record: (failures, notes)."""
    failures, notes = check_rules.provenance(record, commits)
    failures, notes = failures + derived(record, commits), notes + not_derived(record)
    if record["status"] == "ok":
        for rule in (check_rules.physical, check_rules.same_work):
            failed, noted = rule(record, references)
            failures, notes = failures + failed, notes + noted
    return failures, notes


def derived(record: dict, commits: Commits) -> list[Finding]:
    """Each derived field, fact stated twice or time out of order that disagrees (``derivations``): ``field: stored
    X, recomputed Y``."""
    commit = (record.get("software") or {}).get("git_commit")
    found = derivations.mismatches(record, commits.date(commit) if commit else None)
    return [(DERIVED, mismatch.text()) for mismatch in found]


def not_derived(record: dict) -> list[Finding]:
    """A note where the record could not be replayed through the runner (an upgraded record lacking its inputs)."""
    why = replay.unreplayable(record)
    return [(DERIVED, f"the runner's figures not recomputed: an older record {why}")] if why else []


def check_paths(paths: list[Path], repo: Path | None, references: References | None = None) -> Report:
    """Check every file under ``paths`` as a submission; ``repo`` is the checkout whose history the commits must be
    in (None: not looked up, and the output says so)."""
    references = references or check_rules.load_references()
    commits, report = Commits(repo), Report()
    seen: dict[tuple[str, str, str], Path] = {}
    for path, kind in submission_files(paths):
        report.files.append(path)
        try:
            if kind in NOT_RUNS:
                read, words = NOT_RUNS[kind]
                read(path)
                report.notes.append((NOT_A_RUN, f"valid {words} in {kind}/; the submission rules judge runs"))
                continue
            record = read_one(path, SCHEMAS[kind])
            if SCHEMAS[kind] != RUN_SCHEMA:
                judged = f"valid {SCHEMAS[kind]} records in {kind}/; the submission rules judge runs"
                failures, notes = [], [(NOT_A_RUN, judged)]
            else:
                failures, notes = check_record(record, references, commits)
                failures += placement_findings(path, record, seen, kind)
        except RecordError as exc:
            failures, notes = [(SCHEMA, str(exc).removeprefix(f"{path}: "))], []
        except Exception as exc:  # noqa: BLE001 - a valid record no rule foresaw: its line, never a crash
            failures, notes = [(CHECK, f"cannot be checked ({type(exc).__name__}: {exc})")], []
        report.failures[path] += failures
        report.notes += notes
    report.failures = defaultdict(list, {p: f for p, f in report.failures.items() if f})
    return report


def placement_findings(
    path: Path, record: dict, seen: dict[tuple[str, str, str], Path], kind: str = "runs"
) -> list[Finding]:
    """A record lies in its machine's folder (a bisect's runs in its ``runs/``), and no other file of its ``kind``
    holds its id on its machine (``seen``: (kind, machine, id) → first file). A record id names a configuration, so
    two machines' records of one share it, as do a machine's runs and the runs behind its bisect."""
    found = []
    folder = path.parent.parent if kind == BISECT_RUNS else path.parent
    machine = (record.get("hardware") or {}).get("machine_id") or folder.name
    if folder.name != machine:
        found.append((PLACE, f"a record of machine {machine} under {folder.name}/"))
    first = seen.setdefault((kind, machine, record["record_id"]), path)
    if first != path:
        found.append((PLACE, f"duplicate record id {record['record_id']} (also {first})"))
    return found
