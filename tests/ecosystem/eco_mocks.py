"""Shared mocks for the ecosystem tests: fixture bodies served through `responses` at the APIs' real URLs."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import responses
from responses import matchers

FIXTURES = Path(__file__).parent / "fixtures"
SE = "https://api.stackexchange.com/2.3"
GH = "https://api.github.com:443"  # PyGithub puts the port in every URL it requests
NOW = "2025-06-01T12:00:00.000Z"
SECRET_TOKEN = "ghp_TESTSECRET0123456789abcdef"
SECRET_KEY = "sekey_TESTSECRET42"


def body(name: str) -> Any:
    """A fresh copy of a fixture's response body."""
    return copy.deepcopy(json.loads((FIXTURES / name).read_text())["body"])


def fixed_clock() -> str:
    """The collection time every test uses."""
    return NOW


def add_stackexchange(rsps: responses.RequestsMock, tags_info: Any = None) -> None:
    """Every Stack Exchange endpoint of a collection, answered from the fixtures (questions in two pages)."""
    rsps.get(f"{SE}/sites/", json=body("se_sites.json"))
    rsps.get(re.compile(rf"{re.escape(SE)}/tags/[^/]+/info/"), json=tags_info or body("se_tags_info.json"))
    rsps.get(f"{SE}/questions/", json=body("se_total.json"),
             match=[matchers.query_param_matcher({"filter": "total"}, strict_match=False)])
    rsps.get(f"{SE}/questions/no-answers/", json={"total": 4321})
    for page in (1, 2):
        rsps.get(f"{SE}/questions/", json=body(f"se_questions_page{page}.json"),
                 match=[matchers.query_param_matcher({"filter": "default", "page": str(page)},
                                                     strict_match=False)])
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


def add_github_repo(rsps: responses.RequestsMock, full_name: str, stars_pages: int = 2,
                    issues_total: int = 5321) -> None:
    """Every GitHub endpoint of one repository, after GET /repos/{full_name}."""
    base = f"{GH}/repos/{full_name}"
    rsps.get(f"{base}/pulls", json=body("gh_pulls.json"), headers=link_to_last(f"{base}/pulls", 3800))
    rsps.get(f"{base}/contributors", json=body("gh_contributors.json"),
             headers=link_to_last(f"{base}/contributors", 3500))
    rsps.get(f"{base}/releases/latest", json=body("gh_release_latest.json"))
    rsps.get(f"{base}/releases", json=body("gh_releases.json"))
    search = body("gh_search_issues.json")
    search["total_count"] = issues_total
    rsps.get(f"{GH}/search/issues", json=search,
             match=[matchers.query_param_matcher({"q": f"repo:{full_name} is:issue created:>=2024-06-01"},
                                                 strict_match=False)])
    for page in range(1, stars_pages + 1):
        rsps.post(f"{GH}/graphql", json=body(f"gh_graphql_stars_page{page}.json"),
                  match=[matchers.json_params_matcher({"variables": {"owner": full_name.split("/")[0],
                                                                     "name": full_name.split("/")[1]}},
                                                      strict_match=False)])


def add_github(rsps: responses.RequestsMock, full_name: str, **kwargs: Any) -> None:
    """The repository itself plus every endpoint after it."""
    rsps.get(f"{GH}/repos/{full_name}", json=repo_body(full_name))
    add_github_repo(rsps, full_name, **kwargs)
