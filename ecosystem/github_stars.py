"""Stars gained in a window: a walk over GraphQL stargazers, newest first, that survives GitHub's failures.

GitHub answers a GraphQL query that failed with HTTP 200 and an ``errors`` list (PyGithub turns any of them into
"GitHub API 400"). A page that failed inside GitHub (type ``INTERNAL``, or the untyped "Something went wrong while
executing your query … timeout") or on the way (a timeout, a gateway 502/504 after retries) is asked again from
the same cursor, after a backoff, with a smaller page: GitHub stops any request after 10 seconds, and smaller pages
finish sooner. A rate-limit error (``RATE_LIMITED``, lately also ``RATE_LIMIT``) ends the walk with the reset time,
and the walks of later repositories are not attempted; REST requests have their own budget and go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import requests
from github import Github

from ecosystem.errors import CollectionError
from ecosystem.github_client import github_errors, parse_time, require
from ecosystem.transport import backoff_delay

STARGAZERS_QUERY = """
query($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    stargazers(first: $first, after: $after, orderBy: {field: STARRED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      edges { starredAt }
    }
  }
}
"""
#: the first page size, then the smaller ones tried after a failed page (the walk keeps the smaller size)
PAGE_SIZES = (100, 50, 25)
#: stop beyond this many stars in one window rather than walk for hours
MAX_STARS_WALKED = 100_000
RATE_LIMIT_TYPES = {"RATE_LIMITED", "RATE_LIMIT"}
TRANSIENT_TYPES = {"INTERNAL"}
#: how GitHub's untyped error for a query that ran out of time begins
TRANSIENT_MESSAGE = "Something went wrong while executing your query"
WHERE = "/graphql"


class _PageFailed(Exception):
    """A page failed in a way that the same page, asked again smaller, may not."""


class StarWalker:
    """Counts the stars each repository gained since a cutoff, through one GraphQL client for a whole collection."""

    def __init__(
        self,
        gh: Github,
        max_wait: float,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.gh, self.max_wait = gh, max_wait
        self._sleep, self._clock = sleep or time.sleep, clock
        self.stopped: str | None = None  # why GraphQL is not asked again in this collection

    def gained_since(self, full_name: str, cutoff: datetime) -> tuple[int, dict[str, Any]]:
        """(stars starred at or after ``cutoff`` by current stargazers, facts about the walk for the method)."""
        if self.stopped:
            raise CollectionError(f"not attempted: {self.stopped}")
        owner, name = full_name.split("/", 1)
        gained = walked = pages = 0
        after, size, failed = None, 0, 0
        while walked < MAX_STARS_WALKED:
            stargazers, size, failures = self._page(owner, name, after, size)
            pages, failed = pages + 1, failed + failures
            starred = [parse_time(require(edge, "starredAt", WHERE)) for edge in require(stargazers, "edges", WHERE)]
            recent = sum(t >= cutoff for t in starred)
            gained, walked = gained + recent, walked + len(starred)
            info = require(stargazers, "pageInfo", WHERE)
            if recent < len(starred) or not require(info, "hasNextPage", WHERE):
                return gained, {"pages": pages, "failed_attempts": failed, "last_page_size": PAGE_SIZES[size]}
            after = require(info, "endCursor", WHERE)
        raise CollectionError(f"more than {MAX_STARS_WALKED} stars in the window")

    def _page(self, owner: str, name: str, after: str | None, size: int) -> tuple[dict[str, Any], int, int]:
        """(the stargazers connection from ``after``, the page-size index it took, failed attempts before it)."""
        for failures in range(len(PAGE_SIZES)):
            try:
                return self._query(owner, name, after, PAGE_SIZES[size]), size, failures
            except _PageFailed as exc:
                if failures == len(PAGE_SIZES) - 1:
                    raise CollectionError(
                        f"GraphQL stargazers page after cursor {after!r} failed {failures + 1} "
                        f"times, the last with first={PAGE_SIZES[size]}: {exc}"
                    ) from None
                self._sleep(backoff_delay(failures + 1, self.max_wait))
                size = min(size + 1, len(PAGE_SIZES) - 1)
        raise AssertionError("unreachable")

    def _query(self, owner: str, name: str, after: str | None, first: int) -> dict[str, Any]:
        requester = self.gh.requester
        variables = {"owner": owner, "name": name, "first": first, "after": after}
        with github_errors(self.max_wait):
            try:
                headers, data = requester.requestJsonAndCheck(
                    "POST", requester.graphql_url, input={"query": STARGAZERS_QUERY, "variables": variables}
                )
            except requests.RequestException as exc:  # timeouts, and gateway 502/504 still failing after retries
                raise _PageFailed(f"{type(exc).__name__}: {exc}") from None
        errors = data.get("errors") if isinstance(data, dict) else None
        if errors:
            self._raise_for(errors, headers)
        return require(require(require(data, "data", WHERE), "repository", WHERE), "stargazers", WHERE)

    def _raise_for(self, errors: list[Any], headers: dict[str, Any]) -> None:
        typed = [e for e in errors if isinstance(e, dict)] or [{"message": str(errors)}]
        first = typed[0]
        described = f"{first.get('type') or 'error'}: {first.get('message', '')}"
        if any(e.get("type") in RATE_LIMIT_TYPES for e in typed):
            self.stopped = f"GitHub GraphQL rate limit ({described}); {self._reset(headers)}"
            raise CollectionError(self.stopped)
        if first.get("type") in TRANSIENT_TYPES or str(first.get("message", "")).startswith(TRANSIENT_MESSAGE):
            raise _PageFailed(described)
        raise CollectionError(f"GitHub GraphQL {described}")

    def _reset(self, headers: dict[str, Any]) -> str:
        reset = headers.get("x-ratelimit-reset")
        if not (reset and str(reset).isdigit()):
            return "GitHub gave no reset time"
        at = datetime.fromtimestamp(int(reset), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return f"it resets at {at} (in {max(0, int(reset) - self._clock()):.0f} s)"
