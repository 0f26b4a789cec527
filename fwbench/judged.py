"""Which runs count: the one rule by which the matrix (``runners.matrix.comparisons``) and the site
(``generator.records``) choose the runs that may enter a comparison. A run that does not count is still shown, with
why."""

from __future__ import annotations

from typing import Any


def busy(record: dict[str, Any]) -> bool:
    """Whether other work shared the CPUs while the run's clock ran (``load.busy``, set by
    ``runners.measure.machine_load``)."""
    return bool((record.get("load") or {}).get("busy"))


def older(record: dict[str, Any]) -> bool:
    """Whether the record was upgraded from an earlier schema: it lacks what a current record measures."""
    return bool(record.get("upgraded_from"))


def counts(record: dict[str, Any]) -> bool:
    """Whether a run may enter a comparison: it ended ok, on a machine that was not busy, in a current record."""
    return record["status"] == "ok" and not busy(record) and not older(record)
