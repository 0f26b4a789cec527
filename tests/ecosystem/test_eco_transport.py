"""Network failures and temporary errors: retried with backoff, then the source is stopped with the reason."""

from __future__ import annotations

import pytest
import requests

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.transport import TransientError, retry_transient


def failing(*errors: Exception):
    """A request that raises ``errors`` in turn, then answers "ok"."""
    pending = list(errors)

    def request() -> str:
        if pending:
            raise pending.pop(0)
        return "ok"

    return request


def test_network_failures_and_temporary_errors_are_retried_with_backoff():
    sleeps: list[float] = []
    request = failing(requests.ConnectTimeout("connect"), TransientError("internal_error"))
    assert retry_transient(request, "X", max_wait=1.5, sleep=sleeps.append) == "ok"
    assert sleeps == [1.0, 1.5]  # 1 s, then 2 s capped at max_wait


def test_a_retry_error_is_not_retried_again_and_other_errors_pass_through():
    with pytest.raises(requests.exceptions.RetryError):
        retry_transient(failing(requests.exceptions.RetryError("502 five times")), "X", 60, sleep=pytest.fail)
    with pytest.raises(CollectionError, match="bad_parameter"):
        retry_transient(failing(CollectionError("bad_parameter")), "X", 60, sleep=pytest.fail)


def test_failing_every_attempt_stops_the_source_naming_the_last_error():
    sleeps: list[float] = []
    request = failing(*[requests.ReadTimeout("read timed out")] * 3)
    with pytest.raises(SourceStopped, match=r"^X request failed: ReadTimeout\('read timed out'\) \(failed 3 times"):
        retry_transient(request, "X", 60, sleep=sleeps.append)
    assert sleeps == [1.0, 2.0]
