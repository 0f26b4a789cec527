"""Versioned JSON records: validated against their JSON Schema on write and on read, written atomically.

The packages (runners, ecosystem, generator) talk to each other only through these files. Reading never
fails with anything but a one-line RecordError naming the file and the problem, whatever the file holds:
a record file is a regular file of at most ``MAX_RECORD_BYTES`` (2 MiB), UTF-8 (a leading byte-order mark is
accepted), one JSON object without NaN, infinities, numbers beyond a float's range or unpaired surrogates,
nested at most ``MAX_RECORD_DEPTH`` levels deep.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from fwbench.upgrade import upgrade

#: the current run record kind: what the runners write and every older run record is upgraded to on read
RUN_SCHEMA = "fwbench.run/3"
#: record kind -> schema file under fwbench/schemas/
SCHEMA_FILES = {
    "fwbench.run/2": "run.v2.schema.json",  # likewise
    "fwbench.run/3": "run.schema.json",
    "fwbench.probe/1": "probe.schema.json",
    "fwbench.ecosystem/1": "ecosystem.schema.json",
    "fwbench.bisect/1": "bisect.schema.json",
}


#: a record is a few kB (a probe's, with its traceback, under 40 kB); a reader never loads a bigger file
MAX_RECORD_BYTES = 2 * 2**20
#: records nest 5 levels deep; readers walk them recursively (``find_key``), so depth is bounded
MAX_RECORD_DEPTH = 64
#: a RecordError's message is one line of at most this many characters (it may quote a bad value)
MAX_MESSAGE_CHARS = 500


def epoch_train_images(train_images: int, min_timed_steps: int | None, batch_size: int) -> int:
    """The training images a run loads: ``train_images``, raised to ``min_timed_steps`` whole batches (absent in a
    record made before the field: 1). The one rule for ``runners.measure.profiles.RunConfig`` and for readers of a
    record's ``config`` (the reference losses, ``generator check``)."""
    return max(train_images, (min_timed_steps or 1) * batch_size)


def config_id_of(record_id: str) -> str:
    """The configuration a run record is of: its ``record_id`` without a repeat's ``-r<k>`` (``RunConfig.record_id``
    adds it to the configuration's id for every repeat after the first)."""
    return re.sub(r"-r\d+$", "", record_id)


def harness_digest(record: dict) -> str | None:
    """The digest of the trainer code that shaped a run's step (``harness.digest``, written by
    ``runners.measure.harness``); None for a record made before it was recorded: unversioned."""
    return (record.get("harness") or {}).get("digest")


#: a run record's throughput fields, by the sample its workload counts (``runners.workloads``): one of them is set
THROUGHPUT_FIELDS = {"images_per_second": "img/s", "tokens_per_second": "tok/s"}


def throughput(timing: dict) -> tuple[float | None, str]:
    """A run record's throughput and its unit from its ``timing``: images/s (ResNet-18) or tokens/s (the GPT);
    (None, "img/s") where neither was measured."""
    for field, unit in THROUGHPUT_FIELDS.items():
        if timing.get(field) is not None:
            return timing[field], unit
    return None, "img/s"


def printable(text: str) -> str:
    """``text`` on one line: line breaks, other control characters and unpaired surrogates escaped as in Python."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class RecordError(ValueError):
    """A record that is unreadable or does not match its schema; the message names file and field.

    The message is one line, control characters escaped and shortened to ``MAX_MESSAGE_CHARS``: it is printed
    and shown on the site as the reason a file was skipped.
    """

    def __init__(self, message: str) -> None:
        line = printable(message)
        if len(line) > MAX_MESSAGE_CHARS:
            line = line[: MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(line)


@cache
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    """One validator per record kind: building it (checking the schema, compiling its keywords) costs more than
    validating a record."""
    return jsonschema.Draft202012Validator(load_schema(kind))


@cache
def load_schema(kind: str) -> dict[str, Any]:
    """Return the JSON Schema for a record kind such as ``"fwbench.run/2"``."""
    if kind not in SCHEMA_FILES:
        raise RecordError(f"unknown record schema {kind!r}; known: {', '.join(SCHEMA_FILES)}")
    text = resources.files("fwbench").joinpath("schemas", SCHEMA_FILES[kind]).read_text()
    return with_registry_keys(json.loads(text))


#: the ``$comment`` that marks an enum of framework keys in a schema file
FRAMEWORKS_MARK = "FRAMEWORKS:"
#: the ``$comment``s that mark an enum of workload names and one of their data sets
WORKLOADS_MARK, DATASETS_MARK = "WORKLOADS:", "DATASETS:"


def with_registry_keys(schema: Any) -> Any:
    """``schema`` with every enum marked ``FRAMEWORKS_MARK`` set to the framework registry's keys, and those marked
    ``WORKLOADS_MARK`` and ``DATASETS_MARK`` to the workload folders' names and data sets, so that a registered
    framework or workload validates; the files hold today's keys for a reader, and tests keep them equal to the
    registries."""
    from fwbench import frameworks, workload_names

    keys = {
        FRAMEWORKS_MARK: frameworks.FRAMEWORKS,
        WORKLOADS_MARK: workload_names.WORKLOADS,
        DATASETS_MARK: workload_names.DATASETS,
    }

    def filled(node: Any) -> Any:
        if isinstance(node, list):
            return [filled(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: filled(value) for key, value in node.items()}
        mark = str(node.get("$comment", "")).split(" ", 1)[0]
        if mark in keys:
            node["enum"] = list(keys[mark])
        return node

    return filled(schema)


def _field_path(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return path.lstrip(".") or "(top level)"


#: the schema keywords whose subschema applies only where another field has some value (a run's ``status``)
_CONDITIONAL = {"then", "else"}


def _relevance(error: jsonschema.ValidationError) -> tuple:
    """jsonschema's relevance, an error of a field's own rule first: one in a conditional branch follows from
    another field's value (a ``status`` of "weird" takes the failed runs' branch, where ``failure`` must be an
    object), so the field's own error names the cause."""
    return (not _CONDITIONAL & set(error.absolute_schema_path), *jsonschema.exceptions.relevance(error))


