"""Stack Overflow collector: metrics from documented response shapes, pagination, the count filter, per-method
backoff, quota, timeouts and errors."""

from __future__ import annotations

from datetime import datetime

import pytest
import responses
from eco_mocks import (
    COUNT_FILTER,
    NOW,
    SE,
    SECRET_KEY,
    TAGS,
    add_stackexchange,
    body,
    count_response,
    fixed_clock,
    network_error,
)
from responses import matchers

from ecosystem.errors import SourceStopped
from ecosystem.metric import SourceMetrics
from ecosystem.stackexchange_client import COUNT_FILTER_FIELDS, StackClient
from ecosystem.stackoverflow_stats import collect_stackoverflow, first_answer_stats
from ecosystem.transport import TIMEOUT

TAGS_INFO = f"{SE}/tags/{';'.join(TAGS)}/info/"

NOW_DT = datetime.fromisoformat(NOW.replace("Z", "+00:00"))


class FakeTime:
    """A clock that only moves when the collector sleeps: backoff waits are observable and instant."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def run(max_wait: float = 60.0, sample: int = 5, fake: FakeTime | None = None, key: str | None = None):
    fake = fake or FakeTime()
    metrics = SourceMetrics("stackoverflow", fixed_clock)
    collect_stackoverflow(
        lambda: StackClient(key=key, max_wait=max_wait, sleep=fake.sleep, clock=fake.clock),
        TAGS,
        NOW_DT,
        365,
        sample,
        metrics,
        lambda label: None,
    )
    return metrics


@responses.activate
def test_collects_every_metric_following_has_more_across_pages():
    add_stackexchange(responses.mock)
    metrics = run()
    pytorch = metrics.subjects["pytorch"]
    assert {tag: metrics.subjects[tag]["total_questions"]["value"] for tag in TAGS} == {
        "pytorch": 25002,
        "tensorflow": 83001,
        "jax": 1004,
        "keras": 43003,
        "flax": 105,
    }
    assert pytorch["questions_in_window"]["value"] == 12345
    assert pytorch["unanswered_share_in_window"]["value"] == round(4321 / 12345, 4)
    # sample: 5 questions over two pages; first answers after 30 min, 5 h and 2 days; two unanswered
    assert pytorch["first_answer_sample_size"]["value"] == 5
    assert pytorch["sample_unanswered"]["value"] == 2
    assert pytorch["first_answer_median_minutes"]["value"] == 300.0
    assert pytorch["answered_within_1h_share"]["value"] == 0.2
    assert pytorch["answered_within_24h_share"]["value"] == 0.4
    method = pytorch["answered_within_1h_share"]["method"]
    assert (method["window_days"], method["sample_size"], method["requested_sample"]) == (365, 5, 5)
    assert method["endpoint"].startswith("https://api.stackexchange.com/2.3/questions?tagged=pytorch")
    pages = [
        c.request.url for c in responses.calls if "/questions/?" in c.request.url and "filter=default" in c.request.url
    ]
    assert [("page=1" in u, "page=2" in u) for u in pages[:2]] == [(True, False), (False, True)]
    assert not metrics.failures


@responses.activate
def test_sample_stops_at_the_requested_size_without_fetching_more_pages():
    add_stackexchange(responses.mock)
    metrics = run(sample=3)
    assert metrics.subjects["jax"]["first_answer_sample_size"]["value"] == 3
    assert not any("page=2" in c.request.url for c in responses.calls)


def test_first_answer_stats_keep_unanswered_questions_in_the_denominator():
    questions = [{"question_id": i, "creation_date": 0} for i in range(4)]
    answers = [
        {"question_id": 0, "creation_date": 120 * 60},
        {"question_id": 0, "creation_date": 600},
        {"question_id": 1, "creation_date": 30 * 3600},
    ]
    stats = first_answer_stats(questions, answers)
    assert stats == {
        "first_answer_sample_size": 4,
        "sample_unanswered": 2,
        "first_answer_median_minutes": 905.0,  # median of 10 min and 30 h
        "answered_within_1h_share": 0.25,
        "answered_within_24h_share": 0.25,
    }


def questions_with_backoff(rsps: responses.RequestsMock, name: str = "se_total_backoff.json") -> None:
    """The first count of /questions carries a backoff (shown or hidden by the filter, as the API does)."""
    rsps.add_callback(
        responses.GET,
        f"{SE}/questions/",
        callback=count_response(name),
        match=[
            matchers.query_param_matcher({"page": "1"}, strict_match=False),
            matchers.query_param_matcher({"pagesize": "100"}, strict_match=False),
        ],
    )


@responses.activate
def test_count_requests_send_the_count_filter_created_once():
    add_stackexchange(responses.mock)
    metrics = run()
    created = [c.request for c in responses.calls if "/filters/create/" in c.request.url]
    assert len(created) == 1
    assert created[0].params["include"] == ".backoff;.quota_max;.quota_remaining;.total"
    assert created[0].params["base"] == "none" and created[0].params["unsafe"] == "false"
    counts = [
        c.request
        for c in responses.calls
        if "/no-answers/" in c.request.url
        or ("/questions/?" in c.request.url and c.request.params["filter"] != "default")
    ]
    assert len(counts) == 2 * len(TAGS) and {r.params["filter"] for r in counts} == {COUNT_FILTER}
    method = metrics.subjects["jax"]["questions_in_window"]["method"]
    assert method["count_filter"] == COUNT_FILTER and method["count_filter_fields"] == ";".join(COUNT_FILTER_FIELDS)


@responses.activate
def test_a_backoff_on_a_count_delays_the_next_call_of_that_method_only():
    fake = FakeTime()
    seen: list[tuple[str, float]] = []
    responses.mock.response_callback = lambda response: seen.append((response.url, fake.now)) or response
    questions_with_backoff(responses.mock)  # registered first: it answers the first /questions count
    add_stackexchange(responses.mock)
    metrics = run(fake=fake)
    assert not metrics.failures
    assert fake.sleeps == [pytest.approx(11.0)]  # stackapi adds one second to the backoff
    first_count = next(i for i, (url, _) in enumerate(seen) if "/questions/?" in url)
    no_answers, next_questions = seen[first_count + 1], seen[first_count + 2]
    assert "/no-answers/" in no_answers[0] and no_answers[1] == seen[first_count][1]  # another method: no wait
    assert "/questions/?" in next_questions[0] and next_questions[1] == pytest.approx(seen[first_count][1] + 11.0)


@responses.activate
def test_a_backoff_longer_than_max_wait_stops_the_source_with_a_reason():
    questions_with_backoff(responses.mock)
    add_stackexchange(responses.mock)
    body_with_long_backoff = body("se_total_backoff.json") | {"backoff": 120}
    responses.mock.replace(
        responses.GET,
        f"{SE}/questions/",
        json=body_with_long_backoff,
        match=[
            matchers.query_param_matcher({"page": "1"}, strict_match=False),
            matchers.query_param_matcher({"pagesize": "100"}, strict_match=False),
        ],
    )
    fake = FakeTime()
    metrics = run(max_wait=30, fake=fake)
    assert fake.sleeps == []
    first = TAGS[0]
    assert metrics.subjects[first]["questions_in_window"]["status"] == "ok"
    reason = metrics.subjects[first]["first_answer_median_minutes"]["reason"]
    assert "back off 121 s" in reason and "--max-wait 30 s" in reason
    assert metrics.subjects[TAGS[-1]]["sample_unanswered"]["reason"].startswith("not attempted: ")


@pytest.mark.parametrize("failure", ["net_read_timeout.json", "net_chunked_encoding.json"])
@responses.activate
def test_a_network_failure_midway_is_retried_and_the_sample_collected(failure):
    responses.get(
        f"{SE}/questions/",
        body=network_error(failure),  # first, so it answers the first page 2
        match=[matchers.query_param_matcher({"filter": "default", "page": "2"}, strict_match=False)],
    )
    add_stackexchange(responses.mock)
    fake = FakeTime()
    metrics = run(fake=fake)
    assert not metrics.failures
    assert metrics.subjects[TAGS[0]]["first_answer_sample_size"]["value"] == 5
    assert fake.sleeps == [1.0]


@responses.activate
def test_timeouts_that_persist_stop_the_source_with_the_reason_and_never_raise():
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))
    responses.get(TAGS_INFO, body=network_error("net_read_timeout.json"))
    fake = FakeTime()
    metrics = run(fake=fake)
    reason = metrics.subjects["jax"]["total_questions"]["reason"]
    assert reason.startswith("Stack Exchange request failed: ReadTimeout(") and "failed 3 times" in reason
    assert metrics.stopped and fake.sleeps == [1.0, 2.0]
    assert metrics.subjects["flax"]["questions_in_window"]["reason"] == f"not attempted: {reason}"
    assert len(responses.calls) == 1 + 3


@responses.activate
def test_every_request_has_a_connect_and_a_read_timeout():
    add_stackexchange(responses.mock)
    run()
    assert TIMEOUT == (10, 30)
    assert {c.request.req_kwargs["timeout"] for c in responses.calls} == {TIMEOUT}


@responses.activate
def test_quota_exhaustion_stops_requests_and_marks_the_rest_failed():
    tags = body("se_tags_info.json")
    tags["quota_remaining"] = 0
    add_stackexchange(responses.mock, tags_info=tags)
    metrics = run()
    assert len(responses.calls) == 2
    failed = {f["metric"] for f in metrics.failures}
    assert "questions_in_window" in failed and "first_answer_median_minutes" in failed
    reason = metrics.subjects["keras"]["questions_in_window"]["reason"]
    assert "quota exhausted (quota_remaining 0 of 300)" in reason


@responses.activate
def test_throttle_error_body_stops_the_source():
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))
    responses.get(TAGS_INFO, json=body("se_throttle.json"), status=400)
    metrics = run()
    reason = metrics.subjects["jax"]["total_questions"]["reason"]
    assert "throttle_violation" in reason and "82400 seconds" in reason
    assert metrics.stopped and len(responses.calls) == 2


@responses.activate
def test_malformed_json_is_retried_then_recorded_as_failed():
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))
    responses.get(TAGS_INFO, body="<html>502 Bad Gateway</html>", status=502)
    fake = FakeTime()
    client = StackClient(max_wait=60, attempts=3, sleep=fake.sleep, clock=fake.clock)
    metrics = SourceMetrics("stackoverflow", fixed_clock)
    metrics.step(
        "pytorch", ("total_questions",), {"endpoint": "x"}, lambda: client.items("tags/{tags}/info", tags=list(TAGS))
    )
    assert len(responses.calls) == 1 + 3 and fake.sleeps == [1.0, 2.0]
    assert metrics.stopped  # a source still broken after retries is not asked again
    assert metrics.subjects["pytorch"]["total_questions"]["status"] == "failed"
    assert "Stack Exchange request failed" in metrics.failures[0]["reason"]


@responses.activate
def test_transient_failure_then_success_is_collected():
    responses.get(f"{SE}/sites/", body="<html>503</html>", status=503)
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))
    fake = FakeTime()
    client = StackClient(sleep=fake.sleep, clock=fake.clock)
    assert client.requests == 2 and client.quota_remaining is None


@responses.activate
def test_missing_field_fails_the_metric_naming_the_field():
    tags = body("se_tags_info.json")
    del tags["items"][1]["count"]
    add_stackexchange(responses.mock, tags_info=tags)
    metrics = run()
    reason = metrics.subjects["pytorch"]["total_questions"]["reason"]
    assert reason == "tags/info: response item lacks field 'count'"
    assert metrics.subjects["pytorch"]["questions_in_window"]["status"] == "ok"


@responses.activate
def test_key_never_appears_in_failure_reasons(monkeypatch):
    monkeypatch.setenv("STACK_EXCHANGE_KEY", SECRET_KEY)
    responses.get(f"{SE}/sites/", json=body("se_sites.json"))  # nothing else registered: connection refused
    metrics = run(key=SECRET_KEY)
    assert metrics.failures
    assert all(SECRET_KEY not in f["reason"] for f in metrics.failures)
    assert any("key=" in c.request.url for c in responses.calls)  # the key was really sent


def test_stopped_source_is_not_attempted():
    metrics = SourceMetrics("stackoverflow", fixed_clock)
    metrics.stopped = "cannot reach api.stackexchange.com (port 443)"

    def must_not_run() -> None:
        raise AssertionError("a stopped source made a request")

    metrics.step("jax", ("total_questions",), {"endpoint": "x"}, must_not_run)
    assert metrics.subjects["jax"]["total_questions"]["reason"].startswith("not attempted: cannot reach")


def test_stop_during_a_step_stops_later_steps():
    metrics = SourceMetrics("stackoverflow", fixed_clock)

    def refuse() -> None:
        raise SourceStopped("Stack Exchange quota exhausted")

    metrics.step("jax", ("questions_in_window",), {"endpoint": "x"}, refuse)
    metrics.step("flax", ("questions_in_window",), {"endpoint": "x"}, lambda: None)
    assert [f["reason"] for f in metrics.failures] == [
        "Stack Exchange quota exhausted",
        "not attempted: Stack Exchange quota exhausted",
    ]
