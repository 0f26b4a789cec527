"""Timeouts and retries for failures of the network, the same for every source.

Every request has a connect and a read timeout (a server that accepts the connection and then says nothing would
otherwise hold the collection forever). A request that fails in the network (``requests.RequestException``: a
timeout, a reset connection, a body cut short) or that the server calls temporary is retried here, after 1 s, 2 s,
…; once every attempt has failed the source is stopped, so that a host that stopped answering costs a few
timeouts, not one per remaining metric. HTTP statuses (5xx, rate limits) are retried by each client's own policy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import requests

from ecosystem.errors import CollectionError, SourceStopped

CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 30
#: ``timeout=`` for requests: (connect, read)
TIMEOUT = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)
#: attempts per request before a source is given up for this run
ATTEMPTS = 3

T = TypeVar("T")


class TransientError(CollectionError):
    """A failure the server calls temporary (e.g. Stack Exchange's internal_error): retried like a timeout."""


def backoff_delay(attempt: int, max_wait: float) -> float:
    """Seconds to wait before retry number ``attempt`` (1, 2, …): 1, 2, 4, … and never more than ``max_wait``."""
    return min(2.0 ** (attempt - 1), max_wait)


def retry_transient(
    request: Callable[[], T],
    source: str,
    max_wait: float,
    sleep: Callable[[float], None] | None = None,
    attempts: int = ATTEMPTS,
) -> T:
    """``request()``, retried with backoff when the network fails or the server says the failure is temporary.

    Raises SourceStopped, naming ``source`` and the last error, when all ``attempts`` failed. A ``RetryError`` (a
    client's own status retries exhausted) passes through untouched: retrying it here would multiply the retries.
    """
    for attempt in range(1, attempts + 1):
        try:
            return request()
        except requests.exceptions.RetryError:
            raise
        except (requests.RequestException, TransientError) as exc:
            if attempt < attempts:
                (sleep or time.sleep)(backoff_delay(attempt, max_wait))
                continue
            failure = str(exc) if isinstance(exc, TransientError) else f"{source} request failed: {exc!r}"
            raise SourceStopped(f"{failure} (failed {attempts} times; not asked again in this collection)") from None
    raise AssertionError("unreachable")


def get_json(
    session: requests.Session,
    url: str,
    source: str,
    max_wait: float,
    sleep: Callable[[float], None] | None = None,
    malformed: Callable[[str], Exception] = CollectionError,
) -> object:
    """The JSON body of ``GET url``, retried as above: CollectionError on an HTTP error, ``malformed(message)`` on a
    body that is not JSON."""
    response = retry_transient(lambda: session.get(url, timeout=TIMEOUT), source, max_wait, sleep)
    if response.status_code != 200:
        raise CollectionError(f"{source} {url}: HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise malformed(f"{source} {url}: malformed JSON: {exc}") from None
