"""GitHub repository statistics through PyGithub (REST, search and GraphQL), with bounded rate-limit waits."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import requests
from github import (
    Auth,
    Github,
    GithubException,
    GithubRetry,
    RateLimitExceededException,
    UnknownObjectException,
)
from github.GithubException import RateLimitExceededExceedsMaxWait

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.metric import SourceMetrics

REPOS = ("pytorch/pytorch", "tensorflow/tensorflow", "jax-ml/jax", "google/flax", "keras-team/keras")
HOST = "api.github.com"
API = f"https://{HOST}"
STARGAZERS_PER_PAGE = 100
#: stop paging stargazers after this many pages (100 000 stars in one window) rather than run for hours
MAX_STARGAZER_PAGES = 1000
#: PyGithub's pause between requests; GitHub asks clients not to burst
REQUEST_PACE_S = 0.25

STARGAZERS_QUERY = """
query($owner: String!, $name: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    stargazers(first: 100, after: $after, orderBy: {field: STARRED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      edges { starredAt }
    }
  }
}
"""

#: a star count from an earlier snapshot: (snapshot date, stars then)
Baseline = tuple[str, int]


def make_github(token: str | None, max_wait: float, timeout: int = 30) -> Github:
    """A PyGithub client whose retries (5xx, rate limits) never wait longer than ``max_wait`` seconds.

    Requests are spaced by REQUEST_PACE_S, POSTs (every GraphQL query is one) by four times that:
    GitHub asks clients to space POSTs by a second to stay clear of its secondary rate limits.
    """
    pace_s = REQUEST_PACE_S
    retry = GithubRetry(total=4, backoff_factor=1.0, backoff_max=max_wait, retry_after_max=max_wait,
                        max_rate_limit_wait=max_wait, secondary_rate_wait=min(60.0, max_wait))
    return Github(auth=Auth.Token(token) if token else None, retry=retry, timeout=timeout, per_page=100,
                  seconds_between_requests=pace_s or None, seconds_between_writes=4 * pace_s or None)


@contextmanager
def github_errors(max_wait: float) -> Iterator[None]:
    """Turn PyGithub/requests errors into CollectionError (SourceStopped for rate limits), without secrets."""
    try:
        yield
    except RateLimitExceededExceedsMaxWait as exc:
        raise SourceStopped(f"GitHub rate limit: the reset is {exc.wait:.0f} s away, more than the allowed "
                            f"--max-wait {max_wait:.0f} s") from None
    except RateLimitExceededException as exc:
        raise SourceStopped(f"GitHub rate limit exceeded ({exc.status}): {_message(exc)}") from None
    except GithubException as exc:
        raise CollectionError(f"GitHub API {exc.status}: {_message(exc)}") from None
    except requests.RequestException as exc:
        raise CollectionError(f"GitHub request failed: {type(exc).__name__}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CollectionError(f"GitHub sent malformed JSON: {exc}") from None
    except RuntimeError as exc:  # PyGithub refuses redirects to another host or scheme
        raise CollectionError(f"GitHub: {exc}") from None


def _message(exc: GithubException) -> str:
    data = exc.data
    return str(data.get("message") or data) if isinstance(data, dict) else str(data or exc.message or "")


def require(data: Any, field: str, where: str) -> Any:
    """``data[field]``, or a CollectionError naming the field and the response it is missing from."""
    if not isinstance(data, dict) or field not in data:
        raise CollectionError(f"{where}: response lacks field '{field}'")
    return data[field]


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class RepoCollector:
    """Collects the GitHub metrics of one repository into ``metrics`` (one step per group of requests)."""

    def __init__(self, gh: Github, name: str, now: datetime, window_days: int, metrics: SourceMetrics,
                 authenticated: bool, baseline: Baseline | None, max_wait: float):
        self.gh, self.name, self.now, self.window_days = gh, name, now, window_days
        self.cutoff = now - timedelta(days=window_days)
        self.metrics, self.authenticated, self.baseline = metrics, authenticated, baseline
        self.max_wait = max_wait
        self.full_name = name  # becomes the current name when GitHub redirects a renamed repository
        self.stars: int | None = None
        self.repo = None  # the PyGithub Repository, once fetched

    def _get(self, path: str, **params: Any) -> tuple[dict[str, Any], Any]:
        with github_errors(self.max_wait):
            return self.gh.requester.requestJsonAndCheck("GET", path, parameters=params or None)

    def _method(self, endpoint: str, **extra: Any) -> dict[str, Any]:
        method = {"endpoint": f"{API}{endpoint}", "window_days": None, "sample_size": None}
        if self.full_name != self.name:
            method["resolved_repository"] = self.full_name
        method.update(extra)
        return method

    def collect(self) -> None:
        """Run every step for this repository; failures are recorded per metric, never raised."""
        self.metrics.step(self.name, ("stars", "forks", "subscribers"), self._method(f"/repos/{self.name}"),
                          self._repo)
        repo_path = f"/repos/{self.full_name}"
        self.metrics.step(self.name, ("open_issues", "open_pull_requests"),
                          self._method(f"{repo_path}/pulls?state=open&per_page=1"), self._open_counts)
        # its own step: GitHub answers 403 for repositories whose contributor list is too large to list
        self.metrics.step(self.name, ("contributors",), self._method(f"{repo_path}/contributors?per_page=1"),
                          self._contributors)
        self.metrics.step(self.name, ("releases_in_window", "latest_release_date"),
                          self._method(f"{repo_path}/releases", window_days=self.window_days), self._releases)
        self.metrics.step(self.name, ("issues_opened_in_window",),
                          self._method("/search/issues", window_days=self.window_days), self._issues_opened)
        self.metrics.step(self.name, ("stars_gained_in_window", "star_growth_percent_in_window"),
                          self._method("/graphql", window_days=self.window_days), self._star_growth)

    def _repo(self) -> None:
        with github_errors(self.max_wait):
            self.repo = self.gh.get_repo(self.name)  # follows a 301 to a renamed repository
            data = self.repo.raw_data
        self.full_name = require(data, "full_name", f"/repos/{self.name}")
        method = self._method(f"/repos/{self.full_name}")
        self.stars = require(data, "stargazers_count", method["endpoint"])
        self.open_issues_and_prs = require(data, "open_issues_count", method["endpoint"])
        self.metrics.set(self.name, "stars", self.stars, method)
        self.metrics.set(self.name, "forks", require(data, "forks_count", method["endpoint"]), method)
        self.metrics.set(self.name, "subscribers", require(data, "subscribers_count", method["endpoint"]),
                         dict(method, note="subscribers_count: the people watching the repository"))

    def _fetched_repo(self) -> Any:
        if self.repo is None:
            raise CollectionError("repository metadata was not collected")
        return self.repo

    def _open_counts(self) -> None:
        with github_errors(self.max_wait):
            open_prs = self._fetched_repo().get_pulls(state="open").totalCount
        pulls = self._method(f"/repos/{self.full_name}/pulls?state=open&per_page=1",
                             note="count from the Link header's last page")
        self.metrics.set(self.name, "open_pull_requests", open_prs, pulls)
        self.metrics.set(self.name, "open_issues", self.open_issues_and_prs - open_prs,
                         self._method(f"/repos/{self.full_name}",
                                      note="open_issues_count minus open pull requests (GitHub counts both)",
                                      also=pulls["endpoint"]))

    def _contributors(self) -> None:
        with github_errors(self.max_wait):
            contributors = self._fetched_repo().get_contributors().totalCount
        self.metrics.set(self.name, "contributors", contributors,
                         self._method(f"/repos/{self.full_name}/contributors?per_page=1",
                                      note="accounts with commits, from the Link header's last page; "
                                           "anonymous contributors excluded"))

    def _releases(self) -> None:
        path = f"/repos/{self.full_name}/releases"
        in_window, page = 0, 1
        while True:  # newest first: stop at the first page that reaches before the window
            _, releases = self._get(path, per_page=100, page=page)
            dates = [_parse_time(r["published_at"]) for r in releases if require(r, "published_at", path)]
            in_window += sum(d >= self.cutoff for d in dates)
            if len(releases) < 100 or (dates and min(dates) < self.cutoff):
                break
            page += 1
        self.metrics.set(self.name, "releases_in_window", in_window,
                         self._method(path, window_days=self.window_days, note="published releases"))
        latest_path = f"{path}/latest"
        latest_method = self._method(latest_path, note="the latest full release (not a draft or prerelease)")
        with github_errors(self.max_wait):
            try:
                _, latest = self.gh.requester.requestJsonAndCheck("GET", latest_path)
            except UnknownObjectException:  # 404: no full release yet
                self.metrics.skip(self.name, "latest_release_date", "the repository has no full release",
                                  latest_method)
                return
        published = require(latest, "published_at", latest_path)
        self.metrics.set(self.name, "latest_release_date", published[:10], latest_method)

    def _issues_opened(self) -> None:
        since = self.cutoff.date().isoformat()
        query = f"repo:{self.full_name} is:issue created:>={since}"
        # read total_count from the response: PyGithub's totalCount stops at the 1000 results search pages
        _, data = self._get("/search/issues", q=query, per_page=1)
        method = self._method("/search/issues", window_days=self.window_days, query=query,
                              incomplete_results=require(data, "incomplete_results", "/search/issues"))
        self.metrics.set(self.name, "issues_opened_in_window", require(data, "total_count", "/search/issues"),
                         method)

    def _star_growth(self) -> None:
        if self.authenticated:
            gained, method = self._stars_from_graphql()
        elif self.baseline and self.stars is not None:
            gained, method = self._stars_from_history()
        else:
            why = ("GraphQL needs GITHUB_TOKEN and no snapshot from at least "
                   f"{self.window_days} days ago holds this repository's stars")
            method = self._method("/graphql", window_days=self.window_days)
            for name in ("stars_gained_in_window", "star_growth_percent_in_window"):
                self.metrics.skip(self.name, name, why, method)
            return
        self.metrics.set(self.name, "stars_gained_in_window", gained, method)
        if self.stars is not None and self.stars > gained:
            percent = round(100.0 * gained / (self.stars - gained), 2)
            self.metrics.set(self.name, "star_growth_percent_in_window", percent,
                             dict(method, note="stars gained / (stars now - stars gained) x 100"))
        else:
            self.metrics.skip(self.name, "star_growth_percent_in_window", "current star count not collected",
                              method)

    def _stars_from_graphql(self) -> tuple[int, dict[str, Any]]:
        owner, name = self.full_name.split("/", 1)
        gained, after, pages = 0, None, 0
        while pages < MAX_STARGAZER_PAGES:
            with github_errors(self.max_wait):
                _, data = self.gh.requester.graphql_query(STARGAZERS_QUERY,
                                                          {"owner": owner, "name": name, "after": after})
            pages += 1
            stargazers = require(require(require(data, "data", "/graphql"), "repository", "/graphql"),
                                 "stargazers", "/graphql")
            starred = [_parse_time(require(edge, "starredAt", "/graphql")) for edge in stargazers["edges"]]
            recent = sum(t >= self.cutoff for t in starred)
            gained += recent
            info = require(stargazers, "pageInfo", "/graphql")
            if recent < len(starred) or not info["hasNextPage"]:
                break
            after = info["endCursor"]
        else:
            limit = MAX_STARGAZER_PAGES * STARGAZERS_PER_PAGE
            raise CollectionError(f"more than {limit} stars in the window")
        method = self._method("/graphql", window_days=self.window_days, pages=pages,
                              definition="current stargazers whose starredAt is in the window "
                                         "(stargazers ordered by STARRED_AT descending)")
        if self.baseline and self.stars is not None:
            method["history_cross_check"] = {"baseline_date": self.baseline[0],
                                             "net_gain": self.stars - self.baseline[1]}
        return gained, method

    def _stars_from_history(self) -> tuple[int, dict[str, Any]]:
        baseline_date, stars_then = self.baseline
        span = (self.now.date() - datetime.fromisoformat(baseline_date).date()).days
        method = {"endpoint": f"snapshot history: stars now ({API}/repos/{self.full_name}) minus stars "
                              f"in the {baseline_date} snapshot",
                  "window_days": span, "sample_size": None, "baseline_date": baseline_date,
                  "definition": "net change of the star count (stars minus unstars) over window_days"}
        return self.stars - stars_then, method


def collect_github(client_factory: Callable[[], Github], now: datetime, window_days: int,
                   metrics: SourceMetrics, authenticated: bool, baselines: dict[str, Baseline],
                   max_wait: float, progress: Callable[[str], None]) -> None:
    """Collect every GitHub metric for REPOS into ``metrics``; ``progress`` hears of each finished repo."""
    gh = client_factory()
    for name in REPOS:
        RepoCollector(gh, name, now, window_days, metrics, authenticated, baselines.get(name),
                      max_wait).collect()
        progress(f"github {name}")
