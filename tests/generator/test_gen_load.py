"""Loading: valid records are kept, invalid ones skipped (or fatal with strict) naming file and field."""

from __future__ import annotations

import json

import gen_records
import pytest

from fwbench.records import RecordError
from generator.load import load_results


def test_loads_every_kind_and_skips_the_invalid_record(results_dir):
    results = load_results(results_dir)
    assert len(results.runs) == 19
    assert len(results.probes) == 3
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
