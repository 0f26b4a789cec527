"""GitHub collector: metrics from documented shapes, rate limits (403, 429, GraphQL), retries, resumed star
walks, redirects and bad responses."""

from __future__ import annotations

import json
import time
from datetime import datetime

import pytest
import responses
from eco_mocks import (
    GH,
    NOW,
    add_github,
    add_github_repo,
    body,
    fixed_clock,
    graphql_for,
    headers,
    network_error,
    repo_body,
)

from ecosystem import github_client
from ecosystem.github_client import make_github
from ecosystem.github_stars import StarWalker
from ecosystem.github_stats import CONTRIBUTORS_DEFINITION, RepoCollector, collect_github
from ecosystem.metric import SourceMetrics

NOW_DT = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
NOW_EPOCH = NOW_DT.timestamp()


@pytest.fixture(autouse=True)
def no_pacing(monkeypatch):
    monkeypatch.setattr(github_client, "REQUEST_PACE_S", 0.0)


def collect_repo(
    name: str = "pytorch/pytorch",
    token: str | None = "ghp_test",
    baseline=None,
    max_wait: float = 60.0,
    sleeps: list[float] | None = None,
) -> SourceMetrics:
    sleeps = [] if sleeps is None else sleeps
    metrics = SourceMetrics("github", fixed_clock)
    gh = make_github(token, max_wait=max_wait)
    walker = StarWalker(gh, max_wait, sleep=sleeps.append, clock=lambda: NOW_EPOCH) if token else None
    RepoCollector(gh, name, NOW_DT, 365, metrics, walker, baseline, max_wait, sleep=sleeps.append).collect()
    return metrics


def values(metrics: SourceMetrics, name: str) -> dict:
    return {metric: entry["value"] for metric, entry in metrics.subjects[name].items()}


@responses.activate
def test_collects_every_metric_with_an_uncapped_search_total():
    add_github(responses.mock, "pytorch/pytorch", issues_total=250_000)
    metrics = collect_repo()
    assert values(metrics, "pytorch/pytorch") == {
        "stars": 90000,
        "forks": 24000,
        "subscribers": 1700,
        "open_pull_requests": 3800,
        "open_issues": 17000 - 3800,
        "contributors": 3500,
        "releases_in_window": 3,
        "latest_release_date": "2025-04-23",
        "issues_opened_in_window": 250_000,  # beyond the 1000 that PyGithub's totalCount could report
        "stars_gained_in_window": 4,
        "star_growth_percent_in_window": round(100 * 4 / (90000 - 4), 2),
    }
    stars = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["method"]
    assert stars["endpoint"] == "https://api.github.com/graphql" and stars["pages"] == 2
    assert stars["failed_attempts"] == 0 and stars["last_page_size"] == 100
    assert not metrics.failures
    sent = [c.request for c in responses.calls if c.request.url.endswith("/graphql")]
    assert all(r.headers["Authorization"] == "token ghp_test" for r in sent)


@responses.activate
def test_without_token_star_growth_is_not_collected_with_the_reason():
    add_github(responses.mock, "google/flax")
    metrics = collect_repo("google/flax", token=None)
    gained = metrics.subjects["google/flax"]["stars_gained_in_window"]
    assert gained["status"] == "not_collected" and "GITHUB_TOKEN" in gained["reason"]
    assert metrics.subjects["google/flax"]["stars"]["status"] == "ok"
    assert not any(c.request.url.endswith("/graphql") for c in responses.calls)
    assert not metrics.failures  # not collectable is not a failure


@responses.activate
def test_without_token_star_growth_comes_from_an_older_snapshot():
    add_github(responses.mock, "google/flax")
    metrics = collect_repo("google/flax", token=None, baseline=("2024-05-30", 89000))
    gained = metrics.subjects["google/flax"]["stars_gained_in_window"]
    assert gained["value"] == 1000
    assert gained["method"]["window_days"] == 367 and gained["method"]["baseline_date"] == "2024-05-30"
    growth = metrics.subjects["google/flax"]["star_growth_percent_in_window"]
    assert growth["value"] == round(100 * 1000 / 89000, 2)


@responses.activate
def test_rate_limit_403_waits_for_a_near_reset_and_retries():
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 20)}
    responses.get(f"{GH}/repos/pytorch/pytorch", json=body("gh_rate_limited.json"), status=403, headers=reset)
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    assert metrics.subjects["pytorch/pytorch"]["stars"]["value"] == 90000
    assert not metrics.failures


