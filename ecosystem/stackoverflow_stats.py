"""Stack Overflow statistics per tag through stackapi: question counts, unanswered share, first answers."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from ecosystem.errors import CollectionError, SourceStopped
from ecosystem.metric import SourceMetrics
from ecosystem.stackexchange_client import API, COUNT_FILTER_FIELDS, SITE, StackClient

#: sampled questions are at least this old, so that a 24 h answer window is fully observable
SETTLE_DAYS = 7
_ANSWER_IDS_PER_CALL = 100  # the API accepts up to 100 ids in a vectorised call


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


FIRST_ANSWER_METRICS = (
    "first_answer_median_minutes",
    "answered_within_1h_share",
    "answered_within_24h_share",
    "first_answer_sample_size",
    "sample_unanswered",
)


def collect_stackoverflow(
    client_factory: Callable[[], StackClient],
    tags: tuple[str, ...],
    now: datetime,
    window_days: int,
    sample: int,
    metrics: SourceMetrics,
    progress: Callable[[str], None],
) -> None:
    """Collect every Stack Overflow metric for ``tags`` into ``metrics``; ``progress`` hears of each step."""
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

    tags_method = {"endpoint": f"{API}/tags/{{tags}}/info?site={SITE}", "window_days": None, "sample_size": None}

    def total_questions() -> None:
        items = client().items("tags/{tags}/info", tags=list(tags))
        counts = {require(item, "name", "tags/info"): require(item, "count", "tags/info") for item in items}
        for tag in tags:
            if tag in counts:
                metrics.set(tag, "total_questions", counts[tag], tags_method)
            else:
                metrics.fail(tag, ["total_questions"], f"tag '{tag}' missing from tags/info response", tags_method)

    metrics.step(tags, ("total_questions",), tags_method, total_questions)
    progress("stackoverflow tags")
    for tag in tags:
        _collect_tag(client, tag, window, window_days, sample, metrics)
        progress(f"stackoverflow {tag}")


def _collect_tag(
    client: Callable[[], StackClient],
    tag: str,
    window: dict[str, int],
    window_days: int,
    sample: int,
    metrics: SourceMetrics,
) -> None:
    counts_method = {
        "endpoint": f"{API}/questions?tagged={tag}&filter=COUNT_FILTER and "
        f"{API}/questions/no-answers?tagged={tag}&filter=COUNT_FILTER",
        "window_days": window_days,
        "sample_size": None,
        "unanswered_means": "no answer at all (/questions/no-answers)",
        "count_filter_fields": ";".join(COUNT_FILTER_FIELDS),
    }

    def counts() -> None:
        asked = client().total("questions", tagged=tag, **window)
        unanswered = client().total("questions/no-answers", tagged=tag, **window)
        method = dict(counts_method, count_filter=client().count_filter())
        metrics.set(tag, "questions_in_window", asked, method)
        if asked:
            metrics.set(tag, "unanswered_share_in_window", round(unanswered / asked, 4), method)
        else:
            metrics.skip(tag, "unanswered_share_in_window", "no question in the window", method)

    metrics.step(tag, ("questions_in_window", "unanswered_share_in_window"), counts_method, counts)

    settled = window["todate"] - SETTLE_DAYS * 86400
    sample_method = {
        "endpoint": f"{API}/questions?tagged={tag}&sort=creation&order=desc then "
        f"{API}/questions/{{ids}}/answers?sort=creation&order=asc",
        "window_days": window_days,
        "sample_size": None,
        "requested_sample": sample,
        "settle_days": SETTLE_DAYS,
        "definition": "the newest questions created in the window and at least settle_days old; "
        "delay = earliest visible answer's creation_date minus the question's; "
        "median over answered questions, shares over the whole sample",
    }

    def first_answers() -> None:
        questions = client().items(
            "questions",
            limit=sample,
            tagged=tag,
            sort="creation",
            order="desc",
            fromdate=window["fromdate"],
            todate=settled,
        )
        answered = [
            require(q, "question_id", "questions") for q in questions if require(q, "answer_count", "questions") > 0
        ]
        answers: list[dict[str, Any]] = []
        for i in range(0, len(answered), _ANSWER_IDS_PER_CALL):
            answers += client().items(
                "questions/{ids}/answers", ids=answered[i : i + _ANSWER_IDS_PER_CALL], sort="creation", order="asc"
            )
        stats = first_answer_stats(questions, answers)
        method = dict(sample_method, sample_size=stats["first_answer_sample_size"])
        for name in FIRST_ANSWER_METRICS:
            if stats[name] is None:
                metrics.skip(tag, name, "no answered question in the sample", method)
            else:
                metrics.set(tag, name, stats[name], method)

    metrics.step(tag, FIRST_ANSWER_METRICS, sample_method, first_answers)
