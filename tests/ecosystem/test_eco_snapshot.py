"""Snapshots: schema-valid records; a better one of the day is never replaced; history stays untouched."""

from __future__ import annotations

from datetime import date

import pytest

from ecosystem.metric import SourceMetrics
from ecosystem.snapshot import build_snapshot, load_snapshots, ok_count, save_snapshot, star_baselines
from fwbench.records import RecordError, read_record, validate

METHOD = {"endpoint": "https://api.github.com/repos/google/flax", "window_days": None, "sample_size": None}


def snapshot(day: str, stars: int = 100, failed: bool = False, forks: bool = True) -> dict:
    metrics = SourceMetrics("github", lambda: f"{day}T10:00:00.000Z")
    metrics.set("google/flax", "stars", stars, METHOD)
    if forks:
        metrics.set("google/flax", "forks", 7, METHOD)
    if failed:
        metrics.fail("google/flax", ["subscribers"], "GitHub API 502: Server Error", METHOD)
    return build_snapshot([metrics], 365, {"github": False}, f"{day}T10:00:00.000Z", day)


def test_snapshot_validates_and_counts_failures():
    record = snapshot("2025-06-01", failed=True)
    validate(record, kind="fwbench.ecosystem/1")
    assert record["complete"] is False and ok_count(record) == 2
    assert record["failures"] == [
        {
            "source": "github",
            "subject": "google/flax",
            "metric": "subscribers",
            "reason": "GitHub API 502: Server Error",
        }
    ]


def test_schema_rejects_a_metric_without_method():
    record = snapshot("2025-06-01")
    del record["sources"]["github"]["google/flax"]["stars"]["method"]
    with pytest.raises(RecordError, match="google/flax.stars"):
        validate(record)


def test_partial_never_overwrites_a_complete_snapshot_of_the_day(tmp_path):
    assert save_snapshot(tmp_path, snapshot("2025-06-01", stars=100)).written
    result = save_snapshot(tmp_path, snapshot("2025-06-01", stars=999, failed=True))
    assert not result.written and "kept" in result.message and "was not written" in result.message
    kept = read_record(tmp_path / "2025-06-01.json")
    assert kept["sources"]["github"]["google/flax"]["stars"]["value"] == 100


def test_a_complete_collection_replaces_a_partial_one_of_the_day(tmp_path):
    save_snapshot(tmp_path, snapshot("2025-06-01", failed=True))
    assert save_snapshot(tmp_path, snapshot("2025-06-01", stars=101)).written
    assert read_record(tmp_path / "2025-06-01.json")["complete"] is True


def test_a_smaller_complete_collection_does_not_replace_a_fuller_one(tmp_path):
    save_snapshot(tmp_path, snapshot("2025-06-01"))
    assert not save_snapshot(tmp_path, snapshot("2025-06-01", forks=False)).written


def test_history_is_append_only(tmp_path):
    save_snapshot(tmp_path, snapshot("2025-05-01"))
    before = (tmp_path / "2025-05-01.json").read_bytes()
    save_snapshot(tmp_path, snapshot("2025-06-01", stars=150))
    assert (tmp_path / "2025-05-01.json").read_bytes() == before
    assert [p.name for p, _ in load_snapshots(tmp_path)] == ["2025-05-01.json", "2025-06-01.json"]


def test_star_baseline_is_the_newest_snapshot_at_least_a_window_old(tmp_path):
    for day, stars in [("2024-04-01", 50), ("2024-05-30", 80), ("2024-12-01", 90)]:
        save_snapshot(tmp_path, snapshot(day, stars=stars))
    history = load_snapshots(tmp_path)
    assert star_baselines(history, date(2025, 6, 1), 365) == {"google/flax": ("2024-05-30", 80)}
    assert star_baselines(history, date(2024, 6, 1), 365) == {}


def test_bad_history_file_is_reported_or_skipped(tmp_path):
    save_snapshot(tmp_path, snapshot("2025-05-01"))
    (tmp_path / "2025-05-02.json").write_text("{not json")
    with pytest.raises(RecordError, match="2025-05-02.json"):
        load_snapshots(tmp_path)
    seen: list[str] = []
    assert len(load_snapshots(tmp_path, on_error=lambda exc: seen.append(str(exc)))) == 1
    assert "not valid JSON" in seen[0]


def test_schema_requires_a_reason_for_a_metric_that_was_not_collected():
    record = snapshot("2025-06-01", failed=True)
    record["sources"]["github"]["google/flax"]["subscribers"]["reason"] = None
    with pytest.raises(RecordError, match="subscribers.reason"):
        validate(record)
