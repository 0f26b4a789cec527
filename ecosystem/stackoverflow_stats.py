"""Stack Overflow statistics per tag through stackapi: question counts, unanswered share, first answers."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import stackapi.stackapi as stackapi_module
from stackapi import StackAPI, StackAPIError

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.metric import SourceMetrics

TAGS = ("pytorch", "tensorflow", "jax", "keras", "flax")
SITE = "stackoverflow"
HOST = "api.stackexchange.com"
API = f"https://{HOST}/2.3"
#: sampled questions are at least this old, so that a 24 h answer window is fully observable
SETTLE_DAYS = 7
# error_id values the API documents as transient (internal_error, temporarily_unavailable)
_TRANSIENT_ERRORS = {500, 503}
_THROTTLE_ERRORS = {502}  # throttle_violation: quota or request rate exceeded
_ANSWER_IDS_PER_CALL = 100  # the API accepts up to 100 ids in a vectorised call


class StackClient:
    """StackAPI, one page per call: we paginate, watch ``quota_remaining`` and honour ``backoff`` ourselves.

    stackapi sleeps ``backoff + 1`` seconds inside ``fetch`` with ``time.sleep``; we route that sleep
    into a deadline kept here, so that the wait happens (bounded by ``max_wait``, through an
    injectable ``sleep``) before the next request instead of blocking unboundedly.
    Note that ``StackAPI(...)`` itself requests ``/sites`` at construction.
    """

    def __init__(self, key: str | None = None, max_wait: float = 60.0, retries: int = 2,
                 sleep: Callable[[float], None] | None = None, clock: Callable[[], float] = time.monotonic):
        self.max_wait = max_wait
        self.retries = retries
        self.quota_remaining: int | None = None
        self.quota_max: int | None = None
        self.requests = 0
        self._sleep = sleep or time.sleep
        self._clock = clock
        self._not_before = 0.0
        self.api = self._call(lambda: StackAPI(SITE, key=key, max_pages=1, page_size=100))

    @contextmanager
    def _deferred_backoff(self) -> Iterator[None]:
        original = stackapi_module.sleep
        stackapi_module.sleep = lambda seconds: setattr(self, "_not_before", self._clock() + seconds)
        try:
            yield
        finally:
            stackapi_module.sleep = original

    def _wait_for_backoff(self) -> None:
        delay = self._not_before - self._clock()
        if delay <= 0:
            return
        if delay > self.max_wait:
            raise SourceStopped(f"Stack Exchange asked to back off {delay:.0f} s, more than the "
                                f"allowed --max-wait {self.max_wait:.0f} s")
        self._sleep(delay)

    def _call(self, request: Callable[[], Any]) -> Any:
        for attempt in range(self.retries + 1):
            if self.quota_remaining is not None and self.quota_remaining <= 0:
                raise SourceStopped(f"Stack Exchange quota exhausted (quota_remaining 0 of {self.quota_max})")
            self._wait_for_backoff()
            self.requests += 1
            try:
                with self._deferred_backoff():
                    return request()
            except StackAPIError as exc:
                error = _describe(exc)
                if exc.error in _THROTTLE_ERRORS:
                    raise SourceStopped(f"Stack Exchange throttled the collection: {error}") from None
                transient = exc.error in _TRANSIENT_ERRORS or not isinstance(exc.error, int)
                if not transient:
                    raise CollectionError(error) from None
                if attempt == self.retries:  # still down after retries: stop asking for this run
                    raise SourceStopped(f"{error} (after {attempt + 1} attempts)") from None
                self._not_before = max(self._not_before, self._clock() + min(2.0**attempt, self.max_wait))
            except ValueError as exc:  # StackAPI(...) rejects the site when /sites lacks it
                raise CollectionError(f"Stack Exchange: {exc}") from None
        raise AssertionError("unreachable")

    def fetch(self, endpoint: str, **params: Any) -> dict[str, Any]:
        """One page of ``endpoint`` (items, has_more, total, quota_*), after the quota and backoff checks."""
        result = self._call(lambda: self.api.fetch(endpoint, **params))
        if result.get("quota_remaining", -1) >= 0:  # stackapi reports -1 when the field was filtered out
            self.quota_remaining, self.quota_max = result["quota_remaining"], result["quota_max"]
        return result

    def items(self, endpoint: str, limit: int | None = None, **params: Any) -> list[dict[str, Any]]:
        """Items of ``endpoint`` across pages, following ``has_more`` until ``limit`` items."""
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            result = self.fetch(endpoint, page=page, **params)
            items.extend(result["items"])
            if not result["has_more"] or (limit is not None and len(items) >= limit):
                return items[:limit] if limit is not None else items
            page += 1

    def total(self, endpoint: str, **params: Any) -> int:
        """The number of matching items, from the API's ``total`` filter (one request, no items)."""
        return self.fetch(endpoint, filter="total", **params)["total"]


def _describe(exc: StackAPIError) -> str:
    # never include exc.url: it carries the key; stackapi puts a connection error's text in every field
    if isinstance(exc.error, int):
        return f"Stack Exchange error {exc.error} {exc.code}: {exc.message}"
    return f"Stack Exchange request failed: {exc.message}"


def require(item: dict[str, Any], field: str, where: str) -> Any:
    """``item[field]``, or a CollectionError naming the field and the response it is missing from."""
    if not isinstance(item, dict) or field not in item:
        raise CollectionError(f"{where}: response item lacks field '{field}'")
    return item[field]


