"""GitHub repository statistics through PyGithub: REST, search, and the star history for star growth."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from github import Github, UnknownObjectException

from ecosystem.errors import CollectionError
from ecosystem.github_client import API, github_call, parse_time, require
from ecosystem.github_stars import (
    API_VERSION,
    DEFINITION,
    WEEKS_PER_PAGE,
    StarHistoryRestricted,
    fetch_weeks,
    growth_between,
    history_page,
    history_path,
    require_history,
)
from ecosystem.metric import SourceMetrics

#: a star count from an earlier snapshot: (snapshot date, stars then)
Baseline = tuple[str, int]
CONTRIBUTORS_DEFINITION = (
    "entries of the contributor list with anonymous contributors (anon=1): GitHub accounts "
    "linked from the first 500 author e-mail addresses, plus one entry for every other "
    "author e-mail address; a person with several unlinked addresses counts more than once"
)


class RepoCollector:
    """Collects the GitHub metrics of one repository into ``metrics`` (one step per group of requests)."""

    def __init__(
        self,
        gh: Github,
        name: str,
        now: datetime,
        window_days: int,
        metrics: SourceMetrics,
        baseline: Baseline | None,
        max_wait: float,
        sleep: Callable[[float], None] | None = None,
    ):
        self.gh, self.name, self.now, self.window_days = gh, name, now, window_days
        self.cutoff = now - timedelta(days=window_days)
        self.metrics, self.baseline = metrics, baseline
        self.max_wait, self._sleep = max_wait, sleep
        self.full_name = name  # becomes the current name when GitHub redirects a renamed repository
        self.stars: int | None = None
        self.repo = None  # the PyGithub Repository, once fetched

    def _call(self, request: Callable[[], Any]) -> Any:
        return github_call(request, self.max_wait, self._sleep)

    def _get(self, path: str, **params: Any) -> tuple[dict[str, Any], Any]:
        return self._call(lambda: self.gh.requester.requestJsonAndCheck("GET", path, parameters=params or None))

    def _method(self, endpoint: str, **extra: Any) -> dict[str, Any]:
        method = {"endpoint": f"{API}{endpoint}", "window_days": None, "sample_size": None}
        if self.full_name != self.name:
            method["resolved_repository"] = self.full_name
        method.update(extra)
        return method

    def collect(self) -> None:
        """Run every step for this repository; failures are recorded per metric, never raised."""
        self.metrics.step(self.name, ("stars", "forks", "subscribers"), self._method(f"/repos/{self.name}"), self._repo)
        repo_path = f"/repos/{self.full_name}"
        self.metrics.step(
            self.name,
            ("open_issues", "open_pull_requests"),
            self._method(f"{repo_path}/pulls?state=open&per_page=1"),
            self._open_counts,
        )
        # its own step: GitHub answers 403 for repositories whose contributor list is too large to list
        self.metrics.step(
            self.name,
            ("contributors",),
            self._method(f"{repo_path}/contributors?anon=1&per_page=1"),
            self._contributors,
        )
        self.metrics.step(
            self.name,
            ("releases_in_window", "latest_release_date"),
            self._method(f"{repo_path}/releases", window_days=self.window_days),
            self._releases,
        )
        self.metrics.step(
            self.name,
            ("issues_opened_in_window",),
            self._method("/search/issues", window_days=self.window_days),
            self._issues_opened,
        )
        self.metrics.step(
            self.name,
            ("stars_gained_in_window", "star_growth_percent_in_window"),
            self._method(history_path(self.full_name), window_days=self.window_days, definition=DEFINITION),
            self._star_growth,
        )

    def _repo(self) -> None:
        self.repo = self._call(lambda: self.gh.get_repo(self.name))  # follows a 301 to a renamed repository
        data = self.repo.raw_data
        self.full_name = require(data, "full_name", f"/repos/{self.name}")
        method = self._method(f"/repos/{self.full_name}")
        self.stars = require(data, "stargazers_count", method["endpoint"])
        self.open_issues_and_prs = require(data, "open_issues_count", method["endpoint"])
        self.metrics.set(self.name, "stars", self.stars, method)
        self.metrics.set(self.name, "forks", require(data, "forks_count", method["endpoint"]), method)
        self.metrics.set(
            self.name,
            "subscribers",
            require(data, "subscribers_count", method["endpoint"]),
            dict(method, note="subscribers_count: the people watching the repository"),
        )

    def _fetched_repo(self) -> Any:
        if self.repo is None:
            raise CollectionError("repository metadata was not collected")
        return self.repo

    def _open_counts(self) -> None:
        open_prs = self._call(lambda: self._fetched_repo().get_pulls(state="open").totalCount)
        pulls = self._method(
            f"/repos/{self.full_name}/pulls?state=open&per_page=1", note="count from the Link header's last page"
        )
        self.metrics.set(self.name, "open_pull_requests", open_prs, pulls)
        self.metrics.set(
            self.name,
            "open_issues",
            self.open_issues_and_prs - open_prs,
            self._method(
                f"/repos/{self.full_name}",
                note="open_issues_count minus open pull requests (GitHub counts both)",
                also=pulls["endpoint"],
            ),
        )

    def _contributors(self) -> None:
        # without anon=1 GitHub lists only the accounts linked from the first 500 author e-mails: a floor near 500
        contributors = self._call(lambda: self._fetched_repo().get_contributors(anon="1").totalCount)
        self.metrics.set(
            self.name,
            "contributors",
            contributors,
            self._method(
                f"/repos/{self.full_name}/contributors?anon=1&per_page=1",
                definition=CONTRIBUTORS_DEFINITION,
                note="count from the Link header's last page",
            ),
        )

    def _releases(self) -> None:
        path = f"/repos/{self.full_name}/releases"
        in_window, page = 0, 1
        while True:  # newest first: stop at the first page that reaches before the window
            _, releases = self._get(path, per_page=100, page=page)
            dates = [parse_time(r["published_at"]) for r in releases if require(r, "published_at", path)]
            in_window += sum(d >= self.cutoff for d in dates)
            if len(releases) < 100 or (dates and min(dates) < self.cutoff):
                break
            page += 1
        self.metrics.set(
            self.name,
            "releases_in_window",
            in_window,
            self._method(path, window_days=self.window_days, note="published releases"),
        )
        latest_path = f"{path}/latest"
        latest_method = self._method(latest_path, note="the latest full release (not a draft or prerelease)")

        def latest_release() -> Any:
            try:
                return self.gh.requester.requestJsonAndCheck("GET", latest_path)[1]
            except UnknownObjectException:  # 404: no full release yet
                return None

        latest = self._call(latest_release)
        if latest is None:
            self.metrics.skip(self.name, "latest_release_date", "the repository has no full release", latest_method)
            return
        published = require(latest, "published_at", latest_path)
        self.metrics.set(self.name, "latest_release_date", published[:10], latest_method)

    def _issues_opened(self) -> None:
        since = self.cutoff.date().isoformat()
        query = f"repo:{self.full_name} is:issue created:>={since}"
        # read total_count from the response: PyGithub's totalCount stops at the 1000 results search pages
        _, data = self._get("/search/issues", q=query, per_page=1)
        method = self._method(
            "/search/issues",
            window_days=self.window_days,
            query=query,
            incomplete_results=require(data, "incomplete_results", "/search/issues"),
        )
        self.metrics.set(self.name, "issues_opened_in_window", require(data, "total_count", "/search/issues"), method)

    def _star_growth(self) -> None:
        try:
            gained, method = self._stars_from_star_history()
        except StarHistoryRestricted as exc:  # withheld: an older snapshot's count, else not collected, never zero
            if not (self.baseline and self.stars is not None):
                method = self._method(history_path(self.full_name), window_days=self.window_days, definition=DEFINITION)
                for name in ("stars_gained_in_window", "star_growth_percent_in_window"):
                    self.metrics.skip(self.name, name, str(exc), method)
                return
            gained, method = self._stars_from_snapshots()
            method["star_history_refused"] = str(exc)
        self.metrics.set(self.name, "stars_gained_in_window", gained, method)
        if self.stars is not None and self.stars > gained:
            percent = round(100.0 * gained / (self.stars - gained), 2)
            self.metrics.set(
                self.name,
                "star_growth_percent_in_window",
                percent,
                dict(method, note="stars gained / (stars now - stars gained) x 100"),
            )
        else:
            why = (
                "current star count not collected"
                if self.stars is None
                else "every star was given within the window: none at its start to grow from"
            )
            self.metrics.skip(self.name, "star_growth_percent_in_window", why, method)

    def _stars_from_star_history(self) -> tuple[int, dict[str, Any]]:
        path = history_path(self.full_name)
        weeks, pages = fetch_weeks(
            lambda page: self._call(lambda: history_page(self.gh.requester, self.full_name, page)),
            f"{API}{path}",
            self.cutoff,
        )
        require_history(weeks, self.stars, self.full_name)
        growth = growth_between(weeks, self.cutoff, self.now)
        method = self._method(
            f"{path}?per_page={WEEKS_PER_PAGE}",
            window_days=self.window_days,
            definition=DEFINITION,
            api_version=API_VERSION,
            pages=pages,
            weeks_read=len(weeks),
            first_day=growth.first_day.isoformat() if growth.first_day else None,
            last_day=growth.last_day.isoformat() if growth.last_day else None,
        )
        return growth.gained, method

    def _stars_from_snapshots(self) -> tuple[int, dict[str, Any]]:
        baseline_date, stars_then = self.baseline
        span = (self.now.date() - datetime.fromisoformat(baseline_date).date()).days
        method = {
            "endpoint": f"snapshot history: stars now ({API}/repos/{self.full_name}) minus stars "
            f"in the {baseline_date} snapshot",
            "window_days": span,
            "sample_size": None,
            "baseline_date": baseline_date,
            "definition": "net change of the star count (stars minus unstars) over window_days",
        }
        return self.stars - stars_then, method


def collect_github(
    client_factory: Callable[[], Github],
    repos: tuple[str, ...],
    now: datetime,
    window_days: int,
    metrics: SourceMetrics,
    baselines: dict[str, Baseline],
    max_wait: float,
    progress: Callable[[str], None],
) -> None:
    """Collect every GitHub metric for ``repos`` into ``metrics``; ``progress`` hears of each finished repo.

    Star growth comes from GitHub's star history; where GitHub withholds it, from ``baselines`` (stars in an older
    snapshot), else it is not collected, with GitHub's answer as the reason.
    """
    gh = client_factory()
    for name in repos:
        RepoCollector(gh, name, now, window_days, metrics, baselines.get(name), max_wait).collect()
        progress(f"github {name}")
