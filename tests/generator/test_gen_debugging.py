"""The debugging page: each framework's score first, then a bug × framework matrix in words a reader knows, with
a raised error read as the good outcome, then the messages."""

from __future__ import annotations

import gen_records
import probe_records
import pytest
from one_page import page_alone

from fwbench.records import write_record
from generator.records.load import load_results
from generator.records.probes import outcome_label, outcome_tone


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page of one machine's probes, in today's releases and the article's (``probe_records``)."""
    root = probe_records.write_machine(tmp_path_factory.mktemp("results"), article=True)
    return page_alone(load_results(root, strict=True), "devex/debugging.md")


def test_the_scores_come_before_any_detail(page):
    assert page.index("## Scores") < page.index("## Outcomes on") < page.index("### A dense layer")
    assert "| score without silently cast probes | 35% | 43% | 37% |" in page
    assert "| score with them | 38% | 35% | 29% |" in page
    # 5 bugs × 2 modes, less the 2 silently cast ones; the same for every framework; the article's releases left out
    assert "| probes in the first score | 8 | 8 | 8 |" in page


def test_only_todays_versions_are_on_the_page(page):
    assert "TensorFlow 2.21.0." in page and "TensorFlow 2.15.0" not in page and "JAX 0.4.26" not in page
    assert page.count("The error does not report the planted bug, so every part scores 0.") == 1


def test_outcomes_read_as_words_and_a_raised_error_as_good(page):
    assert (outcome_label("no_error"), outcome_tone("no_error")) == ("no error raised", "bad")
    assert (outcome_label("error"), outcome_tone("error")) == ("error raised", "good")
    assert "no_error" not in page.replace("`no_error`", "")
    assert ":material-check-circle:{ .fw-good } error raised" in page
    assert ":material-close-circle:{ .fw-bad } no error raised" in page
    assert '??? success "compiled: error raised' in page and '??? failure "compiled: no error raised' in page


def test_without_a_probe_every_framework_ran_no_score_compares_them(tmp_path):
    for framework, bug in (("torch", "dense_shape"), ("jax", "loss_shape")):  # no bug that both ran
        record = gen_records.probe(framework, bug)
        write_record(tmp_path / "probes" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    page = page_alone(load_results(tmp_path), "devex/debugging.md")
    assert "## Scores" not in page and "No score compares the frameworks yet" in page
    assert ":material-check-circle:{ .fw-good } error raised <small>3/5</small>" in page  # each probe's own score


def test_an_error_about_something_else_is_not_read_as_the_bug_caught(tmp_path):
    for framework, message in (("torch", "shape mismatch: 128x64"), ("jax", "XLA cannot compile op CheckNumerics")):
        record = gen_records.probe(framework, "nan", message=message, tooling=True)
        record["names_shapes"] = False  # the bug's word (NaN) or its tokens decide, not the flag
        write_record(tmp_path / "probes" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    page = page_alone(load_results(tmp_path), "devex/debugging.md")
    matrix = page[page.index("| bug |") : page.index("??? info")]
    assert ":material-close-circle:{ .fw-bad } error raised about something else <small>0/5</small>" in matrix
    assert "error raised that reports the planted bug (the bug was caught)" in page
    assert '??? failure "compiled: error raised about something else' in page


def test_the_tensorflow_nan_probe_that_xla_refused_is_not_a_caught_bug(page):
    rows = [
        line.strip() for line in page.splitlines() if line.strip().startswith("| a NaN in the loss, NaN tooling on |")
    ]
    tensorflow = [row.split(" | ")[2] for row in rows]  # a row per machine and mode: bug, PyTorch, TensorFlow, JAX
    assert any(
        ":material-close-circle:{ .fw-bad } error raised about something else <small>0/5</small>" in cell
        for cell in tensorflow
    )
    assert not any("fw-good" in cell and "0/5" in cell for cell in tensorflow)
