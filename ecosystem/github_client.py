"""The PyGithub client the collectors use: timeouts, pacing, rate-limit waits, and errors turned into reasons."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import requests
from github import Auth, Github, GithubException, GithubRetry, RateLimitExceededException
from github.GithubException import RateLimitExceededExceedsMaxWait
from urllib3.util.retry import Retry

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.transport import READ_TIMEOUT_S, retry_transient

HOST = "api.github.com"
API = f"https://{HOST}"
#: PyGithub's pause between requests; GitHub asks clients not to burst
REQUEST_PACE_S = 0.25
#: what GitHub answers when a rate limit (primary or secondary) is exceeded
RATE_LIMIT_STATUSES = (403, 429)

T = TypeVar("T")


def reset_epoch(headers: Any) -> int | None:
    """When the spent rate limit resets (Unix seconds): ``x-ratelimit-reset`` once ``x-ratelimit-remaining`` is 0."""
    remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
    return int(reset) if remaining == "0" and reset and reset.isdigit() else None


def reset_wait(headers: Any, now: float) -> float | None:
    """Seconds to wait for a spent rate limit to reset, or None when the headers do not say it is spent."""
    reset = reset_epoch(headers)
    return None if reset is None else max(0.0, reset - now) + 1  # +1: the reset falls somewhere in that second


class RateLimitRetry(GithubRetry):
    """GithubRetry that handles 429 like 403 and never waits less, or longer, than a rate limit asks.

    PyGithub retries 429 only when it carries ``Retry-After``, and urllib3 shortens a ``Retry-After`` beyond its
    cap, retrying too early. Here a 403 or 429 with ``Retry-After``, or a 429 whose ``x-ratelimit-remaining`` is 0,
    waits exactly that long when it is within ``max_rate_limit_wait`` and raises RateLimitExceededExceedsMaxWait
    otherwise; a 429 that names no wait at all raises RateLimitExceededException, which stops the source.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("status_forcelist", [*range(500, 600), 429])
        super().__init__(**kwargs)

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Retry:
        status = getattr(response, "status", None)
        if status not in RATE_LIMIT_STATUSES:
            return super().increment(method, url, response, error, _pool, _stacktrace)
        retry_after = response.headers.get("Retry-After")
        wait = self.parse_retry_after(retry_after) if retry_after else None
        if wait is None and status == 429:
            wait = reset_wait(response.headers, time.time())
        if wait is None and status == 403:  # GithubRetry reads the body: a primary or a secondary rate limit
            return super().increment(method, url, response, error, _pool, _stacktrace)
        if wait is None:
            raise RateLimitExceededException(status, self._body(response, url), response.headers)
        if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            raise RateLimitExceededExceedsMaxWait(status, self._body(response, url), response.headers, wait=wait)
        retry = Retry.increment(self, method, url, response, error, _pool, _stacktrace)
        retry.get_backoff_time = lambda: wait  # type: ignore[method-assign]  # urllib3 sleeps a Retry-After itself
        return retry

    @staticmethod
    def _body(response: Any, url: str | None) -> Any:
        content = GithubRetry.get_content(response, url or "")
        try:
            return json.loads(content)
        except ValueError:
            return content.decode(errors="replace")


def make_github(token: str | None, max_wait: float) -> Github:
    """A PyGithub client whose rate-limit waits never exceed ``max_wait`` seconds.

    HTTP statuses (5xx, rate limits) are retried by RateLimitRetry; network failures are not (``connect``, ``read``
    and ``other`` are 0) because ``github_call`` retries them, the same way for every source. Requests are spaced
    by REQUEST_PACE_S (the collectors only read). PyGithub takes one timeout, used to connect and to read.
    """
    retry = RateLimitRetry(
        total=4,
        connect=0,
        read=0,
        other=0,
        backoff_factor=1.0,
        backoff_max=max_wait,
        max_rate_limit_wait=max_wait,
        secondary_rate_wait=min(60.0, max_wait),
    )
    return Github(
        auth=Auth.Token(token) if token else None,
        retry=retry,
        timeout=READ_TIMEOUT_S,
        per_page=100,
        seconds_between_requests=REQUEST_PACE_S or None,
    )


@contextmanager
def github_errors(max_wait: float) -> Iterator[None]:
    """Turn PyGithub/requests errors into CollectionError (SourceStopped for rate limits), without secrets."""
    try:
        yield
    except RateLimitExceededExceedsMaxWait as exc:
        raise SourceStopped(
            f"GitHub rate limit: the reset is {exc.wait:.0f} s away, more than the allowed "
            f"--max-wait {max_wait:.0f} s (HTTP {exc.status})"
        ) from None
    except RateLimitExceededException as exc:
        unknown = "; it names no Retry-After or reset time to wait for" if exc.status == 429 else ""
        raise SourceStopped(f"GitHub rate limit exceeded ({exc.status}): {error_message(exc)}{unknown}") from None
    except GithubException as exc:
        raise CollectionError(f"GitHub API {exc.status}: {error_message(exc)}") from None
    except requests.RequestException as exc:
        raise CollectionError(f"GitHub request failed: {type(exc).__name__}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CollectionError(f"GitHub sent malformed JSON: {exc}") from None
    except RuntimeError as exc:  # PyGithub refuses redirects to another host or scheme
        raise CollectionError(f"GitHub: {exc}") from None


def github_call(request: Callable[[], T], max_wait: float, sleep: Callable[[float], None] | None = None) -> T:
    """``request()`` with network failures retried (``ecosystem.transport``) and errors turned into reasons."""
    with github_errors(max_wait):
        return retry_transient(request, "GitHub", max_wait, sleep)


def error_message(exc: GithubException) -> str:
    """GitHub's ``message`` of an error response (or the whole body when it has none)."""
    data = exc.data
    return str(data.get("message") or data) if isinstance(data, dict) else str(data or exc.message or "")


def require(data: Any, field: str, where: str) -> Any:
    """``data[field]``, or a CollectionError naming the field and the response it is missing from."""
    if not isinstance(data, dict) or field not in data:
        raise CollectionError(f"{where}: response lacks field '{field}'")
    return data[field]


def parse_time(value: str) -> datetime:
    """A GitHub ISO 8601 timestamp (``…Z``) as an aware datetime."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))
