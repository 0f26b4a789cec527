"""The probes run for real: a representative subset, each framework's verbatim messages checked.

The full matrix (30 probes, ~4 minutes on 2 CPU cores) is ``runners probes``; this subset takes about a
minute: the article's shape bug in all three frameworks eagerly, once through torch.compile, JAX's
NaN probe with its tooling on and off, and the float64 input that JAX and Keras cast.
"""

import pytest

from fwbench.probe_outcome import SILENTLY_CAST, outcome_category
from fwbench.records import read_record
from runners.cli import main
from runners.probes.capture import ProbeProcesses
from runners.probes.catalog import ProbeSpec
from runners.probes.cli import run_probes

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dense_shape_eager(tmp_path_factory):
    out = tmp_path_factory.mktemp("probes")
    assert main(["probes", "--out", str(out), "--bug", "dense_shape", "--mode=eager", "--no-progress"]) == 0
    records = [read_record(path, kind="fwbench.probe/1") for path in sorted(out.glob("*/*.json"))]
    return {record["framework"]["name"]: record for record in records}


def test_one_valid_record_per_framework_each_pointing_to_the_planted_line(dense_shape_eager):
    assert set(dense_shape_eager) == {"torch", "tensorflow", "jax"}
    for record in dense_shape_eager.values():
        assert record["outcome"] == "error"
        assert record["points_to_line"] is True
        assert record["names_shapes"] is True
        assert record["framework"]["version"]
        assert 0 <= record["seconds_to_error"] < 60


def test_messages_are_each_frameworks_own_text(dense_shape_eager):
    torch_record = dense_shape_eager["torch"]
    assert torch_record["exception_type"] == "RuntimeError"
    assert "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)" in torch_record["message"]
    assert "is incompatible with the layer" in dense_shape_eager["tensorflow"]["message"]
    assert "dot_general requires contracting dimensions" in dense_shape_eager["jax"]["message"]


def test_colour_codes_are_kept_raw_and_stripped_in_the_clean_fields(dense_shape_eager):
    keras = dense_shape_eager["tensorflow"]
    assert "\x1b[" in keras["message"]  # Keras 3 prints the cause in bold
    assert "\x1b[" not in keras["message_clean"] and "\x1b[" not in keras["traceback_clean"]
    assert keras["names_layer"] is True  # "layer 'head'"


def test_compiled_torch_and_jax_nan_tooling(tmp_path):
    specs = [
        ProbeSpec("torch", "dense_shape", "compiled"),
        ProbeSpec("jax", "nan", "eager", False),
        ProbeSpec("jax", "nan", "eager", True),
    ]
    compiled, silent, checked = run_probes(specs, tmp_path, progress=False)
    assert compiled["outcome"] == "error"
    assert "from user code" in compiled["message"]  # dynamo quotes the user's source
    assert compiled["points_to_line"] is True
    assert silent["outcome"] == "no_error" and silent["message"] is None
    assert "loss=nan" in silent["result"] and silent["score"]["total"] == 0
    assert checked["exception_type"] == "FloatingPointError"
    assert "nan" in checked["message"].lower()
    assert len(list(tmp_path.glob("*/*.json"))) == 3


def test_float64_input_is_silently_cast_by_jax_and_keras_and_refused_by_torch(tmp_path):
    specs = [ProbeSpec(framework, "dtype", "eager") for framework in ("torch", "tensorflow", "jax")]
    refused, keras_cast, jax_cast = run_probes(specs, tmp_path, progress=False)
    assert outcome_category(refused) == "error"
    assert outcome_category(keras_cast) == outcome_category(jax_cast) == SILENTLY_CAST
    assert any("float64" in warning for warning in jax_cast["warnings"])  # JAX says so; Keras casts quietly


def test_a_forked_probe_reports_what_a_fresh_process_reports():
    # TensorFlow quotes the Python stack above the probe in its message: the fork's must be as deep as child.py's
    spec = ProbeSpec("tensorflow", "nan", "compiled", True)
    captures = []
    for fork in (False, True):
        with ProbeProcesses(fork=fork) as processes:
            captures.append(processes.run(spec))
    fresh, forked = captures
    assert forked["outcome"] == fresh["outcome"] == "error"
    assert forked["exception_type"] == fresh["exception_type"]
    assert len(forked["frames"]) == len(fresh["frames"])
    assert len(forked["message"].splitlines()) == len(fresh["message"].splitlines())
    assert len(forked["traceback"].splitlines()) == len(fresh["traceback"].splitlines())
    assert len(forked["stderr_tail"].splitlines()) == len(fresh["stderr_tail"].splitlines())
    assert "oneDNN custom operations are on" in forked["stderr_tail"]  # the import's output, as a fresh process has it
