"""A Stack Exchange API client on stackapi: timeouts, retries, the daily quota, per-method backoff, count filter."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import requests
import stackapi.stackapi as stackapi_module
from stackapi import StackAPI, StackAPIError

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.transport import ATTEMPTS, TIMEOUT, TransientError, retry_transient

SITE = "stackoverflow"
HOST = "api.stackexchange.com"
API = f"https://{HOST}/2.3"
# error_id values the API documents as transient (internal_error, temporarily_unavailable)
_TRANSIENT_ERRORS = {500, 503}
_THROTTLE_ERRORS = {502}  # throttle_violation: quota or request rate exceeded

#: The wrapper fields a count request asks for. The built-in filter ``total`` holds ``.total`` alone and so hides
#: ``backoff``, which the API still expects to be honoured, and the quota. A filter's id is an opaque string that
#: only ``/filters/create`` gives out; ``StackClient.count_filter`` asks for it once per collection.
COUNT_FILTER_FIELDS = (".backoff", ".quota_max", ".quota_remaining", ".total")


class _RequestsWithTimeout:
    """What stackapi sees as its ``requests`` module: the real one, except that every GET has ``TIMEOUT``
    (stackapi passes none, so a server that stops answering would hold the collection forever)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(requests, name)

    @staticmethod
    def get(url: str, **kwargs: Any) -> requests.Response:
        return requests.get(url, timeout=TIMEOUT, **kwargs)


class StackClient:
    """StackAPI, one page per call: we paginate, watch ``quota_remaining`` and honour ``backoff`` ourselves.

    ``backoff`` binds the method that returned it ("wait that number of seconds before calling that method
    again"): stackapi sleeps ``backoff + 1`` seconds inside ``fetch``; we route that sleep into a deadline for the
    method, so that the wait happens, bounded by ``max_wait`` and through an injectable ``sleep``, before the next
    call of the same method. Network failures and temporary API errors are retried (``ecosystem.transport``).
    Note that ``StackAPI(...)`` itself requests ``/sites`` at construction.
    """

    def __init__(
        self,
        key: str | None = None,
        max_wait: float = 60.0,
        attempts: int = ATTEMPTS,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_wait = max_wait
        self.attempts = attempts
        self.quota_remaining: int | None = None
        self.quota_max: int | None = None
        self.requests = 0
        self._sleep = sleep or time.sleep
        self._clock = clock
        self._not_before: dict[str, float] = {}  # method -> earliest time of its next call
        self._count_filter: str | None = None
        self.api = self._call("sites", lambda: StackAPI(SITE, key=key, max_pages=1, page_size=100))

    @contextmanager
    def _routed(self, method: str) -> Iterator[None]:
        original_sleep, original_requests = stackapi_module.sleep, stackapi_module.requests
        stackapi_module.sleep = lambda seconds: self._defer(method, seconds)
        stackapi_module.requests = _RequestsWithTimeout()
        try:
            yield
        finally:
            stackapi_module.sleep, stackapi_module.requests = original_sleep, original_requests

    def _defer(self, method: str, seconds: float) -> None:
        self._not_before[method] = max(self._not_before.get(method, 0.0), self._clock() + seconds)

    def _wait_for_backoff(self, method: str) -> None:
        delay = self._not_before.get(method, 0.0) - self._clock()
        if delay <= 0:
            return
        if delay > self.max_wait:
            raise SourceStopped(
                f"Stack Exchange asked to back off {delay:.0f} s, more than the "
                f"allowed --max-wait {self.max_wait:.0f} s"
            )
        self._sleep(delay)

    def _call(self, method: str, request: Callable[[], Any]) -> Any:
        def attempt() -> Any:
            if self.quota_remaining is not None and self.quota_remaining <= 0:
                raise SourceStopped(f"Stack Exchange quota exhausted (quota_remaining 0 of {self.quota_max})")
            self._wait_for_backoff(method)
            self.requests += 1
            try:
                with self._routed(method):
                    return request()
            except StackAPIError as exc:
                error = _describe(exc)
                if exc.error in _THROTTLE_ERRORS:
                    raise SourceStopped(f"Stack Exchange throttled the collection: {error}") from None
                if exc.error in _TRANSIENT_ERRORS or not isinstance(exc.error, int):  # not an int: no response
                    raise TransientError(error) from None
                raise CollectionError(error) from None
            except ValueError as exc:  # StackAPI(...) rejects the site when /sites lacks it
                raise CollectionError(f"Stack Exchange: {exc}") from None

        return retry_transient(attempt, "Stack Exchange", self.max_wait, self._sleep, self.attempts)

    def fetch(self, endpoint: str, **params: Any) -> dict[str, Any]:
        """One page of ``endpoint`` (items, has_more, total, quota_*), after the quota and backoff checks."""
        result = self._call(endpoint, lambda: self.api.fetch(endpoint, **params))
        if result.get("quota_remaining", -1) >= 0:  # stackapi reports -1 when the field was filtered out
            self.quota_remaining, self.quota_max = result["quota_remaining"], result["quota_max"]
        return result

    def items(self, endpoint: str, limit: int | None = None, **params: Any) -> list[dict[str, Any]]:
        """Items of ``endpoint`` across pages, following ``has_more`` until ``limit`` items."""
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            result = self.fetch(endpoint, page=page, **params)
            items.extend(result["items"])
            if not result["has_more"] or (limit is not None and len(items) >= limit):
                return items[:limit] if limit is not None else items
            page += 1

    def count_filter(self) -> str:
        """The id of a filter holding COUNT_FILTER_FIELDS, from ``/filters/create`` (one request per client)."""
        if self._count_filter is None:
            created = self.fetch("filters/create", include=";".join(COUNT_FILTER_FIELDS), base="none", unsafe="false")[
                "items"
            ]
            fields = set(created[0].get("included_fields", ())) if created else set()
            if not created or "filter" not in created[0] or not fields.issuperset(COUNT_FILTER_FIELDS):
                raise CollectionError(f"filters/create did not return a filter holding {';'.join(COUNT_FILTER_FIELDS)}")
            self._count_filter = created[0]["filter"]
        return self._count_filter

    def total(self, endpoint: str, **params: Any) -> int:
        """The number of matching items: one request under the count filter (``total``, ``backoff``, quota)."""
        return self.fetch(endpoint, filter=self.count_filter(), **params)["total"]


def _describe(exc: StackAPIError) -> str:
    # never include exc.url: it carries the key; stackapi puts a connection error's text in every field
    if isinstance(exc.error, int):
        return f"Stack Exchange error {exc.error} {exc.code}: {exc.message}"
    return f"Stack Exchange request failed: {exc.message}"
