"""The site scores every framework over the same probes, silently cast ones apart, and an error about something
else as a failure, records written before that rule included."""

import shutil
from pathlib import Path

import probe_records
import pytest
from one_page import page_alone

from generator.records.load import Loaded, load_results
from generator.records.probes import probe_score, probe_scores, todays
from runners.probes.catalog import ProbeSpec
from runners.probes.record import build_record

#: a probe record scored under rubric /1 (where it comes from: test_probe_outcome.RUBRIC_1)
RUBRIC_1 = Path(__file__).parent / "fixtures" / "nan-tensorflow-compiled-tooling-on.rubric1.json"


@pytest.fixture(scope="module")
def machine_probes(tmp_path_factory):
    """A results tree holding one machine's probe records, every probe of the catalogue (``probe_records``)."""
    return load_results(probe_records.write_machine(tmp_path_factory.mktemp("results")), strict=True)


def probe(framework, bug, mode="eager", *, message=None, machine="m1", environment=None):
    """A probe record built from a capture: an error with ``message``, or (no message) a silently cast dtype probe."""
    spec = ProbeSpec(framework, bug, mode, True if bug == "nan" else None)
    capture = probe_records.error(message) if message else probe_records.COMPUTED_IN_FLOAT32
    record = build_record(spec, capture, machine_id=machine, environment=environment, **probe_records.PROVENANCE)
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


def test_a_machine_s_probes_are_scored_with_and_without_the_silently_cast_ones(machine_probes):
    scores = probe_scores(machine_probes.probes)
    assert scores.cast == {"torch": 0, "tensorflow": 2, "jax": 2}
    assert scores.scored == dict.fromkeys(scores.cast, 10) and scores.ranked == dict.fromkeys(scores.cast, 8)
    # PyTorch's refusal of float64 (3 of 6) counts in the second score only, where the others' casts score 0
    assert {fw: round(v, 3) for fw, v in scores.with_cast.items()} == {
        "torch": 0.377,
        "tensorflow": 0.347,
        "jax": 0.293,
    }
    assert {fw: round(v, 3) for fw, v in scores.items()} == {"torch": 0.346, "tensorflow": 0.433, "jax": 0.367}


def test_debugging_page_shows_both_scores_the_category_and_why(machine_probes):
    page = page_alone(machine_probes, "devex/debugging.md")
    assert "| score without silently cast probes | 35% | 43% | 37% |" in page  # bold would read as a verdict
    assert "| score with them | 38% | 35% | 29% |" in page
    assert "| probes in the first score | 8 | 8 | 8 |" in page
    assert "| probes in the second score | 10 | 10 | 10 |" in page
    assert "| silently cast | 0 | 2 | 2 |" in page
    assert "| left out: not run by every framework | 0 | 0 | 0 |" in page
    assert "Why silently cast probes are scored apart" in page and "An error about something else scores 0" in page
    assert page.count("The error does not report the planted bug, so every part scores 0.") == 1
    assert page.count("{ .fw-neutral } silently cast <small>") == 4
    assert page.count("a warning said the float64 input was cast to float32") == 2  # JAX's
    assert page.count("no warning, but the step computed in float32") == 2  # Keras's
    assert page.count("No error was raised: the bug went unreported") == 6  # the NaN probes without tooling
