"""Versioned JSON records: validated against their JSON Schema on write and on read, written atomically.

The packages (runners, ecosystem, generator) talk to each other only through these files.
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

#: record kind -> schema file under fwbench/schemas/
SCHEMA_FILES = {
    "fwbench.run/1": "run.schema.json",
    "fwbench.probe/1": "probe.schema.json",
    "fwbench.ecosystem/1": "ecosystem.schema.json",
}


class RecordError(ValueError):
    """A record that is unreadable or does not match its schema; the message names file and field."""


@cache
def load_schema(kind: str) -> dict[str, Any]:
    """Return the JSON Schema for a record kind such as ``"fwbench.run/1"``."""
    if kind not in SCHEMA_FILES:
        raise RecordError(f"unknown record schema {kind!r}; known: {', '.join(SCHEMA_FILES)}")
    text = resources.files("fwbench").joinpath("schemas", SCHEMA_FILES[kind]).read_text()
    return json.loads(text)


def _field_path(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return path.lstrip(".") or "(top level)"


def validate(record: Any, source: str | os.PathLike = "<record>", kind: str | None = None) -> None:
    """Raise RecordError naming ``source`` and the first offending field unless ``record`` is valid.

    ``kind`` pins the expected schema; by default the record's own ``schema`` field chooses it.
    """
    if not isinstance(record, dict):
        raise RecordError(f"{source}: a record must be a JSON object, got {type(record).__name__}")
    declared = record.get("schema")
    if kind is not None and declared != kind:
        raise RecordError(f"{source}: field 'schema' is {declared!r}, expected {kind!r}")
    if declared not in SCHEMA_FILES:
        raise RecordError(f"{source}: field 'schema' is {declared!r}, expected one of {', '.join(SCHEMA_FILES)}")
    validator = jsonschema.Draft202012Validator(load_schema(declared))
    errors = sorted(validator.iter_errors(record), key=lambda e: (len(e.absolute_path), list(map(str, e.path))))
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise RecordError(f"{source}: field '{_field_path(first)}': {first.message}{more}")


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename: readers see old or new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_record(path: str | os.PathLike, record: dict[str, Any]) -> Path:
    """Validate ``record`` and write it atomically as pretty JSON; an invalid record is never written."""
    validate(record, source=path)
    return atomic_write_text(path, json.dumps(record, indent=2, sort_keys=False, allow_nan=False) + "\n")


def read_record(path: str | os.PathLike, kind: str | None = None) -> dict[str, Any]:
    """Read and validate one record; raise RecordError naming the file (and field) when it is bad."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    validate(record, source=path, kind=kind)
    return record


def find_key(record: Any, key: str) -> Any:
    """Return the first value stored under ``key`` anywhere in ``record`` (depth-first), else None.

    Tools read a few well-known keys by name wherever they sit (DESIGN.md, "Records").
    """
    if isinstance(record, dict):
        if key in record:
            return record[key]
        children = record.values()
    elif isinstance(record, list):
        children = record
    else:
        return None
    for child in children:
        found = find_key(child, key)
        if found is not None:
            return found
    return None
