"""The ecosystem snapshots' figures: a figure's collection status in words, a metric's history across snapshots."""

from __future__ import annotations

from collections import defaultdict

from generator.i18n import N_
from generator.message import Message, Text
from generator.records.load import Loaded

#: a figure's collection status -> in words (a figure that is "ok" shows its value)
STATUS_WORDS = {"not_collected": N_("not collected"), "failed": N_("failed")}


def status_words(status: str) -> Text:
    """A figure's collection status, language-neutral (worded where shown)."""
    return Message(STATUS_WORDS[status]) if status in STATUS_WORDS else status.replace("_", " ")


def history(snapshots: list[Loaded], source: str, metric: str) -> dict[str, list[tuple[str, float]]]:
    """Subject -> [(snapshot date, value)] for one numeric metric, across all snapshots that have it."""
    series: dict[str, dict[str, float]] = defaultdict(dict)
    for snap in snapshots:
        for subject, metrics in snap.record["sources"].get(source, {}).items():
            m = metrics.get(metric)
            if m and m["status"] == "ok" and isinstance(m["value"], int | float):
                series[subject][snap.record["date"]] = m["value"]
    return {s: sorted(points.items()) for s, points in series.items() if len(points) >= 2}
