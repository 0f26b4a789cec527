"""Metric entries of a snapshot, and the per-source collector that records them (failures included)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ecosystem.errors import CollectionError, SourceStopped


def make_metric(
    value: Any, method: dict[str, Any], collected_at: str | None, status: str = "ok", reason: str | None = None
) -> dict[str, Any]:
    """One snapshot metric: its value, whether it was collected, why not, and how it was computed."""
    if "endpoint" not in method:
        raise ValueError("a metric's method must name its endpoint")
    return {"value": value, "status": status, "reason": reason, "method": dict(method), "collected_at": collected_at}


class SourceMetrics:
    """The metrics of one source (subject -> name -> metric) and the failures among them.

    Collectors run one *step* at a time; a step computes one or more metrics from a few requests.
    A failing step marks its metrics failed; once the source stops answering (SourceStopped),
    every later step is recorded as not attempted, with the reason, instead of hammering the API.
    """

    def __init__(self, source: str, clock: Callable[[], str]):
        self.source = source
        self.subjects: dict[str, dict[str, dict[str, Any]]] = {}
        self.failures: list[dict[str, Any]] = []
        self.stopped: str | None = None
        self._clock = clock

    def set(self, subject: str, name: str, value: Any, method: dict[str, Any]) -> None:
        """Record a collected value."""
        self.subjects.setdefault(subject, {})[name] = make_metric(value, method, self._clock())

    def skip(self, subject: str, name: str, reason: str, method: dict[str, Any]) -> None:
        """Record a metric that cannot be collected in this configuration (no token, no history yet)."""
        self.subjects.setdefault(subject, {})[name] = make_metric(None, method, None, "not_collected", reason)

    def fail(self, subject: str, names: Iterable[str], reason: str, method: dict[str, Any]) -> None:
        """Record metrics whose collection failed, and list them among the snapshot's failures."""
        for name in names:
            self.subjects.setdefault(subject, {})[name] = make_metric(None, method, None, "failed", reason)
            self.failures.append({"source": self.source, "subject": subject, "metric": name, "reason": reason})

    def step(
        self,
        subjects: str | tuple[str, ...],
        names: tuple[str, ...],
        method: dict[str, Any],
        compute: Callable[[], None],
    ) -> None:
        """Run ``compute`` (which calls set/skip for ``names`` of ``subjects``); on error mark them failed."""
        if self.stopped:
            self._fail_all(subjects, names, f"not attempted: {self.stopped}", method)
            return
        try:
            compute()
        except SourceStopped as exc:
            self.stopped = str(exc)
            self._fail_all(subjects, names, str(exc), method)
        except CollectionError as exc:
            self._fail_all(subjects, names, str(exc), method)

    def _fail_all(
        self, subjects: str | tuple[str, ...], names: tuple[str, ...], reason: str, method: dict[str, Any]
    ) -> None:
        for subject in (subjects,) if isinstance(subjects, str) else subjects:
            self.fail(subject, names, reason, method)

    @property
    def ok_count(self) -> int:
        """How many metrics were collected."""
        return sum(m["status"] == "ok" for metrics in self.subjects.values() for m in metrics.values())
