"""Dated snapshot files: build one, write it without losing a better one, read the history back."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from ecosystem.metric import SourceMetrics
from fwbench.records import RecordError, read_record, write_record

SCHEMA = "fwbench.ecosystem/1"
_SNAPSHOT_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")


def build_snapshot(
    sources: list[SourceMetrics], window_days: int, authenticated: dict[str, bool], collected_at: str, day: str
) -> dict[str, Any]:
    """The snapshot record; it is complete when no metric failed (not_collected ones carry their reason)."""
    failures = [failure for source in sources for failure in source.failures]
    return {
        "schema": SCHEMA,
        "collected_at": collected_at,
        "date": day,
        "window_days": window_days,
        "complete": not failures,
        "authenticated": authenticated,
        "sources": {source.source: source.subjects for source in sources},
        "failures": failures,
    }


def ok_count(record: dict[str, Any]) -> int:
    """How many metrics of a snapshot were collected."""
    return sum(
        metric["status"] == "ok"
        for subjects in record["sources"].values()
        for metrics in subjects.values()
        for metric in metrics.values()
    )


def snapshot_files(out_dir: Path) -> list[Path]:
    """``<YYYY-MM-DD>.json`` files of ``out_dir``, oldest first."""
    if not out_dir.is_dir():
        return []
    return sorted(p for p in out_dir.iterdir() if _SNAPSHOT_NAME.match(p.name) and p.is_file())


def load_snapshots(
    out_dir: Path, on_error: Callable[[RecordError], None] | None = None
) -> list[tuple[Path, dict[str, Any]]]:
    """Every valid snapshot, oldest first; a bad one raises RecordError, or goes to ``on_error`` (skipped)."""
    loaded = []
    for path in snapshot_files(out_dir):
        try:
            loaded.append((path, read_record(path, kind=SCHEMA)))
        except RecordError as exc:
            if on_error is None:
                raise
            on_error(exc)
    return loaded


def star_baselines(
    history: list[tuple[Path, dict[str, Any]]], today: date, window_days: int
) -> dict[str, tuple[str, int]]:
    """Per repository, the newest collected star count from a snapshot at least ``window_days`` old."""
    cutoff = (today - timedelta(days=window_days)).isoformat()
    baselines: dict[str, tuple[str, int]] = {}
    for _, record in history:  # oldest first, so newer qualifying snapshots win
        if record["date"] > cutoff:
            continue
        for repo, metrics in record["sources"].get("github", {}).items():
            stars = metrics.get("stars")
            if stars and stars["status"] == "ok" and isinstance(stars["value"], int):
                baselines[repo] = (record["date"], stars["value"])
    return baselines


@dataclass(frozen=True)
class SaveResult:
    """Where a snapshot went, whether it was written, and a line for the user."""

    path: Path
    written: bool
    message: str


def _describe(record: dict[str, Any]) -> str:
    return f"{'complete' if record['complete'] else 'partial'}, {ok_count(record)} metrics collected"


def save_snapshot(out_dir: Path, record: dict[str, Any]) -> SaveResult:
    """Write ``<out_dir>/<date>.json`` unless today's existing snapshot is better.

    Better means complete where the new one is partial, or as complete with more metrics collected
    (a ``--only`` run never replaces a fuller one). Only today's file is ever touched: earlier days
    are history and stay as they are.
    """
    path = out_dir / f"{record['date']}.json"
    if path.exists():
        try:
            existing = read_record(path, kind=SCHEMA)
        except RecordError:
            existing = None  # an unreadable file of today holds nothing worth keeping
        if existing and (existing["complete"], ok_count(existing)) > (record["complete"], ok_count(record)):
            return SaveResult(
                path,
                False,
                f"kept {path} ({_describe(existing)}); this collection ({_describe(record)}) was not written",
            )
    write_record(path, record)
    return SaveResult(path, True, f"wrote {path} ({_describe(record)})")
