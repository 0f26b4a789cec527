"""Shared mocks for the ecosystem tests: fixture bodies served through `responses` at the APIs' real URLs."""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import requests
import responses
from responses import matchers

from ecosystem.github_client import make_github
from ecosystem.github_stats import RepoCollector
from ecosystem.metric import SourceMetrics
from ecosystem.stackexchange_client import COUNT_FILTER_FIELDS
from ecosystem.subjects import subjects_of

FIXTURES = Path(__file__).parent / "fixtures"
SE = "https://api.stackexchange.com/2.3"
GH = "https://api.github.com:443"  # PyGithub puts the port in every URL it requests
NOW = "2025-06-01T12:00:00.000Z"
SECRET_TOKEN = "ghp_TESTSECRET0123456789abcdef"
SECRET_KEY = "sekey_TESTSECRET42"
EVERY_SUBJECT = subjects_of()
TAGS, REPOS, PACKAGES = EVERY_SUBJECT.tags, EVERY_SUBJECT.repos, EVERY_SUBJECT.packages


def fixture(name: str) -> dict[str, Any]:
    """A fresh copy of a whole fixture file."""
    return copy.deepcopy(json.loads((FIXTURES / name).read_text()))


def body(name: str) -> Any:
    """A fresh copy of a fixture's response body."""
    return fixture(name)["body"]


def headers(name: str) -> dict[str, str]:
    """A fixture's response headers ({} when the test sets them)."""
    return fixture(name).get("headers", {})


def network_error(name: str) -> requests.RequestException:
    """The ``requests`` exception a ``net_*`` fixture stands for."""
    data = fixture(name)
    return getattr(requests.exceptions, data["exception"])(data["message"])


def fixed_clock() -> str:
    """The collection time every test uses."""
    return NOW


NOW_DT = datetime.fromisoformat(NOW.replace("Z", "+00:00"))


def collect_repo(
    name: str = "pytorch/pytorch",
    token: str | None = "ghp_test",
    baseline: tuple[str, int] | None = None,
    max_wait: float = 60.0,
    sleeps: list[float] | None = None,
) -> SourceMetrics:
    """The GitHub metrics of one repository, collected from the mocks at the test clock over a 365-day window."""
    sleeps = [] if sleeps is None else sleeps
    metrics = SourceMetrics("github", fixed_clock)
    gh = make_github(token, max_wait=max_wait)
    RepoCollector(gh, name, NOW_DT, 365, metrics, baseline, max_wait, sleep=sleeps.append).collect()
    return metrics


COUNT_FILTER = body("se_filter_create.json")["items"][0]["filter"]


