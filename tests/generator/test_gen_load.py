"""Loading: valid records are kept, invalid ones skipped (or fatal with strict) naming file and field."""

from __future__ import annotations

import json
import os
from pathlib import Path

import gen_records
import pytest

from fwbench.records import RecordError
from generator import cli as generator_cli
from generator.records.load import load_results


def test_loads_every_kind_and_skips_the_invalid_record(results_dir):
    results = load_results(results_dir)
    assert len(results.runs) == 19
    assert len(results.probes) == 4
    assert [s.record["date"] for s in results.snapshots] == ["2026-11-01", "2026-11-30"]
    assert len(results.skipped) == 1
    skipped = results.skipped[0]
    assert skipped.name == f"runs/{gen_records.CPU_MACHINE}/invalid_run.json"
    assert "timing.epoch_seconds" in skipped.reason
    assert str(skipped.path) in skipped.message


def test_strict_raises_naming_file_and_field(results_dir):
    with pytest.raises(RecordError, match=r"invalid_run\.json: field 'timing\.epoch_seconds'"):
        load_results(results_dir, strict=True)


def test_unreadable_json_and_wrong_kind_are_skipped(tmp_path):
    (tmp_path / "runs" / "m").mkdir(parents=True)
    (tmp_path / "runs" / "m" / "broken.json").write_text("{not json")
    (tmp_path / "probes").mkdir()
    (tmp_path / "probes" / "run-in-probes.json").write_text(json.dumps(gen_records.run()))
    results = load_results(tmp_path)
    reasons = {s.name: s.reason for s in results.skipped}
    assert "not valid JSON" in reasons["runs/m/broken.json"]
    assert "field 'schema'" in reasons["probes/run-in-probes.json"]
    assert results.runs == [] and results.probes == []


def test_missing_results_directory_gives_empty_results(tmp_path):
    results = load_results(tmp_path / "nowhere")
    assert (results.runs, results.probes, results.snapshots, results.skipped) == ([], [], [], [])
    assert results.latest_snapshot() is None


def test_failed_run_without_hardware_takes_machine_from_its_folder(results_dir):
    failed = [r for r in load_results(results_dir).runs if r.record["status"] == "oom"]
    assert len(failed) == 1 and failed[0].record["hardware"] is None
    assert failed[0].machine_id == gen_records.CPU_MACHINE


def corrupt_results(root: Path) -> dict[str, str]:
    """A results tree holding one valid run and every kind of bad file; returns name -> expected reason."""
    runs = root / "runs" / "m"
    runs.mkdir(parents=True)
    (runs / "valid-with-bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(gen_records.run()).encode())
    files = {
        "not-utf8.json": (b'{"a": "\xff"}', "not UTF-8 text (byte 0xff at offset 7)"),
        "deep.json": (b"[" * 10_000 + b"]" * 10_000, "not valid JSON (nested too deeply to parse)"),
        "big.json": (
            b'{"a": "' + b"x" * 5_000_000 + b'"}',
            "5,000,009 bytes, larger than 2,097,152 bytes (2 MiB), the most a record file may hold",
        ),
        "empty.json": (b"", "empty file, no JSON in it"),
        "list.json": (b"[]", "a record must be a JSON object, got list"),
    }
    for name, (data, _) in files.items():
        (runs / name).write_bytes(data)
    (runs / "folder.json").mkdir()
    (runs / "loop.json").symlink_to("loop.json")
    (runs / "back.json").symlink_to("..")  # a folder link loop: listed, not followed
    (runs / "cycle").symlink_to(".")  # a folder link loop not named *.json: ignored, and no endless walk
    os.mkfifo(runs / "pipe.json")
    (runs / os.fsdecode(b"bad-\xff.json")).write_text("{}")
    (root / "probes").write_text("a file where a folder belongs")
    reasons = {f"runs/m/{name}": reason for name, (_, reason) in files.items()}
    reasons.update(
        {
            "runs/m/folder.json": "a directory, not a record file",
            "runs/m/loop.json": "cannot read: Too many levels of symbolic links",
            "runs/m/back.json": "a directory, not a record file",
            "runs/m/pipe.json": "a named pipe, not a record file",
            "runs/m/bad-\\xff.json": "the file name is not printable UTF-8 text",
            "probes": "cannot list the folder: Not a directory",
        }
    )
    return reasons


def test_every_bad_file_is_one_skip_with_its_reason_and_nothing_raises(tmp_path, capsys):
    reasons = corrupt_results(tmp_path)
    results = load_results(tmp_path, progress=True)
    assert [loaded.path.name for loaded in results.runs] == ["valid-with-bom.json"]
    assert {s.name: s.reason for s in results.skipped} == reasons
    assert all("\n" not in s.message and s.name.isprintable() for s in results.skipped)
    assert "\r" not in capsys.readouterr().err  # not a terminal: no progress bar
    with pytest.raises(RecordError):
        load_results(tmp_path, strict=True)


def test_build_with_a_missing_results_directory_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        generator_cli.main(["build", "--results", str(tmp_path / "nonexistent"), "--site-dir", str(tmp_path / "s")])
    assert exit_info.value.code == 2
    assert f"argument --results: {tmp_path / 'nonexistent'}: no such directory" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_many_records_are_read_in_parallel_with_the_same_outcome(results_dir, monkeypatch):
    from generator.records import load

    alone = load_results(results_dir)
    monkeypatch.setattr(load, "CHUNK", 4)  # several chunks: the process pool reads them
    spread = load_results(results_dir)
    assert [r.path for r in spread.runs] == [r.path for r in alone.runs]
    assert [r.record for r in spread.runs] == [r.record for r in alone.runs]
    assert [s.reason for s in spread.skipped] == [s.reason for s in alone.skipped]
    with pytest.raises(RecordError, match="invalid_run.json"):
        load_results(results_dir, strict=True)
