"""Star growth from GitHub's star history: the documented weekly shape, growth over a window from the daily counts,
answers that withhold the history (403, 404, no week) recorded as restricted, never as zero, and malformed answers
recorded with their reason."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
import responses
from eco_mocks import GH, SECRET_TOKEN, add_github, add_github_repo, body, collect_repo, history_page, repo_body

from ecosystem import github_client
from ecosystem.errors import CollectionError
from ecosystem.github_stars import (
    API_VERSION,
    DEFINITION,
    HEADERS,
    RESTRICTED,
    Week,
    fetch_weeks,
    growth_between,
    parse_weeks,
)

HISTORY = f"{GH}/repos/pytorch/pytorch/stargazers/history"
STAR_METRICS = ("stars_gained_in_window", "star_growth_percent_in_window")
WEEK_S = 7 * 86_400


@pytest.fixture(autouse=True)
def no_pacing(monkeypatch):
    monkeypatch.setattr(github_client, "REQUEST_PACE_S", 0.0)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def week(start: datetime, days: list[int]) -> dict:
    return {"week": int(start.timestamp()), "total": sum(days), "days": days}


def history_calls() -> list:
    return [c.request for c in responses.calls if "/stargazers/history" in c.request.url]


def test_growth_over_a_window_is_the_running_total_at_its_end_minus_at_its_start():
    weeks = parse_weeks(
        [  # newest first, as GitHub sends them
            week(utc(2025, 6, 15), [1, 2, 0, 0, 0, 0, 0]),  # the week the window ends in: Monday noon
            week(utc(2025, 6, 8), [1, 1, 1, 1, 1, 1, 1]),
            week(utc(2025, 6, 1), [5, 6, 7, 8, 9, 10, 11]),  # the window starts on Wednesday 2025-06-04 at 06:00
        ],
        "test",
    )
    growth = growth_between(weeks, utc(2025, 6, 4, 6), utc(2025, 6, 16, 12))
    # the days that begin in the window: 5 to 7 June, the whole middle week, 15 and 16 June
    assert growth.gained == (9 + 10 + 11) + 7 + (1 + 2)
    total_at_end, total_at_start = 56 + 7 + 3, 5 + 6 + 7 + 8  # the running totals of the days begun by then
    assert growth.gained == total_at_end - total_at_start
    assert (growth.first_day.isoformat(), growth.last_day.isoformat()) == ("2025-06-05", "2025-06-16")


def weeks_back(first: int, last: int) -> list[dict]:
    """Weeks ``first`` to ``last - 1`` before the one starting 2025-06-01, newest first, one star a day."""
    return [
        week(datetime.fromtimestamp(utc(2025, 6, 1).timestamp() - i * WEEK_S, timezone.utc), [1] * 7)
        for i in range(first, last)
    ]


def test_the_history_is_read_back_to_the_week_holding_the_window_start_and_a_week_seen_twice_counts_once():
    pages = {1: weeks_back(0, 30), 2: weeks_back(29, 59), 3: weeks_back(59, 89)}  # week 29 shifted onto page 2
    asked: list[int] = []
    weeks, read = fetch_weeks(lambda page: asked.append(page) or pages[page], "test", utc(2024, 6, 1, 12))
    assert asked == [1, 2] and read == 2  # page 2 reaches 2024-04-21, before the window start
    assert len(weeks) == 59 and [w.start for w in weeks] == sorted({w.start for w in weeks})


def test_a_history_shorter_than_a_page_is_the_whole_history():
    young = [week(utc(2025, 5, 25), [0, 4, 4, 4, 4, 4, 4])]
    weeks, read = fetch_weeks(lambda page: young, "test", utc(2024, 6, 1, 12))
    assert read == 1 and weeks == [Week(int(utc(2025, 5, 25).timestamp()), (0, 4, 4, 4, 4, 4, 4))]


@responses.activate
def test_star_growth_comes_from_the_documented_history_shape_with_or_without_a_token():
    add_github(responses.mock, "pytorch/pytorch")
    metrics = collect_repo(token=None)
    gained = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]
    assert gained["status"] == "ok" and gained["value"] == 365 * 3  # the fixture's 3 stars a day
    method = gained["method"]
    assert method["endpoint"] == "https://api.github.com/repos/pytorch/pytorch/stargazers/history?per_page=30"
    assert (method["first_day"], method["last_day"], method["window_days"]) == ("2024-06-02", "2025-06-01", 365)
    assert (method["pages"], method["weeks_read"], method["definition"]) == (2, 60, DEFINITION)
    growth = metrics.subjects["pytorch/pytorch"]["star_growth_percent_in_window"]
    assert growth["value"] == round(100 * 1095 / (90000 - 1095), 2)
    sent = history_calls()
    assert [(r.params["per_page"], r.params["page"]) for r in sent] == [("30", "1"), ("30", "2")]
    assert all(r.headers["X-GitHub-Api-Version"] == API_VERSION and "Authorization" not in r.headers for r in sent)
    assert not metrics.failures


@pytest.mark.parametrize(
    "status, answer, says",
    [
        (403, body("gh_star_history_forbidden.json"), "answered HTTP 403 (Resource not accessible by integration)"),
        (404, body("gh_star_history_not_found.json"), "answered HTTP 404 (Not Found)"),
        (200, [], "returned no week for a repository with 90,000 stars"),
    ],
)
@responses.activate
def test_a_withheld_history_is_recorded_as_restricted_never_as_zero(status, answer, says):
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    responses.get(HISTORY, json=answer, status=status, match=history_page(1))
    add_github_repo(responses.mock, "pytorch/pytorch", star_history=False)
    metrics = collect_repo()
    for name in STAR_METRICS:
        metric = metrics.subjects["pytorch/pytorch"][name]
        assert metric["status"] == "not_collected" and metric["value"] is None
        assert metric["reason"].startswith(f"{RESTRICTED}: /repos/pytorch/pytorch/stargazers/history {says}")
    assert not metrics.failures and not metrics.stopped  # withheld data is not a failure of the collection
    assert metrics.subjects["pytorch/pytorch"]["contributors"]["status"] == "ok"
    assert len(history_calls()) == 1  # not asked again


@responses.activate
def test_a_withheld_history_falls_back_to_an_older_snapshot_and_says_why():
    responses.get(HISTORY, json=body("gh_star_history_not_found.json"), status=404, match=history_page(1))
    add_github(responses.mock, "pytorch/pytorch", star_history=False)
    metrics = collect_repo(baseline=("2024-05-30", 89000))
    gained = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]
    assert gained["value"] == 1000 and gained["method"]["baseline_date"] == "2024-05-30"
    assert gained["method"]["window_days"] == 367
    assert gained["method"]["star_history_refused"].startswith(f"{RESTRICTED}: ")
    assert metrics.subjects["pytorch/pytorch"]["star_growth_percent_in_window"]["value"] == round(100000 / 89000, 2)


@responses.activate
def test_a_rate_limited_history_is_a_rate_limit_not_a_restriction():
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)}
    responses.get(HISTORY, json=body("gh_rate_limited.json"), status=403, headers=reset)
    add_github(responses.mock, "pytorch/pytorch", star_history=False)
    metrics = collect_repo(max_wait=60)
    reason = metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["reason"]
    assert reason.startswith("GitHub rate limit: the reset is") and metrics.stopped
    assert metrics.subjects["pytorch/pytorch"]["stars_gained_in_window"]["status"] == "failed"


MALFORMED = [
    ({"weeks": []}, "page 1: expected a JSON array of weeks, got an object"),
    ([{"week": 1748736000, "total": 3}], "page 1: week 0 lacks field 'days'"),
    ([{"week": "2025-06-01", "total": 3, "days": [3, 0, 0, 0, 0, 0, 0]}], "'week' is '2025-06-01', not a Unix time"),
    ([{"week": 1748736000, "total": 3, "days": [3, 0, 0, 0, 0, 0]}], "'days' is [3, 0, 0, 0, 0, 0], not 7 counts"),
    ([{"week": 1748736000, "total": 5, "days": [3, 0, 0, 0, 0, 0, 0]}], "'total' is 5 but its days add up to 3"),
]


@pytest.mark.parametrize("answer, says", MALFORMED)
@responses.activate
def test_a_history_in_another_shape_fails_star_growth_with_the_reason(answer, says):
    responses.get(f"{GH}/repos/pytorch/pytorch", json=repo_body("pytorch/pytorch"))
    responses.get(HISTORY, json=answer, match=history_page(1))
    add_github_repo(responses.mock, "pytorch/pytorch", star_history=False)
    metrics = collect_repo()
    for name in STAR_METRICS:
        metric = metrics.subjects["pytorch/pytorch"][name]
        assert metric["status"] == "failed" and metric["value"] is None
        assert metric["reason"].startswith("https://api.github.com/repos/pytorch/pytorch/stargazers/history page 1")
        assert says in metric["reason"]
    assert [f["metric"] for f in metrics.failures] == list(STAR_METRICS)
    assert metrics.subjects["pytorch/pytorch"]["issues_opened_in_window"]["status"] == "ok"


def test_the_parser_names_the_week_that_differs():
    good = week(utc(2025, 6, 1), [1] * 7)
    with pytest.raises(CollectionError, match=r"^where: week 1 is a string, not an object$"):
        parse_weeks([good, "oops"], "where")
    with pytest.raises(CollectionError, match=r"week 0: 'days' is \[1, -1, 0, 0, 0, 0, 0\], not 7 counts"):
        parse_weeks([week(utc(2025, 6, 1), [1, -1, 0, 0, 0, 0, 0])], "where")


@responses.activate
def test_a_restricted_reason_never_carries_the_token(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", SECRET_TOKEN)
    refused = body("gh_star_history_forbidden.json") | {"message": f"token {SECRET_TOKEN} may not read this"}
    responses.get(HISTORY, json=refused, status=403, match=history_page(1))
    add_github(responses.mock, "pytorch/pytorch", star_history=False)
    reason = collect_repo(token=SECRET_TOKEN).subjects["pytorch/pytorch"]["stars_gained_in_window"]["reason"]
    assert reason.startswith(RESTRICTED) and SECRET_TOKEN not in reason and "[redacted]" in reason
    assert "Authorization" not in HEADERS  # PyGithub adds it to the dict it is given: a copy went out
