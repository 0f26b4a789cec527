"""Harness checks: fwbench's trainer against a minimal loop in the framework's own style, on one device, paired
(``benchmarks/idiomatic_loop.py`` writes them; ``fwbench.harness_tolerance`` sets a lead against them).

A file under ``results/harness/<machine-id>/<stamp>.json`` holds one sitting's checks:
``{"made_at": ISO time, "command": str, "checks": [check, …]}``, each check naming the framework, workload, device,
precision and batch size it measured, the harness digest of fwbench's trainer (``runners.measure.harness``), the
minimal loop it was set against (``reference``), ``ratio`` (trainer ÷ minimal loop, the median of ``pairs`` paired
runs) and its 95 % interval (``ratio_interval``, null where there were too few pairs for one), ``mode`` where
the check says which (none: compiled) and ``size`` where the workload ran at a named size other than its default (the
GPT at GPT-2 small's shape; a record's ``config.size`` says the same). A check may hold more (its rounds, images/s,
MFU), kept and not read here. Writing and reading check every field read, so a bad file fails with one line naming
it and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fwbench.field_rules import count, interval, one_of, positive, stamped, text
from fwbench.frameworks import FRAMEWORKS, TRAINING_MODES
from fwbench.records import RecordError, atomic_write_text, read_json
from fwbench.timestamps import utc_now
from fwbench.workload_names import WORKLOADS

#: where under a results directory the checks lie, one folder per machine
HARNESS_DIR = "harness"
DEVICE_KINDS = ("tpu", "cpu", "gpu")
PRECISIONS = ("fp32", "default", "bf16")
DIGEST = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class HarnessCheck:
    """One framework's trainer against its minimal loop at one workload, device, precision and batch size."""

    framework: str
    workload: str
    device_kind: str
    device_name: str
    machine_id: str
    precision: str
    batch_size: int
    harness: str
    reference: str
    ratio: float
    ratio_interval: tuple[float, float] | None
    pairs: int
    made_at: str = ""  # the file's: which of two checks is newer
    mode: str | None = None  # the trainer's mode where the check says (a CPU's eager runs); None: compiled only
    size: str | None = None  # the workload's named size where not its default (runners/workloads/gpt/arch.py SIZES)

    @property
    def bounds(self) -> tuple[float, float]:
        """The ratio's 95 % interval; the ratio itself at both ends where the check has none."""
        return self.ratio_interval or (self.ratio, self.ratio)


def _digest(value: Any) -> str | None:
    return None if isinstance(value, str) and DIGEST.match(value) else "12 hexadecimal digits"


#: each field of a check and what it must be (None: fine; else the words for what it must be)
FIELDS = {
    "framework": one_of(FRAMEWORKS),
    "workload": one_of(WORKLOADS),
    "device_kind": one_of(DEVICE_KINDS),
    "device_name": text,
    "machine_id": text,
    "precision": one_of(PRECISIONS),
    "batch_size": count,
    "harness": _digest,
    "reference": text,
    "ratio": positive,
    "ratio_interval": interval,
    "pairs": count,
}


def _problem(document: Any) -> str | None:
    """What is wrong with a checks document, naming the field; None where nothing is."""
    if problem := stamped(document):
        return problem
    if text(document.get("command")):
        return "field 'command': expected a non-empty string"
    checks = document.get("checks")
    if not isinstance(checks, list) or not checks:
        return "field 'checks': expected a non-empty list"
    for index, check in enumerate(checks):
        if not isinstance(check, dict):
            return f"field 'checks[{index}]': expected an object"
        for name, rule in FIELDS.items():
            if name not in check:
                return f"field 'checks[{index}].{name}': missing"
            if expected := rule(check[name]):
                return f"field 'checks[{index}].{name}': expected {expected}, got {check[name]!r:.80}"
        if check.get("mode") not in (None, *TRAINING_MODES):
            return f"field 'checks[{index}].mode': expected null or one of {', '.join(TRAINING_MODES)}"
        if check.get("size") is not None and text(check["size"]):
            return f"field 'checks[{index}].size': expected null or a non-empty string, got {check['size']!r:.80}"
    return None


def checks_path(results: Path, machine_id: str, made_at: str) -> Path:
    """Where a sitting's checks lie: ``<results>/harness/<machine_id>/<made_at, file-name safe>.json``."""
    return Path(results) / HARNESS_DIR / machine_id / f"{re.sub(r'[^0-9A-Za-z]+', '-', made_at).strip('-')}.json"


def write_checks(path: Path, checks: Sequence[HarnessCheck | Mapping[str, Any]], command: str) -> Path:
    """Write ``checks`` (each a HarnessCheck or a check's fields) made by ``command``, stamped now, atomically to
    ``path``; RecordError naming the field where one is wrong (nothing is written then)."""
    rows = [_row(check) for check in checks]
    document = {"made_at": utc_now(), "command": command, "checks": rows}
    if problem := _problem(document):
        raise RecordError(f"{path}: {problem}")
    return atomic_write_text(path, json.dumps(document, indent=2) + "\n")


def _row(check: HarnessCheck | Mapping[str, Any]) -> dict[str, Any]:
    """A check's fields as a file holds them (the file's own ``made_at`` apart)."""
    row = asdict(check) if isinstance(check, HarnessCheck) else dict(check)
    row.pop("made_at", None)
    for optional in ("mode", "size"):
        if row.get(optional, "") is None:
            del row[optional]
    if isinstance(row.get("ratio_interval"), tuple):
        row["ratio_interval"] = list(row["ratio_interval"])
    return row


def read_checks(path: Path) -> list[HarnessCheck]:
    """The checks of one file; RecordError naming the file and the field where it is bad."""
    document = read_json(path)
    if problem := _problem(document):
        raise RecordError(f"{path}: {problem}")
    return [_check(check, document["made_at"]) for check in document["checks"]]


def _check(fields: dict[str, Any], made_at: str) -> HarnessCheck:
    """A check of a file made at ``made_at`` from its fields, the others left out."""
    interval = fields["ratio_interval"]
    read = {name: fields[name] for name in FIELDS} | {"ratio_interval": tuple(interval) if interval else None}
    return HarnessCheck(**read, made_at=made_at, mode=fields.get("mode"), size=fields.get("size"))


def check_files(results: Path) -> list[Path]:
    """The checks' files under ``<results>/harness/`` (one folder per machine, or anywhere below), in name order."""
    return sorted((Path(results) / HARNESS_DIR).rglob("*.json"))


def load_checks(results: Path) -> list[HarnessCheck]:
    """Every check under ``<results>/harness/``; RecordError at the first bad file."""
    return [check for path in check_files(results) for check in read_checks(path)]
