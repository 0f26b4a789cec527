"""The site scores silently cast probes apart: each framework's score with and without them."""

import shutil
from pathlib import Path

import pytest

from generator.build.render import build_pages
from generator.records.load import Loaded, load_results
from generator.records.probes import probe_scores

#: one machine's committed probes (the AMD EPYC VM of fingerprint 846125), whose scores these tests pin
COMMITTED = Path(__file__).resolve().parents[2] / "results" / "probes" / "cpu-amd-epyc-2t-846125"


@pytest.fixture(scope="module")
def committed_probes(tmp_path_factory):
    """A results tree holding only that machine's committed probe records."""
    root = tmp_path_factory.mktemp("results")
    shutil.copytree(COMMITTED, root / "probes" / COMMITTED.name)
    return load_results(root, strict=True)


def loaded(framework, total, *, cast=False, name="p"):
    """A probe record with the fields the scores read; ``cast`` makes it a silently cast dtype probe."""
    record = {
        "framework": {"name": framework},
        "score": {"total": total, "max": 5.0},
        "outcome": "no_error" if cast else "error",
        "expected_tokens": ["float64", "float32"],
        "warnings": [],
        "result": "loss=1 dtype=float32" if cast else None,
    }
    return Loaded(path=Path(f"/r/{framework}-{name}.json"), record=record)


def test_silently_cast_probes_count_in_one_figure_and_not_the_other():
    scores = probe_scores(
        [loaded("jax", 5.0, name="a"), loaded("jax", 0.0, cast=True, name="b"), loaded("torch", 0.0, cast=True)]
    )
    assert scores.with_cast == {"jax": 0.5, "torch": 0.0}
    assert dict(scores) == {"jax": 1.0}  # what the site ranks; torch has no probe left to score
    assert scores.cast == {"jax": 1, "torch": 1} and scores.scored == {"jax": 2, "torch": 1}
    assert scores.category(loaded("jax", 0.0, cast=True, name="b")) == "silently cast"
    assert scores.category(loaded("jax", 5.0, name="a")) == "error"


def test_committed_records_scores_with_and_without(committed_probes):
    scores = probe_scores(committed_probes.probes)
    assert scores.cast == {"torch": 0, "tensorflow": 2, "jax": 2}
    assert {fw: round(v, 3) for fw, v in scores.with_cast.items()} == {"torch": 0.618, "tensorflow": 0.53, "jax": 0.567}
    assert {fw: round(v, 3) for fw, v in scores.items()} == {"torch": 0.618, "tensorflow": 0.663, "jax": 0.708}


def test_debugging_page_shows_both_scores_the_category_and_why(committed_probes):
    page = build_pages(committed_probes)["devex/debugging.md"]
    assert "| score without silently cast probes | **62%** | **66%** | **71%** |" in page
    assert "| score over every probe | 62% | 53% | 57% |" in page
    assert "| probes scored | 10 | 10 | 10 |" in page
    assert "| silently cast | 0 | 2 | 2 |" in page
    assert "Why silently cast probes are scored apart" in page
    assert page.count("{ .fw-neutral } silently cast <small>") == 4
    assert "a warning said the float64 input was cast to float32" in page
    assert "no warning, but the step computed in float32" in page
    assert page.count("No error was raised: the bug went unreported") == 6  # the NaN probes without tooling