def validate(record: Any, source: str | os.PathLike = "<record>", kind: str | None = None) -> None:
    """Raise RecordError naming ``source``, the offending field and its value unless ``record`` is valid.

    ``kind`` pins the expected schema; by default the record's own ``schema`` field chooses it. Of several errors
    the one naming the cause is reported (``_relevance``; below an ``anyOf``, the branch that matched deepest, as
    ``best_match`` descends), not one that quotes a whole section.
    """
    if not isinstance(record, dict):
        raise RecordError(f"{source}: a record must be a JSON object, got {type(record).__name__}")
    declared = record.get("schema")
    shown = repr(declared) if "schema" in record else "missing"
    if kind is not None and declared != kind:
        raise RecordError(f"{source}: field 'schema' is {shown}, expected {kind!r}")
    if not isinstance(declared, str) or declared not in SCHEMA_FILES:
        raise RecordError(f"{source}: field 'schema' is {shown}, expected one of {', '.join(SCHEMA_FILES)}")
    errors = list(_validator(declared).iter_errors(record))
    if errors:
        best = jsonschema.exceptions.best_match(errors, key=_relevance)
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        raise RecordError(f"{source}: field '{_field_path(best)}': {best.message}{more}")


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


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device or other special file")


def _read_bytes(path: str | os.PathLike) -> bytes:
    too_big = f"larger than {MAX_RECORD_BYTES:,} bytes (2 MiB), the most a record file may hold"
    try:
        info = os.stat(path)  # before opening: opening a named pipe would wait for a writer
        if not stat.S_ISREG(info.st_mode):
            raise RecordError(f"{path}: {_file_kind(info.st_mode)}, not a record file")
        if info.st_size > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: {info.st_size:,} bytes, {too_big}")
        with open(path, "rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:  # also a symbolic link loop (ELOOP) or a dangling link
        raise RecordError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_RECORD_BYTES:  # it grew after the check
        raise RecordError(f"{path}: {too_big}")
    return data


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:40]} is beyond the range of a float")
    return value


def _float_sized_int(text: str) -> int:
    # a larger integer passes a schema's "number" but overflows the first float() a reader applies to it
    value = int(text)  # Python refuses more than 4,300 digits itself (ValueError)
    if abs(value) > sys.float_info.max:
        raise ValueError(f"integer of {len(text.lstrip('-')):,} digits is beyond the range of a float")
    return value


def _shape_problem(value: Any) -> str | None:
    """Why a parsed JSON value cannot be a record whatever its schema says (too deep, an unpaired surrogate)."""
    pending = [(value, "(top level)", 1)]
    while pending:
        item, where, depth = pending.pop()
        if depth > MAX_RECORD_DEPTH:
            return f"nested more than {MAX_RECORD_DEPTH} levels deep"
        if isinstance(item, dict):
            for key, child in item.items():
                pending += [(key, where, depth), (child, f"{where}.{key}".removeprefix("(top level)."), depth + 1)]
        elif isinstance(item, list):
            pending += [(child, f"{where}[{i}]", depth + 1) for i, child in enumerate(item)]
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return f"a string at {where[:80]} holds an unpaired surrogate escape (not Unicode text)"
    return None


def read_json(path: str | os.PathLike) -> Any:
    """The JSON value in the record file ``path``, checked as the module's docstring says; RecordError naming
    the file and the problem otherwise (whether it is a record is ``validate``'s question)."""
    data = _read_bytes(path)
    if not data.strip():
        raise RecordError(f"{path}: empty file, no JSON in it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start:,})") from exc
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_float_sized_int)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except ValueError as exc:  # from the number hooks, or Python's limit on digits
        raise RecordError(f"{path}: not valid JSON ({exc})") from exc
    except RecursionError as exc:
        raise RecordError(f"{path}: not valid JSON (nested too deeply to parse)") from exc
    problem = _shape_problem(value)
    if problem:
        raise RecordError(f"{path}: {problem}")
    return value


def read_record(path: str | os.PathLike, kind: str | None = None) -> dict[str, Any]:
    """Read, upgrade (``fwbench.upgrade``) and validate one record; raise RecordError naming the file (and field)
    when it is bad."""
    record = read_json(path)
    record = upgrade(record, check=partial(validate, source=path))
    validate(record, source=path, kind=kind)
    return record


def stored_record(path: Path, kind: str) -> dict[str, Any] | None:
    """The valid record of ``kind`` at ``path``, or None when there is none or it is unreadable: what resuming
    commands ask of a record they may keep (a bad one is simply made again, and replaced atomically)."""
    if not path.is_file():
        return None
    try:
        return read_record(path, kind=kind)
    except RecordError:
        return None


def find_key(record: Any, key: str) -> Any:
    """Return the first value stored under ``key`` anywhere in ``record`` (depth-first), else None.

    Tools read a few well-known keys by name wherever they sit (``status``, ``trainable_params``,
    ``images_per_second``, ``epoch_seconds``, ``compile_seconds``, ``final_test_accuracy``).
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
