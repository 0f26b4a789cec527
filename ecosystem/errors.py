"""Errors the collectors raise; their messages are already redacted and safe to record."""

from __future__ import annotations

from ecosystem.redact import redact


class CollectionError(Exception):
    """One request or response could not give a metric; the metric is recorded as failed with this reason."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class SourceStopped(CollectionError):
    """The source refuses further requests (quota, throttle, a wait longer than allowed): stop asking it."""


class OfflineError(Exception):
    """None of the APIs a collection needs can be reached."""


class MalformedAnswer(Exception):
    """An answer not in its API's documented shape: the collection stops and writes nothing (the message names the
    package and the field)."""
