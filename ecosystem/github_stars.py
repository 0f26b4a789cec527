"""Stars gained in a window, from GitHub's star history: daily counts of the stars given, without who gave them.

Since July 2026 GitHub lists a repository's stargazers (REST ``/stargazers``, the GraphQL ``stargazers``
connection) to its admins and collaborators only (changelog of 2026-06-30); everyone else gets 403, "Not Found" or
an empty list. Its replacement, ``GET /repos/{owner}/{repo}/stargazers/history`` (changelog of 2026-09-04), answers
a JSON array of weeks, newest first, at most WEEKS_PER_PAGE a page, each in the shape of GitHub's other weekly
statistics::

    {"week": <Unix time the week starts>, "total": <stars of the week>, "days": [<7 daily counts>]}

A day counts the stars given that day that are still there (an unstar lowers the day the star was given), so all
the days add up to ``stargazers_count``. The running sum of the days is the star total over time; the growth over a
window is that total at the window's end minus at its start: the sum of the days that begin within the window.

A 403 or 404 from the endpoint, or no week at all for a starred repository, is GitHub withholding the data
(StarHistoryRestricted): the growth is not collected, with GitHub's answer as the reason, and never counted as zero.
An answer in any other shape is a CollectionError naming the week and field that differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

from github import GithubException, RateLimitExceededException
from github.Requester import Requester

from ecosystem.errors import CollectionError
from ecosystem.github_client import error_message

#: the REST API version that has the endpoint (requests without it get the 2022-11-28 API); sent with this request
#: only, so ``make_github`` must leave PyGithub's ``api_version`` unset (PyGithub's would replace it)
API_VERSION = "2026-03-10"
HEADERS = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
#: the most weeks GitHub gives in one page, and the most pages it serves
WEEKS_PER_PAGE = 30
MAX_PAGES = 100
DAYS_PER_WEEK = 7
DAY_S = 86_400
#: how every reason for star growth that GitHub withholds begins (readers may match it)
RESTRICTED = "restricted by GitHub since July 2026"
REFUSED_STATUSES = (403, 404)
DEFINITION = (
    "stars given on the days that begin within the window and still there now (GitHub's star history counts "
    "each star on the day it was given, and an unstar lowers that day): the running total at the window's end "
    "minus the running total at its start"
)


class StarHistoryRestricted(CollectionError):
    """GitHub withholds the star history (403, 404, or no week for a starred repository): not collectable."""


@dataclass(frozen=True)
class Week:
    """One week of the star history: when it starts (Unix seconds) and the stars of each of its days."""

    start: int
    days: tuple[int, ...]


def history_path(full_name: str) -> str:
    """The star-history endpoint of ``owner/name``."""
    return f"/repos/{full_name}/stargazers/history"


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_weeks(body: Any, where: str) -> list[Week]:
    """The weeks of one history page; CollectionError naming the first week and field unlike the documented shape."""
    if not isinstance(body, list):
        raise CollectionError(f"{where}: expected a JSON array of weeks, got {_json_type(body)}")
    weeks = []
    for index, item in enumerate(body):
        at = f"{where}: week {index}"
        if not isinstance(item, dict):
            raise CollectionError(f"{at} is {_json_type(item)}, not an object")
        for field in ("week", "total", "days"):
            if field not in item:
                raise CollectionError(f"{at} lacks field '{field}'")
        start, total, days = item["week"], item["total"], item["days"]
        if not _count(start) or start == 0:
            raise CollectionError(f"{at}: 'week' is {start!r}, not a Unix time")
        if not isinstance(days, list) or len(days) != DAYS_PER_WEEK or not all(_count(d) for d in days):
            raise CollectionError(f"{at}: 'days' is {days!r}, not {DAYS_PER_WEEK} counts")
        if not _count(total) or total != sum(days):
            raise CollectionError(f"{at}: 'total' is {total!r} but its days add up to {sum(days)}")
        weeks.append(Week(start, tuple(days)))
    return weeks


def fetch_weeks(get_page: Callable[[int], Any], where: str, since: datetime) -> tuple[list[Week], int]:
    """(the weeks back to the one holding ``since``, oldest first; the pages read), asking ``get_page(n)`` for page n.

    Pages run newest to oldest; reading stops at a week that starts at or before ``since`` or at the history's
    first week (a page that is not full). A week that comes back twice (the pages shift when a new week starts
    while they are read) is kept once.
    """
    weeks: dict[int, Week] = {}
    for page in range(1, MAX_PAGES + 1):
        found = parse_weeks(get_page(page), f"{where} page {page}")
        for week in found:
            weeks.setdefault(week.start, week)
        if len(found) < WEEKS_PER_PAGE or min(w.start for w in found) <= since.timestamp():
            return sorted(weeks.values(), key=lambda w: w.start), page
    raise CollectionError(f"{where}: the window reaches past the {MAX_PAGES} pages GitHub serves")


@dataclass(frozen=True)
class Growth:
    """Stars gained in a window, and the first and last day (UTC dates of their starts) that were counted."""

    gained: int
    first_day: date | None
    last_day: date | None


def growth_between(weeks: list[Week], start: datetime, end: datetime) -> Growth:
    """The running star total at ``end`` minus at ``start``: the stars of the days that begin in [start, end]."""
    days = [
        (week.start + i * DAY_S, stars)
        for week in weeks
        for i, stars in enumerate(week.days)
        if start.timestamp() <= week.start + i * DAY_S <= end.timestamp()
    ]
    first, last = (min(t for t, _ in days), max(t for t, _ in days)) if days else (None, None)
    return Growth(
        sum(stars for _, stars in days),
        datetime.fromtimestamp(first, timezone.utc).date() if first is not None else None,
        datetime.fromtimestamp(last, timezone.utc).date() if last is not None else None,
    )


def history_page(requester: Requester, full_name: str, page: int) -> Any:
    """One page of the star history; StarHistoryRestricted for a 403 or 404 that is not a rate limit."""
    path = history_path(full_name)
    try:  # a copy of HEADERS: PyGithub adds the Authorization header to the dict it is given
        _, body = requester.requestJsonAndCheck(
            "GET", path, parameters={"per_page": WEEKS_PER_PAGE, "page": page}, headers=dict(HEADERS)
        )
    except RateLimitExceededException:
        raise  # a rate limit is waited for or stops the source (ecosystem.github_client)
    except GithubException as exc:
        if exc.status in REFUSED_STATUSES:
            raise StarHistoryRestricted(
                f"{RESTRICTED}: {path} answered HTTP {exc.status} ({error_message(exc)}); stargazer data is "
                "limited to a repository's admins and collaborators (GitHub changelog of 2026-06-30)"
            ) from None
        raise
    return body


def require_history(weeks: list[Week], stars: int | None, full_name: str) -> None:
    """StarHistoryRestricted when GitHub gave no week for a repository that has stars (or whose stars are unknown):
    an empty history is withheld data, not zero growth."""
    if not weeks and stars != 0:
        held = f"{stars:,} stars" if stars is not None else "stars (its star count was not collected)"
        raise StarHistoryRestricted(
            f"{RESTRICTED}: {history_path(full_name)} returned no week for a repository with {held}; "
            "an empty history is withheld data, not zero growth"
        )