def count_response(name: str, total: int | None = None):
    """A `responses` callback answering a count request as the API would: under ``filter=total`` only ``total``
    comes back (no backoff, no quota); under the count filter, the wrapper fields it holds."""

    def answer(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        data = body(name) | ({"total": total} if total is not None else {})
        kept = {".total"} if request.params.get("filter") == "total" else set(COUNT_FILTER_FIELDS)
        return 200, {}, json.dumps({k: v for k, v in data.items() if f".{k}" in kept})

    return answer


def add_stackexchange_counts(rsps: responses.RequestsMock, tags_info: Any = None) -> None:
    """The Stack Exchange endpoints of a collection up to the counts: sites, tags, the count filter, counts."""
    rsps.get(f"{SE}/sites/", json=body("se_sites.json"))
    rsps.get(re.compile(rf"{re.escape(SE)}/tags/[^/]+/info/"), json=tags_info or body("se_tags_info.json"))
    rsps.get(f"{SE}/filters/create/", json=body("se_filter_create.json"))
    rsps.add_callback(
        responses.GET,
        f"{SE}/questions/",
        callback=count_response("se_total.json"),
        match=[matchers.query_param_matcher({"filter": COUNT_FILTER}, strict_match=False)],
    )
    rsps.add_callback(responses.GET, f"{SE}/questions/no-answers/", callback=count_response("se_total.json", 4321))


def add_stackexchange(rsps: responses.RequestsMock, tags_info: Any = None) -> None:
    """Every Stack Exchange endpoint of a collection, answered from the fixtures (questions in two pages)."""
    add_stackexchange_counts(rsps, tags_info)
    for page in (1, 2):
        rsps.get(
            f"{SE}/questions/",
            json=body(f"se_questions_page{page}.json"),
            match=[matchers.query_param_matcher({"filter": "default", "page": str(page)}, strict_match=False)],
        )
    rsps.get(re.compile(rf"{re.escape(SE)}/questions/[0-9;%3B]+/answers/"), json=body("se_answers.json"))


def link_to_last(url: str, last: int) -> dict[str, str]:
    """A GitHub Link header whose last page is ``last`` (how per_page=1 lists reveal their length)."""
    return {"Link": f'<{url}?per_page=1&page=2>; rel="next", <{url}?per_page=1&page={last}>; rel="last"'}


def repo_body(full_name: str, **changes: Any) -> dict[str, Any]:
    """The repository fixture renamed to ``full_name``."""
    data = body("gh_repo.json")
    data.update(full_name=full_name, name=full_name.split("/")[1], url=f"https://api.github.com/repos/{full_name}")
    data.update(changes)
    return data


def history_page(page: int) -> list:
    """The matcher of the star history's page ``page`` (30 weeks a page)."""
    return [matchers.query_param_matcher({"per_page": "30", "page": str(page)}, strict_match=True)]


def add_star_history(rsps: responses.RequestsMock, full_name: str) -> None:
    """The star history of ``full_name`` in its two pages: 3 stars a day from 2024-04-14 to 2025-06-01."""
    for page in (1, 2):
        rsps.get(
            f"{GH}/repos/{full_name}/stargazers/history",
            json=body(f"gh_star_history_page{page}.json"),
            match=history_page(page),
        )


def add_contributors(rsps: responses.RequestsMock, full_name: str) -> None:
    """The contributor list as GitHub gives it: near the 500-e-mail floor without ``anon=1``, complete with it."""
    url = f"{GH}/repos/{full_name}/contributors"
    rsps.get(
        url,
        json=body("gh_contributors_accounts_only.json"),
        headers=headers("gh_contributors_accounts_only.json"),
        match=[matchers.query_param_matcher({"per_page": "1"}, strict_match=True)],
    )
    rsps.get(
        url,
        json=body("gh_contributors_with_anonymous.json"),
        headers=headers("gh_contributors_with_anonymous.json"),
        match=[matchers.query_param_matcher({"anon": "1", "per_page": "1"}, strict_match=True)],
    )


def add_github_repo(
    rsps: responses.RequestsMock, full_name: str, star_history: bool = True, issues_total: int = 5321
) -> None:
    """Every GitHub endpoint of one repository, after GET /repos/{full_name}."""
    base = f"{GH}/repos/{full_name}"
    rsps.get(f"{base}/pulls", json=body("gh_pulls.json"), headers=link_to_last(f"{base}/pulls", 3800))
    add_contributors(rsps, full_name)
    rsps.get(f"{base}/releases/latest", json=body("gh_release_latest.json"))
    rsps.get(f"{base}/releases", json=body("gh_releases.json"))
    search = body("gh_search_issues.json")
    search["total_count"] = issues_total
    rsps.get(
        f"{GH}/search/issues",
        json=search,
        match=[
            matchers.query_param_matcher({"q": f"repo:{full_name} is:issue created:>=2024-06-01"}, strict_match=False)
        ],
    )
    if star_history:
        add_star_history(rsps, full_name)


def add_github(rsps: responses.RequestsMock, full_name: str, **kwargs: Any) -> None:
    """The repository itself plus every endpoint after it."""
    rsps.get(f"{GH}/repos/{full_name}", json=repo_body(full_name))
    add_github_repo(rsps, full_name, **kwargs)


def add_pypistats(rsps: responses.RequestsMock) -> None:
    """pypistats.org's recent downloads of every package."""
    for package in PACKAGES:
        rsps.get(f"https://pypistats.org/api/packages/{package}/recent", json=body("pypi_recent.json"))


PYPI = "https://pypi.org/pypi"
#: the projects served the fixture of CPython-specific wheels; every other one is served the pure-Python fixture
BINARY_PROJECTS = {"torch", "tensorflow", "tensorflow-cpu", "jaxlib", "libtpu", "nvidia-cudnn-cu12"}
#: what the fake uv resolves every stack to: versions the fixtures hold
FAKE_PINS = ("torch==2.5.0", "nvidia-cudnn-cu12==2.5.0", "filelock==3.16.1")
#: stacks whose CPU set is installed wherever fwbench is (requests is one of its dependencies), so that the installed
#: size is measured in any test environment
SMALL_STACKS = {fw: {"cpu": ("requests",), "gpu": ("requests",)} for fw in ("torch", "tensorflow", "jax")}


def pypi_body(project: str) -> dict[str, Any]:
    """The JSON API's answer for ``project``: the binary fixture or the pure-Python one."""
    return body("pypi_json_binary.json" if project in BINARY_PROJECTS else "pypi_json_pure.json")


def add_pypi_json(rsps: responses.RequestsMock, answer=pypi_body) -> None:
    """PyPI's JSON API (``/pypi/<project>/json``) for every project, each answered by ``answer(project)``."""

    def reply(request):
        return 200, {}, json.dumps(answer(request.url.split("/")[-2]))

    rsps.add_callback(responses.GET, re.compile(rf"{re.escape(PYPI)}/[^/]+/json"), callback=reply)


def fake_uv(directory: Path, pins: tuple[str, ...] = FAKE_PINS, by_first: dict[str, tuple[str, ...]] | None = None):
    """A stand-in for the uv executable: it reads the requirements and prints ``pins`` as ``uv pip compile`` does
    (a comment line too), or ``by_first[<first requirement>]`` where given; the callable the collector takes,
    returning its path."""

    def printed(lines: tuple[str, ...]) -> str:
        return "printf '" + "\\n".join(("# resolved by a fake uv", *lines)) + "\\n'"

    cases = "".join(f"  {first}) {printed(lines)} ;;\n" for first, lines in (by_first or {}).items())
    script = directory / "uv"
    script.write_text(
        f'#!/bin/sh\nread -r first\ncat > /dev/null\ncase "$first" in\n{cases}  *) {printed(pins)} ;;\nesac\n'
    )
    script.chmod(0o755)
    return lambda: str(script)
