"""Attention parity on a device: each framework's fused attention against its written-out one, in strict float32
(``benchmarks/attention_parity.py`` writes the files, to commit under ``results/parity/<machine-id>/``).

A file holds ``{"made_at": ISO time, "command", "device_name", "machine_id", "size", "precision", "steps",
"batch_size", "checks": [row, …]}``, each row naming the framework, the fused path (``attention``) and the path it
is set against (``reference``), with the worst relative differences of the logits, the losses and the per-step
updates, and how far the logits of the positions before a changed token moved (a causal model: 0) and those at and
after it. Writing and reading check every field, so a bad file fails with one line naming it and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fwbench.field_rules import count, non_negative, one_of, stamped, text
from fwbench.frameworks import FRAMEWORKS
from fwbench.harness_checks import PRECISIONS
from fwbench.records import RecordError, atomic_write_text, read_json
from fwbench.timestamps import utc_now

#: where under a results directory the files lie, one folder per machine
PARITY_DIR = "parity"
DOCUMENT = {
    "command": text,
    "device_name": text,
    "machine_id": text,
    "size": text,
    "precision": one_of(PRECISIONS),
    "steps": count,
    "batch_size": count,
}
ROW = {
    "framework": one_of(FRAMEWORKS),
    "attention": text,
    "reference": text,
    "logits": non_negative,
    "loss": non_negative,
    "update": non_negative,
    "later_token_moves_earlier_logits": non_negative,
    "later_token_moves_its_logits": non_negative,
}


def _problem(document: Any) -> str | None:
    """What is wrong with a parity document, naming the field; None where nothing is."""
    if problem := stamped(document):
        return problem
    rows = document.get("checks")
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        return "field 'checks': expected a non-empty list of objects"
    fields = [(name, rule, document) for name, rule in DOCUMENT.items()]
    fields += [(f"checks[{i}].{name}", rule, row) for i, row in enumerate(rows) for name, rule in ROW.items()]
    for name, rule, holder in fields:
        key = name.rsplit(".", 1)[-1]
        if key not in holder:
            return f"field '{name}': missing"
        if expected := rule(holder[key]):
            return f"field '{name}': expected {expected}, got {holder[key]!r:.80}"
    return None


def write_parity(path: Path, fields: dict[str, Any], rows: list[dict[str, Any]]) -> Path:
    """Write the document of ``fields`` and ``rows``, stamped now, atomically to ``path``; RecordError naming the
    field where one is wrong (nothing is written then)."""
    document = {"made_at": utc_now(), **fields, "checks": rows}
    if problem := _problem(document):
        raise RecordError(f"{path}: {problem}")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, json.dumps(document, indent=2) + "\n")


def read_parity(path: Path) -> dict[str, Any]:
    """The document of one file; RecordError naming the file and the field where it is bad."""
    document = read_json(path)
    if problem := _problem(document):
        raise RecordError(f"{path}: {problem}")
    return document
