"""The probes run for real: a representative subset, each framework's verbatim messages checked.

The full matrix (30 probes, ~4 minutes on 2 CPU cores) is ``runners probes``; this subset, each framework's probes
forked from one zygote, takes about 30 s: the article's shape bug in all three frameworks eagerly, once through
torch.compile, JAX's NaN probe with its tooling on and off, and the float64 input that JAX and Keras cast.
"""

import pytest

from fwbench.probe_outcome import SILENTLY_CAST, outcome_category
from fwbench.records import read_record
from runners.probes.capture import ProbeProcesses
from runners.probes.catalog import ProbeSpec
from runners.probes.cli import run_probes

pytestmark = pytest.mark.slow


#: the subset, grouped by framework, so that each framework's zygote starts once (``ProbeProcesses``)
DENSE_SHAPE = {name: ProbeSpec(name, "dense_shape", "eager") for name in ("torch", "tensorflow", "jax")}
DTYPE = {name: ProbeSpec(name, "dtype", "eager") for name in ("torch", "tensorflow", "jax")}
COMPILED_DENSE_SHAPE = ProbeSpec("torch", "dense_shape", "compiled")
NAN_SILENT, NAN_CHECKED = ProbeSpec("jax", "nan", "eager", False), ProbeSpec("jax", "nan", "eager", True)
SPECS = sorted(
    (*DENSE_SHAPE.values(), *DTYPE.values(), COMPILED_DENSE_SHAPE, NAN_SILENT, NAN_CHECKED),
    key=lambda spec: spec.framework,
)


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> dict[ProbeSpec, dict]:
    """The subset's records, by probe, as ``runners probes`` writes them (each read back against the schema)."""
    out = tmp_path_factory.mktemp("probes")
    run_probes(SPECS, out, progress=False)
    return {spec: read_record(next(out.glob(f"*/{spec.record_id}.json")), kind="fwbench.probe/1") for spec in SPECS}


def test_one_valid_record_per_framework_each_pointing_to_the_planted_line(probed):
    for spec in DENSE_SHAPE.values():
        record = probed[spec]
        assert record["framework"]["name"] == spec.framework
        assert record["outcome"] == "error"
        assert record["points_to_line"] is True
        assert record["names_shapes"] is True
        assert record["framework"]["version"]
        assert 0 <= record["seconds_to_error"] < 60


def test_messages_are_each_frameworks_own_text(probed):
    torch_record = probed[DENSE_SHAPE["torch"]]
    assert torch_record["exception_type"] == "RuntimeError"
    assert "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)" in torch_record["message"]
    assert "is incompatible with the layer" in probed[DENSE_SHAPE["tensorflow"]]["message"]
    assert "dot_general requires contracting dimensions" in probed[DENSE_SHAPE["jax"]]["message"]


def test_colour_codes_are_kept_raw_and_stripped_in_the_clean_fields(probed):
    keras = probed[DENSE_SHAPE["tensorflow"]]
    assert "\x1b[" in keras["message"]  # Keras 3 prints the cause in bold
    assert "\x1b[" not in keras["message_clean"] and "\x1b[" not in keras["traceback_clean"]
    assert keras["names_layer"] is True  # "layer 'head'"


def test_compiled_torch_and_jax_nan_tooling(probed):
    compiled, silent, checked = (probed[spec] for spec in (COMPILED_DENSE_SHAPE, NAN_SILENT, NAN_CHECKED))
    assert compiled["outcome"] == "error"
    assert "from user code" in compiled["message"]  # dynamo quotes the user's source
    assert compiled["points_to_line"] is True
    assert silent["outcome"] == "no_error" and silent["message"] is None
    assert "loss=nan" in silent["result"] and silent["score"]["total"] == 0
    assert checked["exception_type"] == "FloatingPointError"
    assert "nan" in checked["message"].lower()


def test_float64_input_is_silently_cast_by_jax_and_keras_and_refused_by_torch(probed):
    refused, keras_cast, jax_cast = (probed[DTYPE[name]] for name in ("torch", "tensorflow", "jax"))
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
