"""The debugging page: each framework's score first, then a bug × framework matrix in words a reader knows, with
a raised error read as the good outcome, then the messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.build.render import build_pages
from generator.records.load import load_results
from generator.records.probes import outcome_label, outcome_tone

COMMITTED_PROBES = Path(__file__).resolve().parents[2] / "results" / "probes"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    shutil.copytree(COMMITTED_PROBES, root / "probes")
    return build_pages(load_results(root, strict=True))["devex/debugging.md"]


def test_the_scores_come_before_any_detail(page):
    assert page.index("## Scores") < page.index("## Outcomes on") < page.index("### A dense layer")
    assert "| score without silently cast probes | **62%** | **66%** | **71%** |" in page
    assert "| score over every probe | 62% | 53% | 57% |" in page


def test_outcomes_read_as_words_and_a_raised_error_as_good(page):
    assert (outcome_label("no_error"), outcome_tone("no_error")) == ("no error raised", "bad")
    assert (outcome_label("error"), outcome_tone("error")) == ("error raised", "good")
    assert "no_error" not in page.replace("`no_error`", "")
    assert ":material-check-circle:{ .fw-good } error raised" in page
    assert ":material-close-circle:{ .fw-bad } no error raised" in page
    assert '??? success "compiled: error raised' in page and '??? failure "compiled: no error raised' in page
