"""The site scores every framework over the same probes, silently cast ones apart, and an error about something
else as a failure, records written before that rule included."""

import shutil
from pathlib import Path

import pytest

from generator.build.render import build_pages
from generator.records.load import Loaded, load_results
from generator.records.probes import probe_score, probe_scores, todays
from runners.probes.catalog import ProbeSpec
from runners.probes.record import build_record

#: one machine's committed probes (the AMD EPYC VM of fingerprint 846125), whose scores these tests pin
COMMITTED = Path(__file__).resolve().parents[2] / "results" / "probes" / "cpu-amd-epyc-2t-846125"
#: a probe record scored under rubric /1 (where it comes from: test_probe_outcome.RUBRIC_1)
RUBRIC_1 = Path(__file__).parent / "fixtures" / "nan-tensorflow-compiled-tooling-on.rubric1.json"
PROVENANCE = dict(
    software={"python": "3.11", "os": "Linux", "packages": {}},
    started_at="2025-01-01T00:00:00.000Z",
    finished_at="2025-01-01T00:00:01.000Z",
)
ERROR = {
    "outcome": "error",
    "exception_type": "RuntimeError",
    "traceback": "Traceback (most recent call last):\nRuntimeError\n",
    "frames": [],
    "seconds_to_error": 0.1,
    "warnings": [],
    "exit_code": 0,
    "stderr_tail": None,
    "wall_seconds": 1.0,
}
CAST = {
    "outcome": "no_error",
    "result": "loss=2.3 dtype=float32 gradients_finite=True",
    "frames": [],
    "warnings": [],
    "exit_code": 0,
    "stderr_tail": None,
    "wall_seconds": 1.0,
}


@pytest.fixture(scope="module")
def committed_probes(tmp_path_factory):
    """A results tree holding only that machine's committed probe records."""
    root = tmp_path_factory.mktemp("results")
    shutil.copytree(COMMITTED, root / "probes" / COMMITTED.name)
    return load_results(root, strict=True)


def probe(framework, bug, mode="eager", *, message=None, machine="m1", environment=None):
    """A probe record built from a capture: an error with ``message``, or (no message) a silently cast dtype probe."""
    spec = ProbeSpec(framework, bug, mode, True if bug == "nan" else None)
    capture = {**ERROR, "message": message} if message else CAST
    record = build_record(spec, capture, machine_id=machine, environment=environment, **PROVENANCE)
    return Loaded(path=Path(f"/r/{machine}/{environment}/{spec.record_id}.json"), record=record)


def test_every_framework_is_scored_over_the_same_probes():
    refused = "mat1 and mat2 must have the same dtype, but got Double and Float"
    shape = "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"
    probes = [
        probe("torch", "dtype", message=refused),
        probe("jax", "dtype"),  # silently cast: left out of the ranked score for torch too
        probe("torch", "dense_shape", message=shape),
        probe("jax", "dense_shape", message=shape),
        probe("torch", "dense_shape", "compiled", message=shape),  # jax did not run it: left out for torch
    ]
    scores = probe_scores(probes)
    assert scores.ranked == {"torch": 1, "jax": 1} and scores.scored == {"torch": 2, "jax": 2}
    assert scores.left_out == {"torch": 1, "jax": 0} and scores.cast == {"torch": 0, "jax": 1}
    assert dict(scores) == {"torch": 3 / 6, "jax": 3 / 6}  # the shape probe alone, for both
    assert scores.with_cast == {"torch": (3 / 6 + 3 / 6) / 2, "jax": (3 / 6 + 0) / 2}
    assert scores.category(probes[1]) == "silently cast" and scores.category(probes[0]) == "error"


def test_another_versions_probes_are_not_todays_scores():
    shape = "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"
    article = probe("torch", "dense_shape", message=shape, environment="torch-2.2.1-py3.11")
    today = probe("torch", "dense_shape", message=shape)
    assert todays([article, today]) == [today]
    assert probe_scores([article]).with_cast == {}


def test_an_error_about_something_else_scored_under_the_old_rubric_scores_zero_on_read(tmp_path):
    (tmp_path / "probes" / "m1").mkdir(parents=True)
    shutil.copy(RUBRIC_1, tmp_path / "probes" / "m1" / "nan-tensorflow-compiled-tooling-on.json")
    (old,) = load_results(tmp_path, strict=True).probes
    assert old.record["score"]["total"] == 2.0  # rubric /1 gave location and brevity to "unsupported operations"
    assert probe_score(old.record) == {
        **old.record["score"],
        "total": 0.0,
        "parts": dict.fromkeys(old.record["score"]["parts"], 0.0),
    }


def test_committed_records_scores_with_and_without(committed_probes):
    scores = probe_scores(committed_probes.probes)
    assert scores.cast == {"torch": 0, "tensorflow": 2, "jax": 2}
    assert scores.scored == dict.fromkeys(scores.cast, 10) and scores.ranked == dict.fromkeys(scores.cast, 8)
    assert {fw: round(v, 3) for fw, v in scores.with_cast.items()} == {"torch": 0.618, "tensorflow": 0.49, "jax": 0.567}
    assert {fw: round(v, 3) for fw, v in scores.items()} == {"torch": 0.596, "tensorflow": 0.613, "jax": 0.708}


def test_debugging_page_shows_both_scores_the_category_and_why(committed_probes):
    page = build_pages(committed_probes)["devex/debugging.md"]
    assert "| score without silently cast probes | 60% | 61% | 71% |" in page  # bold would read as a verdict
    assert "| score with them | 62% | 49% | 57% |" in page
    assert "| probes in the first score | 8 | 8 | 8 |" in page
    assert "| probes in the second score | 10 | 10 | 10 |" in page
    assert "| silently cast | 0 | 2 | 2 |" in page
    assert "| left out: not run by every framework | 0 | 0 | 0 |" in page
    assert "Why silently cast probes are scored apart" in page and "An error about something else scores 0" in page
    assert page.count("The error does not report the planted bug, so every part scores 0.") == 1
    assert page.count("{ .fw-neutral } silently cast <small>") == 4
    assert "a warning said the float64 input was cast to float32" in page
    assert "no warning, but the step computed in float32" in page
    assert page.count("No error was raised: the bug went unreported") == 6  # the NaN probes without tooling
