"""The debuggability rubric is code: these pin its points."""

import pytest

from runners.probes import rubric


def score(**overrides):
    fields = dict(
        outcome="error",
        points_to_file=True,
        points_to_line=True,
        names_shapes=True,
        names_layer=True,
        has_layer=True,
        traceback_lines=20,
        reports_bug=True,
    )
    fields.update(overrides)
    return rubric.score(**fields)


def test_a_perfect_message_scores_the_maximum():
    result = score()
    assert result == {
        "total": 6.0,
        "max": 6.0,
        "rubric": rubric.RUBRIC_TEXT,
        "parts": {"location": 2.0, "names_shapes": 2.0, "brevity": 1.0, "names_layer": 1.0},
    }


def test_location_gives_partial_credit_for_the_file_alone():
    assert score(points_to_line=False)["parts"]["location"] == 1.0
    assert score(points_to_line=False, points_to_file=False)["parts"]["location"] == 0.0


@pytest.mark.parametrize(("lines", "points"), [(40, 1.0), (41, 0.5), (120, 0.5), (121, 0.0), (None, 0.0)])
def test_brevity_thresholds(lines, points):
    assert score(traceback_lines=lines)["parts"]["brevity"] == points


def test_bugs_without_a_layer_have_a_lower_maximum():
    result = score(has_layer=False, names_layer=None, names_shapes=False)
    assert "names_layer" not in result["parts"]
    assert (result["total"], result["max"]) == (3.0, 5.0)


@pytest.mark.parametrize("outcome", ["no_error", "crash", "timeout"])
def test_no_usable_message_scores_zero_of_the_same_maximum(outcome):
    result = score(outcome=outcome)
    assert (result["total"], result["max"]) == (0.0, 6.0)


def test_an_error_about_something_else_scores_zero_however_short_and_well_placed():
    result = score(reports_bug=False, names_shapes=False, names_layer=False)
    assert (result["total"], result["max"]) == (0.0, 6.0)
    assert set(result["parts"].values()) == {0.0}
    assert rubric.RUBRIC_ID in result["rubric"] and "does not report the planted bug" in result["rubric"]
