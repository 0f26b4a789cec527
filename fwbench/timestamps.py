"""Timestamps as every record stores them: UTC, ISO 8601, milliseconds, a ``Z`` suffix; and Unix seconds as the
command lines write them (``--deadline``) and as their messages say them."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> str:
    """The current UTC time as an ISO 8601 string with a ``Z`` suffix."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def utc_iso_seconds(moment: float) -> str:
    """Unix seconds as an ISO 8601 time in UTC, to the second: ``2026-12-02T14:39:03Z``."""
    return datetime.fromtimestamp(int(moment), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_clock(moment: float) -> str:
    """Unix seconds as a time of day in UTC: ``14:39:03 UTC``."""
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%H:%M:%S UTC")