def first_answer_stats(questions: list[dict[str, Any]], answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Time-to-first-answer figures for sampled questions; unanswered questions stay in the denominator."""
    earliest: dict[int, int] = {}
    for answer in answers:
        qid = require(answer, "question_id", "answers")
        created = require(answer, "creation_date", "answers")
        earliest[qid] = min(created, earliest.get(qid, created))
    delays = []
    for question in questions:
        qid = require(question, "question_id", "questions")
        if qid in earliest:
            delays.append((earliest[qid] - require(question, "creation_date", "questions")) / 60.0)
    size = len(questions)
    return {
        "first_answer_sample_size": size,
        "sample_unanswered": size - len(delays),
        "first_answer_median_minutes": round(statistics.median(delays), 1) if delays else None,
        "answered_within_1h_share": round(sum(d <= 60 for d in delays) / size, 4) if size else None,
        "answered_within_24h_share": round(sum(d <= 24 * 60 for d in delays) / size, 4) if size else None,
    }


FIRST_ANSWER_METRICS = ("first_answer_median_minutes", "answered_within_1h_share",
                        "answered_within_24h_share", "first_answer_sample_size", "sample_unanswered")


def collect_stackoverflow(client_factory: Callable[[], StackClient], now: datetime, window_days: int,
                          sample: int, metrics: SourceMetrics, progress: Callable[[str], None]) -> None:
    """Collect every Stack Overflow metric for TAGS into ``metrics``; ``progress`` hears of each step."""
    start = now - timedelta(days=window_days)
    window = {"fromdate": int(start.timestamp()), "todate": int(now.timestamp())}
    holder: dict[str, StackClient] = {}

    def client() -> StackClient:
        if "client" not in holder:
            try:
                holder["client"] = client_factory()
            except CollectionError as exc:  # without the client no later step can succeed
                raise SourceStopped(str(exc)) from None
        return holder["client"]

    tags_method = {"endpoint": f"{API}/tags/{{tags}}/info?site={SITE}", "window_days": None,
                   "sample_size": None}

    def total_questions() -> None:
        items = client().items("tags/{tags}/info", tags=list(TAGS))
        counts = {require(item, "name", "tags/info"): require(item, "count", "tags/info") for item in items}
        for tag in TAGS:
            if tag in counts:
                metrics.set(tag, "total_questions", counts[tag], tags_method)
            else:
                metrics.fail(tag, ["total_questions"], f"tag '{tag}' missing from tags/info response",
                             tags_method)

    metrics.step(TAGS, ("total_questions",), tags_method, total_questions)
    progress("stackoverflow tags")
    for tag in TAGS:
        _collect_tag(client, tag, window, window_days, sample, metrics)
        progress(f"stackoverflow {tag}")


def _collect_tag(client: Callable[[], StackClient], tag: str, window: dict[str, int], window_days: int,
                 sample: int, metrics: SourceMetrics) -> None:
    counts_method = {"endpoint": f"{API}/questions?tagged={tag}&filter=total and "
                                 f"{API}/questions/no-answers?tagged={tag}&filter=total",
                     "window_days": window_days, "sample_size": None,
                     "unanswered_means": "no answer at all (/questions/no-answers)"}

    def counts() -> None:
        asked = client().total("questions", tagged=tag, **window)
        unanswered = client().total("questions/no-answers", tagged=tag, **window)
        metrics.set(tag, "questions_in_window", asked, counts_method)
        if asked:
            metrics.set(tag, "unanswered_share_in_window", round(unanswered / asked, 4), counts_method)
        else:
            metrics.skip(tag, "unanswered_share_in_window", "no question in the window", counts_method)

    metrics.step(tag, ("questions_in_window", "unanswered_share_in_window"), counts_method, counts)

    settled = window["todate"] - SETTLE_DAYS * 86400
    sample_method = {"endpoint": f"{API}/questions?tagged={tag}&sort=creation&order=desc then "
                                 f"{API}/questions/{{ids}}/answers?sort=creation&order=asc",
                     "window_days": window_days, "sample_size": None, "requested_sample": sample,
                     "settle_days": SETTLE_DAYS,
                     "definition": "the newest questions created in the window and at least settle_days old; "
                                   "delay = earliest visible answer's creation_date minus the question's; "
                                   "median over answered questions, shares over the whole sample"}

    def first_answers() -> None:
        questions = client().items("questions", limit=sample, tagged=tag, sort="creation", order="desc",
                                   fromdate=window["fromdate"], todate=settled)
        answered = [require(q, "question_id", "questions") for q in questions
                    if require(q, "answer_count", "questions") > 0]
        answers: list[dict[str, Any]] = []
        for i in range(0, len(answered), _ANSWER_IDS_PER_CALL):
            answers += client().items("questions/{ids}/answers", ids=answered[i:i + _ANSWER_IDS_PER_CALL],
                                      sort="creation", order="asc")
        stats = first_answer_stats(questions, answers)
        method = dict(sample_method, sample_size=stats["first_answer_sample_size"])
        for name in FIRST_ANSWER_METRICS:
            if stats[name] is None:
                metrics.skip(tag, name, "no answered question in the sample", method)
            else:
                metrics.set(tag, name, stats[name], method)

    metrics.step(tag, FIRST_ANSWER_METRICS, sample_method, first_answers)
