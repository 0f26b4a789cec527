"""The "silently cast" category is derived from a probe record's captured fields, committed records included."""

from pathlib import Path

import probe_records
import pytest

from fwbench.probe_outcome import SILENTLY_CAST, cast_evidence, outcome_category, reports_planted_bug
from fwbench.records import read_record
from runners.probes.catalog import ProbeSpec
from runners.probes.record import build_record

#: a probe record an earlier fwbench wrote (AVX2 EPYC VM, 2026-11-30; committed under results/probes/ until b182afd),
#: under rubric /1 and before ``reports_bug``: TensorFlow's compiled NaN probe, an error about something else
RUBRIC_1 = Path(__file__).parent / "fixtures" / "nan-tensorflow-compiled-tooling-on.rubric1.json"
PROVENANCE = dict(
    machine_id="cpu-test-2t",
    software={"python": "3.11", "os": "Linux", "packages": {}},
    started_at="2025-01-01T00:00:00.000Z",
    finished_at="2025-01-01T00:00:01.000Z",
)


def dtype_record(*, outcome="no_error", warnings=(), result="loss=2.4 dtype=float32 gradients_finite=True"):
    """The fields the category reads, as a dtype probe would record them."""
    return {"outcome": outcome, "expected_tokens": ["float64", "float32"], "warnings": list(warnings), "result": result}


def test_a_cast_warning_naming_both_dtypes_is_a_silent_cast():
    record = dtype_record(warnings=[probe_records.JAX_WARNING], result=None)
    assert outcome_category(record) == SILENTLY_CAST
    assert "warning" in cast_evidence(record)


@pytest.mark.parametrize(
    "result", ["loss=2.4 dtype=float32 gradients_finite=True", "loss=2.4 dtype=torch.float32 gradients_finite=True"]
)
def test_a_result_in_the_models_dtype_without_a_warning_is_a_silent_cast(result):
    record = dtype_record(result=result)
    assert outcome_category(record) == SILENTLY_CAST
    assert "computed in float32" in cast_evidence(record)


@pytest.mark.parametrize(
    "record",
    [
        dtype_record(result="loss=2.4 dtype=float64 gradients_finite=True"),  # promoted, not cast: unreported
        dtype_record(result=None, warnings=["x.py:1: UserWarning: float64 is slow\n"]),  # names one dtype only
        dtype_record(result="loss=2.4 gradients_finite=True"),  # no dtype reported
        {**dtype_record(), "expected_tokens": ["nan"]},  # not a dtype probe
    ],
)
def test_silence_without_proof_of_a_cast_stays_no_error(record):
    assert outcome_category(record) == "no_error"
    assert cast_evidence(record) is None


@pytest.mark.parametrize("outcome", ["error", "crash", "timeout"])
def test_other_outcomes_are_their_own_category(outcome):
    assert outcome_category(dtype_record(outcome=outcome, warnings=[probe_records.JAX_WARNING])) == outcome


def test_a_freshly_built_record_gets_the_category_and_still_validates():
    capture = {
        "outcome": "no_error",
        "result": None,
        "frames": [],
        "warnings": [probe_records.JAX_WARNING],
        "exit_code": 0,
        "stderr_tail": None,
        "wall_seconds": 1.0,
    }
    record = build_record(ProbeSpec("jax", "dtype", "eager"), capture, **PROVENANCE)
    assert outcome_category(record) == SILENTLY_CAST
    assert record["score"]["total"] == 0  # still no message to score; the site scores the category apart


def test_a_machine_s_records_validate_and_only_the_jax_and_keras_dtype_probes_are_silently_cast(tmp_path):
    root = probe_records.write_machine(tmp_path)
    records = [read_record(path, kind="fwbench.probe/1") for path in sorted(root.rglob("*.json"))]
    assert len(records) == 30  # every probe of the catalogue, for each of the three frameworks
    cast = sorted(r["record_id"] for r in records if outcome_category(r) == SILENTLY_CAST)
    assert cast == ["dtype-jax-compiled", "dtype-jax-eager", "dtype-tensorflow-compiled", "dtype-tensorflow-eager"]
    assert all(outcome_category(r) == r["outcome"] for r in records if r["record_id"] not in cast)


def test_an_error_about_something_else_does_not_report_the_bug_and_scores_zero():
    record = build_record(
        ProbeSpec("tensorflow", "nan", "compiled", True),
        probe_records.error(probe_records.UNSUPPORTED_OP),
        **PROVENANCE,
    )
    assert record["reports_bug"] is False and reports_planted_bug(record) is False
    assert record["score"]["total"] == 0 and record["score"]["max"] == 5


@pytest.mark.parametrize(
    ("bug", "message"),
    [
        ("nan", '!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Sqrt" !!!'),
        ("loss_shape", "0D or 1D target tensor expected, multi-target not supported"),
        ("dense_shape", "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"),
    ],
)
def test_an_error_naming_the_tokens_or_a_word_of_the_bugs_kind_reports_it(bug, message):
    spec = ProbeSpec("torch", bug, "eager", True if bug == "nan" else None)
    record = build_record(spec, probe_records.error(message), **PROVENANCE)
    assert record["reports_bug"] is True and record["score"]["total"] > 0


def test_no_error_reports_nothing():
    record = build_record(
        ProbeSpec("jax", "dtype", "eager"),
        {**dtype_record(), "frames": [], "exit_code": 0, "stderr_tail": None, "wall_seconds": 1.0},
        **PROVENANCE,
    )
    assert record["reports_bug"] is None


def test_records_written_before_the_rule_get_it_on_read():
    old = read_record(RUBRIC_1)
    assert "reports_bug" not in old and reports_planted_bug(old) is False
