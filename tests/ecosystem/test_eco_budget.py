"""A full collection without credentials, against full-size pages, fits the anonymous quotas with room to spare:
Stack Exchange 300 requests a day per IP, GitHub 60 an hour (search 10 a minute). METRICS.md quotes these counts."""

from __future__ import annotations

import functools
import re
import time
from collections import Counter

import pytest
import responses
from eco_mocks import (
    FAKE_PINS,
    PACKAGES,
    REPOS,
    SE,
    SMALL_STACKS,
    TAGS,
    add_github,
    add_pypi_json,
    add_pypistats,
    add_stackexchange_counts,
    body,
    fake_uv,
    fixed_clock,
)

from ecosystem import cli, github_client, pypi_registry
from ecosystem.collect import collect
from ecosystem.subjects import REGISTRY_PACKAGES, TPU_PACKAGES

SAMPLE = 300  # the default --sample: three pages of 100 questions per tag


def full_page(template: str, page: int, has_more: bool, ids: str) -> dict:
    """A page of 100 items shaped like ``template``'s first item, ids numbered from ``page``."""
    data = body(template)
    item = data["items"][0]
    data["items"] = [dict(item, **{ids: page * 1000 + i, "question_id": page * 1000 + i}) for i in range(100)]
    data["has_more"] = has_more
    return data


def add_full_size_pages(rsps: responses.RequestsMock, answer_pages: int) -> None:
    """Question pages of 100, every question answered, and ``answer_pages`` pages of answers per 100 questions."""
    for page in (1, 2, 3):
        rsps.get(
            f"{SE}/questions/",
            json=full_page("se_questions_page1.json", page, True, "question_id"),
            match=[
                responses.matchers.query_param_matcher({"filter": "default", "page": str(page)}, strict_match=False)
            ],
        )
    answers = re.compile(rf"{re.escape(SE)}/questions/[0-9;%3B]+/answers/")
    for page in range(1, answer_pages + 1):
        rsps.get(
            answers,
            json=full_page("se_answers.json", page, page < answer_pages, "answer_id"),
            match=[responses.matchers.query_param_matcher({"page": str(page)}, strict_match=False)],
        )


@pytest.mark.parametrize("answer_pages", [1, 2])
@responses.activate
def test_a_collection_without_credentials_fits_the_anonymous_quotas(answer_pages, tmp_path, monkeypatch):
    uv = fake_uv(tmp_path)
    online = functools.partial(collect, is_reachable=lambda host: True, clock=fixed_clock, uv=uv)
    monkeypatch.setattr(cli, "collect", online)
    monkeypatch.setattr(pypi_registry, "STACKS", SMALL_STACKS)
    monkeypatch.setattr(github_client, "REQUEST_PACE_S", 0.0)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("STACK_EXCHANGE_KEY", raising=False)
    add_stackexchange_counts(responses.mock)
    add_full_size_pages(responses.mock, answer_pages)
    for repo in REPOS:
        add_github(responses.mock, repo)
    add_pypistats(responses.mock)
    add_pypi_json(responses.mock)
    assert cli.main(["collect", "--out", str(tmp_path / "eco"), "--no-progress", "--sample", str(SAMPLE)]) == 0
    hosts = Counter(c.request.url.split("/")[2].split(":")[0] for c in responses.calls)
    per_tag = 2 + SAMPLE // 100 + SAMPLE // 100 * answer_pages  # counts, question pages, answer pages
    assert hosts["api.stackexchange.com"] == 3 + len(TAGS) * per_tag <= 300  # /sites, tags/info, filters/create
    # repo, pulls, contributors, releases, latest, search, and two pages of star history (30 weeks each)
    assert hosts["api.github.com"] == 8 * len(REPOS) <= 60
    assert sum("/search/" in c.request.url for c in responses.calls) == len(REPOS) <= 10
    assert hosts["pypistats.org"] == len(PACKAGES)
    # PyPI's JSON API: each project once (the collection's cache), the resolved stacks' too
    projects = {p for group in (REGISTRY_PACKAGES, TPU_PACKAGES) for ps in group.values() for p in ps}
    projects |= {pin.split("==")[0] for pin in FAKE_PINS}
    assert hosts["pypi.org"] == len(projects)