@responses.activate
def test_rate_limit_reset_beyond_max_wait_stops_github_with_the_reason():
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)}
    responses.get(f"{GH}/repos/pytorch/pytorch", json=body("gh_rate_limited.json"), status=403, headers=reset)
    metrics = collect_repo(max_wait=60)
    reason = metrics.subjects["pytorch/pytorch"]["stars"]["reason"]
    assert reason.startswith("GitHub rate limit: the reset is") and "--max-wait 60 s" in reason
    assert metrics.subjects["pytorch/pytorch"]["contributors"]["reason"] == f"not attempted: {reason}"
    assert len(responses.calls) == 1


@responses.activate
def test_server_error_then_success_is_retried():
    responses.get(f"{GH}/repos/jax-ml/jax", json={"message": "Server Error"}, status=502)
    add_github(responses.mock, "jax-ml/jax")
    metrics = collect_repo("jax-ml/jax")
    assert metrics.subjects["jax-ml/jax"]["forks"]["value"] == 24000 and not metrics.failures


@responses.activate
def test_malformed_json_fails_the_step_only():
    responses.get(
        f"{GH}/repos/keras-team/keras",
        body='{"full_name": "keras-team/keras", "stargaz',
        content_type="application/json",
    )
    add_github_repo(responses.mock, "keras-team/keras")
    metrics = collect_repo("keras-team/keras")
    assert "malformed JSON" in metrics.subjects["keras-team/keras"]["stars"]["reason"]
    assert metrics.subjects["keras-team/keras"]["issues_opened_in_window"]["status"] == "ok"


@responses.activate
def test_missing_field_names_the_field():
    data = repo_body("tensorflow/tensorflow")
    del data["subscribers_count"]
    responses.get(f"{GH}/repos/tensorflow/tensorflow", json=data)
    add_github_repo(responses.mock, "tensorflow/tensorflow")
    metrics = collect_repo("tensorflow/tensorflow")
    assert metrics.subjects["tensorflow/tensorflow"]["subscribers"]["reason"] == (
        "https://api.github.com/repos/tensorflow/tensorflow: response lacks field 'subscribers_count'"
    )


@responses.activate
def test_renamed_repository_301_is_followed_and_recorded():
    responses.get(
        f"{GH}/repos/google/jax",
        json=body("gh_moved.json"),
        status=301,
        headers={"Location": "https://api.github.com/repositories/170115054"},
    )
    responses.get(f"{GH}/repositories/170115054", json=repo_body("jax-ml/jax"))
    add_github_repo(responses.mock, "jax-ml/jax")
    metrics = collect_repo("google/jax")
    stars = metrics.subjects["google/jax"]["stars"]
    assert stars["value"] == 90000 and stars["method"]["resolved_repository"] == "jax-ml/jax"
    query = metrics.subjects["google/jax"]["issues_opened_in_window"]["method"]["query"]
    assert query.startswith("repo:jax-ml/jax ")
    assert not metrics.failures


