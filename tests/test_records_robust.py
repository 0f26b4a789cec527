"""`read_record` on any input: a record (a dict) or one line of RecordError naming the file, never anything else."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import gen_records
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fwbench.records import MAX_MESSAGE_CHARS, MAX_RECORD_BYTES, RecordError, read_record
from runners.measure.profiles import expand

#: the quick profile's first CPU configuration, as ``runners run`` records one epoch of it: the seed of the mutations
CONFIG = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)[0]
SAMPLE = gen_records.as_recorded(CONFIG, gen_records.one_epoch(CONFIG, 100.0), ["runners", "run"])
KINDS = st.sampled_from([None, "fwbench.run/2", "fwbench.run/3", "fwbench.probe/1", "fwbench.ecosystem/1"])
FEW = settings(max_examples=100, deadline=None, database=None)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def record_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("robust") / "record.json"


def read_or_refuse(path: Path, data: bytes, kind: str | None) -> dict | None:
    """``data`` written to ``path`` and read back: the record, or None when refused with a proper RecordError."""
    path.write_bytes(data)
    try:
        record = read_record(path, kind=kind)
    except RecordError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ") and "\n" not in message and len(message) <= MAX_MESSAGE_CHARS
        return None
    assert isinstance(record, dict)
    return record


def places(value, parent=None, key=None):
    """(container, key) of every value inside ``value``, the top level as (None, None)."""
    yield parent, key
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for child_key, child in children:
        yield from places(child, value, child_key)


@st.composite
def mutated_records(draw) -> object:
    """A sample record after one to four edits: a value replaced, a key deleted, renamed or added."""
    record = copy.deepcopy(SAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        container, key = draw(st.sampled_from(list(places(record))))
        action = draw(st.sampled_from(["replace", "delete", "rename", "add"]))
        if container is None:  # the whole record
            record = draw(json_values) if action == "replace" else record
        elif action == "replace":
            container[key] = draw(json_values)
        elif isinstance(container, list) or action == "delete":
            del container[key]
        else:
            new_key = draw(st.text(max_size=12))
            container[new_key] = container.pop(key) if action == "rename" else draw(json_values)
    return record


def encoded(record: object, ascii_only: bool) -> bytes:
    # floats NaN/inf come out as NaN/Infinity, which a reader must refuse; unpaired surrogates as invalid UTF-8
    return json.dumps(record, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@FEW
@given(data=st.binary(max_size=3000), kind=KINDS)
def test_arbitrary_bytes_are_refused_with_a_reason(record_file, data, kind):
    read_or_refuse(record_file, data, kind)


@FEW
@given(record=mutated_records(), ascii_only=st.booleans(), kind=KINDS)
def test_mutated_records_are_read_or_refused_with_a_reason(record_file, record, ascii_only, kind):
    read_or_refuse(record_file, encoded(record, ascii_only), kind)


@FEW
@given(
    edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8),
    cut=st.floats(0, 1),
)
def test_byte_edits_and_truncations_of_a_record_are_read_or_refused(record_file, edits, cut):
    data = bytearray(encoded(SAMPLE, ascii_only=False))
    for where, byte in edits:
        data[int(where * len(data))] = byte
    read_or_refuse(record_file, bytes(data[: max(1, int(cut * len(data)))]), "fwbench.run/3")


def test_the_unmutated_sample_is_read(record_file):
    assert read_or_refuse(record_file, encoded(SAMPLE, ascii_only=True), None)["record_id"] == SAMPLE["record_id"]


#: file content -> the reason it is refused with (after "<path>: ")
CORRUPT = {
    "not UTF-8": (b'{"schema": "fwbench.run/1", "x": "\xff"}', "not UTF-8 text (byte 0xff at offset 34)"),
    "nested 10,000 deep": (b"[" * 10_000 + b"]" * 10_000, "not valid JSON (nested too deeply to parse)"),
    "nested 100 deep": (b'{"a":' * 100 + b"1" + b"}" * 100, "nested more than 64 levels deep"),
    "5 MB string": (b'{"a": "' + b"x" * 5_000_000 + b'"}', f"5,000,009 bytes, larger than {MAX_RECORD_BYTES:,} bytes"),
    "empty": (b"", "empty file, no JSON in it"),
    "blank": (b" \n\t", "empty file, no JSON in it"),
    "array": (b"[1, 2]", "a record must be a JSON object, got list"),
    "string": (b'"record"', "a record must be a JSON object, got str"),
    "NaN": (b'{"a": NaN}', "not valid JSON (NaN is not a JSON number)"),
    "infinite": (b'{"a": 1e400}', "not valid JSON (number 1e400 is beyond the range of a float)"),
    "huge integer": (b'{"a": 1' + b"0" * 400 + b"}", "not valid JSON (integer of 401 digits is beyond the range"),
    "unpaired surrogate": (b'{"a": {"b": "\\ud800"}}', "a string at a.b holds an unpaired surrogate escape"),
    "schema a list": (b'{"schema": ["fwbench.run/1"]}', "field 'schema' is ['fwbench.run/1'], expected one of"),
}


@pytest.mark.parametrize("case", CORRUPT)
def test_corrupt_files_are_refused_naming_the_problem(tmp_path, case):
    data, reason = CORRUPT[case]
    path = tmp_path / "record.json"
    path.write_bytes(data)
    with pytest.raises(RecordError) as refused:
        read_record(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and reason in message
    assert "\n" not in message and len(message) <= MAX_MESSAGE_CHARS


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "record.json"
    path.write_bytes(b"\xef\xbb\xbf" + encoded(SAMPLE, ascii_only=False))
    assert read_record(path)["record_id"] == SAMPLE["record_id"]


def test_what_is_not_a_regular_file_is_refused_unopened(tmp_path):
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "loop.json").symlink_to("loop.json")
    (tmp_path / "dangling.json").symlink_to("nowhere.json")
    os.mkfifo(tmp_path / "pipe.json")  # opening it would wait for a writer forever
    reasons = {}
    for name in ("folder.json", "loop.json", "dangling.json", "pipe.json"):
        with pytest.raises(RecordError) as refused:
            read_record(tmp_path / name)
        reasons[name] = str(refused.value).removeprefix(f"{tmp_path / name}: ")
    assert reasons == {
        "folder.json": "a directory, not a record file",
        "loop.json": "cannot read: Too many levels of symbolic links",
        "dangling.json": "cannot read: No such file or directory",
        "pipe.json": "a named pipe, not a record file",
    }


def test_a_record_error_is_one_short_line():
    assert str(RecordError("a.json: field 'x\ny': bad\r")) == "a.json: field 'x\\ny': bad\\r"
    long = str(RecordError("a.json: " + "x" * 5000))
    assert len(long) == MAX_MESSAGE_CHARS and long.endswith("…")
