"""GitHub collector: metrics from documented shapes, rate limits (403, 429), retries, redirects and bad responses
(star growth from the star history: test_eco_star_history.py)."""

from __future__ import annotations

import time

import pytest
import responses
from eco_mocks import (
    GH,
    add_github,
    add_github_repo,
    body,
    collect_repo,
    network_error,
    repo_body,
)

from ecosystem import github_client
from ecosystem.github_stats import CONTRIBUTORS_DEFINITION
from ecosystem.metric import SourceMetrics


@pytest.fixture(autouse=True)
def no_pacing(monkeypatch):
    monkeypatch.setattr(github_client, "REQUEST_PACE_S", 0.0)


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
        "stars_gained_in_window": 365 * 3,  # the fixture's 3 stars a day, 2024-06-02 to 2025-06-01
        "star_growth_percent_in_window": round(100 * 1095 / (90000 - 1095), 2),
    }
    assert not metrics.failures
    assert all(c.request.headers["Authorization"] == "token ghp_test" for c in responses.calls)


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
