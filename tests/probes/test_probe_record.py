"""Records built from captures are valid fwbench.probe/1 and keep framework text raw."""

import pytest

from fwbench.records import validate
from runners.probes.catalog import ProbeSpec, planted_line
from runners.probes.record import build_record

PROVENANCE = dict(
    machine_id="cpu-test-2t",
    software={"python": "3.11", "os": "Linux", "packages": {"torch": "9.9"}},
    started_at="2025-01-01T00:00:00.000Z",
    finished_at="2025-01-01T00:00:01.000Z",
)


def test_crash_record_is_valid_scores_zero_and_takes_the_installed_version():
    capture = {"outcome": "crash", "exit_code": -6, "stderr_tail": "Fatal Python error: Aborted", "wall_seconds": 1.0}
    record = build_record(ProbeSpec("torch", "dense_shape", "compiled"), capture, **PROVENANCE)
    validate(record, kind="fwbench.probe/1")
    assert record["framework"] == {"name": "torch", "version": "9.9", "mode": "compiled"}
    assert record["message"] is None and record["points_to_line"] is None
    assert record["score"]["total"] == 0
    assert record["planted"] == {
        "file": "runners/frameworks/torch/probes.py",
        "line": planted_line("torch", "dense_shape"),
    }


def test_error_record_stores_raw_text_and_measures_the_clean_text():
    line = planted_line("tensorflow", "dense_shape")
    message = "\x1b[1mlayer 'head' <expected> 64 & got (8, 128)\x1b[0m"
    frame = f'File "/x/runners/frameworks/tensorflow/probes.py", line {line}, in call'
    trace = f"Traceback:\n  {frame}\n{message}\n"
    capture = {
        "outcome": "error",
        "exception_type": "ValueError",
        "message": message,
        "traceback": trace,
        "frames": [["/x/runners/probes/child.py", 63]],
        "seconds_to_error": 0.1,
        "warnings": [],
        "framework_version": "2.0",
        "exit_code": 0,
        "stderr_tail": None,
        "wall_seconds": 2.0,
    }
    record = build_record(ProbeSpec("tensorflow", "dense_shape", "eager"), capture, **PROVENANCE)
    validate(record, kind="fwbench.probe/1")
    assert record["message"] == message
    assert record["message_clean"] == "layer 'head' <expected> 64 & got (8, 128)"
    assert (record["points_to_file"], record["points_to_line"]) == (True, True)
    assert record["names_shapes"] and record["names_layer"]
    assert record["traceback_frames"] == 1
    assert record["score"]["total"] == record["score"]["max"] == 6


@pytest.mark.parametrize("bug", ["loss_shape", "nan"])
def test_bugs_without_a_layer_record_no_layer(bug):
    capture = {
        "outcome": "no_error",
        "result": "loss=nan",
        "frames": [],
        "exit_code": 0,
        "stderr_tail": None,
        "wall_seconds": 1.0,
        "warnings": [],
    }
    spec = ProbeSpec("jax", bug, "eager", True if bug == "nan" else None)
    record = build_record(spec, capture, **PROVENANCE)
    validate(record, kind="fwbench.probe/1")
    assert (record["layer_name"], record["names_layer"], record["result"]) == (None, None, "loss=nan")