@responses.activate
def test_releases_are_paged_until_the_window_start():
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    recent = body("gh_releases.json")[0]
    responses.get(f"{GH}/repos/pytorch/pytorch/releases", json=[recent] * 100)
    responses.get(f"{GH}/repos/pytorch/pytorch/releases", json=body("gh_releases.json"))
    add_github_repo(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    assert metrics.subjects["pytorch/pytorch"]["releases_in_window"]["value"] == 103
    pages = [c.request.url for c in responses.calls if "/releases?" in c.request.url]
    assert ["page=1" in pages[0], "page=2" in pages[1]] == [True, True]


@responses.activate
def test_no_full_release_is_not_collected_rather_than_failed():
    responses.get(f"{GH}/repos/google/flax/releases/latest", json={"message": "Not Found"}, status=404)
    add_github(responses.mock, "google/flax")
    metrics = collect_repo("google/flax")
    latest = metrics.subjects["google/flax"]["latest_release_date"]
    assert latest["status"] == "not_collected" and latest["reason"] == "the repository has no full release"


@responses.activate
def test_a_contributor_list_too_large_fails_only_contributors():
    too_large = {
        "message": "The history or contributor list is too large to list contributors for this repository via the API.",
        "documentation_url": "https://docs.github.com/rest",
    }
    responses.get(f"{GH}/repos/tensorflow/tensorflow/contributors", json=too_large, status=403)
    add_github(responses.mock, "tensorflow/tensorflow")
    metrics = collect_repo("tensorflow/tensorflow")
    assert [f["metric"] for f in metrics.failures] == ["contributors"]
    assert "too large" in metrics.failures[0]["reason"] and "403" in metrics.failures[0]["reason"]
    assert metrics.subjects["tensorflow/tensorflow"]["open_pull_requests"]["value"] == 3800
    assert metrics.subjects["tensorflow/tensorflow"]["releases_in_window"]["status"] == "ok"


@responses.activate
def test_contributors_count_anonymous_ones_beyond_the_500_email_floor():
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    contributors = metrics.subjects["pytorch/pytorch"]["contributors"]
    assert contributors["value"] == 3500  # without anon=1 the same list stops at the floor (430 in the fixture)
    assert contributors["method"]["definition"] == CONTRIBUTORS_DEFINITION
    assert "anon=1" in contributors["method"]["endpoint"]
    sent = [c.request for c in responses.calls if "/contributors" in c.request.url]
    assert [r.params.get("anon") for r in sent] == ["1"]


@responses.activate
def test_a_read_timeout_midway_is_retried_then_collected():
    responses.get(f"{GH}/repos/jax-ml/jax/contributors", body=network_error("net_read_timeout.json"))
    add_github(responses.mock, "jax-ml/jax")
    sleeps: list[float] = []
    metrics = collect_repo("jax-ml/jax", sleeps=sleeps)
    assert metrics.subjects["jax-ml/jax"]["contributors"]["value"] == 3500 and not metrics.failures
    assert sleeps == [1.0]


@responses.activate
def test_read_timeouts_that_persist_stop_github_with_the_reason():
    responses.get(f"{GH}/repos/jax-ml/jax", body=network_error("net_read_timeout.json"))
    sleeps: list[float] = []
    metrics = collect_repo("jax-ml/jax", sleeps=sleeps)
    reason = metrics.subjects["jax-ml/jax"]["stars"]["reason"]
    assert reason.startswith("GitHub request failed: ReadTimeout(") and "failed 3 times" in reason
    assert metrics.subjects["jax-ml/jax"]["contributors"]["reason"] == f"not attempted: {reason}"
    assert sleeps == [1.0, 2.0] and len(responses.calls) == 3


def stargazers_page(cursor: str, starred: list[str], more: bool = True) -> dict:
    page = body("gh_graphql_stars_page1.json")
    page["data"]["repository"]["stargazers"] = {
        "pageInfo": {"hasNextPage": more, "endCursor": cursor},
        "edges": [{"starredAt": t} for t in starred],
    }
    return page


@pytest.mark.parametrize("error", ["gh_graphql_internal_error.json", "gh_graphql_timeout_error.json"])
@responses.activate
def test_a_graphql_error_on_page_3_resumes_from_the_last_cursor_with_a_smaller_page(error):
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    add_github_repo(responses.mock, "pytorch/pytorch", stars_pages=0)
    recent = ["2025-05-01T00:00:00Z", "2025-04-01T00:00:00Z"]
    for answer in (
        stargazers_page("c1", recent),
        stargazers_page("c2", recent),
        body(error),
        stargazers_page("c3", ["2025-01-01T00:00:00Z", "2024-01-01T00:00:00Z"]),
    ):
        responses.post(f"{GH}/graphql", json=answer, match=graphql_for("pytorch/pytorch"))  # served in order
    sleeps: list[float] = []
    metrics = collect_repo(sleeps=sleeps)
    gained = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]
    assert gained["value"] == 5 and not metrics.failures
    assert (gained["method"]["pages"], gained["method"]["failed_attempts"]) == (3, 1)
    queries = [c.request for c in responses.calls if c.request.url.endswith("/graphql")]
    variables = [json.loads(q.body)["variables"] for q in queries]
    assert [(v["after"], v["first"]) for v in variables] == [(None, 100), ("c1", 100), ("c2", 100), ("c2", 50)]
    assert sleeps == [1.0]


