"""`ecosystem show`: the latest snapshot as a table, with the change since the previous snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ecosystem.snapshot import load_snapshots, ok_count

_HEADERS = ("source", "subject", "metric", "value", "change", "note")
_NOTE_WIDTH = 60


def format_value(value: Any) -> str:
    """Integers with thousands separators, floats to 2 decimals (4 below 1), strings as they are."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) >= 1 else f"{value:.4f}"
    return str(value)


def format_change(new: dict[str, Any], old: dict[str, Any] | None) -> str:
    """``+n``/``-n`` between two collected numbers, ``was X`` for a changed string, else empty."""
    if not old or new["status"] != "ok" or old["status"] != "ok":
        return ""
    a, b = old["value"], new["value"]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        delta = b - a
        return "0" if delta == 0 else ("+" if delta > 0 else "-") + format_value(abs(delta))
    return "" if a == b else f"was {a}"


def _note(metric: dict[str, Any]) -> str:
    if metric["status"] == "ok":
        return ""
    note = f"{metric['status']}: {metric.get('reason') or ''}"
    return note if len(note) <= _NOTE_WIDTH else note[: _NOTE_WIDTH - 1] + "…"


def render(latest: dict[str, Any], previous: dict[str, Any] | None) -> str:
    """The table for ``latest``; the change column compares with ``previous`` when there is one."""
    rows = []
    for source, subjects in latest["sources"].items():
        for subject, metrics in subjects.items():
            for name, metric in metrics.items():
                old = (previous or {}).get("sources", {}).get(source, {}).get(subject, {}).get(name)
                rows.append(
                    (source, subject, name, format_value(metric["value"]), format_change(metric, old), _note(metric))
                )
    widths = [max(len(str(cell)) for cell in column) for column in zip(_HEADERS, *rows, strict=True)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (_HEADERS, tuple("-" * w for w in widths), *rows)
    ]
    state = "complete" if latest["complete"] else f"partial, {len(latest['failures'])} failed"
    since = f"change since {previous['date']}" if previous else "no earlier snapshot to compare with"
    head = (
        f"Ecosystem snapshot {latest['date']} ({state}; {ok_count(latest)} metrics collected; "
        f"window {latest['window_days']} days; collected {latest['collected_at']}); {since}"
    )
    return "\n".join([head, "", *lines])


def show(out_dir: Path) -> str | None:
    """The table for the newest snapshot in ``out_dir``, or None when there is none."""
    history = load_snapshots(out_dir)
    if not history:
        return None
    previous = history[-2][1] if len(history) > 1 else None
    return render(history[-1][1], previous)