@responses.activate
def test_a_graphql_page_failing_every_time_fails_star_growth_only():
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    add_github_repo(responses.mock, "pytorch/pytorch", stars_pages=0)
    responses.post(f"{GH}/graphql", json=body("gh_graphql_internal_error.json"))
    metrics = collect_repo()
    reason = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["reason"]
    assert "failed 3 times, the last with first=25" in reason and "INTERNAL" in reason
    assert metrics.subjects["pytorch/pytorch"]["contributors"]["status"] == "ok" and not metrics.stopped


@responses.activate
def test_a_refused_stargazers_connection_fails_star_growth_without_retrying():
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    add_github_repo(responses.mock, "pytorch/pytorch", stars_pages=0)
    responses.post(f"{GH}/graphql", json=body("gh_graphql_forbidden.json"))
    metrics = collect_repo()
    reason = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["reason"]
    assert reason == "GitHub GraphQL FORBIDDEN: Resource not accessible by integration"
    assert sum(c.request.url.endswith("/graphql") for c in responses.calls) == 1 and not metrics.stopped


@pytest.mark.parametrize("error_type", ["RATE_LIMITED", "RATE_LIMIT"])
@responses.activate
def test_a_graphql_rate_limit_stops_graphql_with_the_reset_time_and_rest_goes_on(error_type):
    limited = body("gh_graphql_rate_limited.json")
    limited["errors"][0]["type"] = error_type
    responses.post(f"{GH}/graphql", json=limited, headers=headers("gh_graphql_rate_limited.json"))
    for repo in ("pytorch/pytorch", "google/flax"):
        add_github(responses.mock, repo, stars_pages=0)
    metrics = SourceMetrics("github", fixed_clock)
    collect_github(
        lambda: make_github("ghp_test", 60.0),
        ("pytorch/pytorch", "google/flax"),
        NOW_DT,
        365,
        metrics,
        True,
        {},
        60.0,
        lambda label: None,
    )
    reason = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["reason"]
    assert reason.startswith(f"GitHub GraphQL rate limit ({error_type}: API rate limit exceeded")
    assert "it resets at 2025-06-01T13:00:00Z" in reason and "400" not in reason
    flax = metrics.subjects["google/flax"]
    assert flax["stars_gained_in_window"]["reason"] == f"not attempted: {reason}"
    assert flax["contributors"]["status"] == "ok" and not metrics.stopped
    assert sum(c.request.url.endswith("/graphql") for c in responses.calls) == 1


def secondary_limit(status: int = 429, **extra_headers: str) -> dict:
    return {"json": body("gh_secondary_rate_limited.json"), "status": status, "headers": extra_headers}


@responses.activate
def test_429_with_a_near_retry_after_is_retried():
    responses.get(f"{GH}/repos/pytorch/pytorch", **secondary_limit(**{"Retry-After": "5"}))
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    assert metrics.subjects["pytorch/pytorch"]["stars"]["value"] == 90000 and not metrics.failures


@pytest.mark.parametrize("status", [429, 403])
@responses.activate
def test_a_retry_after_beyond_max_wait_stops_github_without_retrying(status):
    responses.get(f"{GH}/repos/pytorch/pytorch", **secondary_limit(status, **{"Retry-After": "3600"}))
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo(max_wait=60)
    reason = metrics.subjects["pytorch/pytorch"]["stars"]["reason"]
    assert reason.startswith("GitHub rate limit: the reset is 3600 s away") and f"(HTTP {status})" in reason
    assert metrics.stopped and len(responses.calls) == 1


@responses.activate
def test_429_with_a_spent_limit_waits_for_a_near_reset_and_retries():
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 20)}
    responses.get(f"{GH}/repos/pytorch/pytorch", **secondary_limit(**reset))
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    assert metrics.subjects["pytorch/pytorch"]["stars"]["value"] == 90000 and not metrics.failures


@responses.activate
def test_429_naming_no_wait_stops_github_with_the_reason():
    responses.get(f"{GH}/repos/pytorch/pytorch", **secondary_limit())
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo()
    reason = metrics.subjects["pytorch/pytorch"]["stars"]["reason"]
    assert reason.startswith("GitHub rate limit exceeded (429): You have exceeded a secondary rate limit")
    assert "names no Retry-After or reset time" in reason
    assert metrics.subjects["pytorch/pytorch"]["releases_in_window"]["reason"] == f"not attempted: {reason}"
    assert len(responses.calls) == 1
