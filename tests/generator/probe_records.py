"""One machine's probe records, every probe of the catalogue in today's versions (and, asked, in the article's),
built by ``runners.probes.record`` from captures shaped as the frameworks' children report them (their messages as
the frameworks word them): the JAX and Keras dtype probes cast silently (JAX with a warning, Keras computing in
float32), the NaN probes without their tooling raise nothing, and TensorFlow's compiled NaN check fails on an
operation XLA lacks, an error about something else. ``error`` and ``COMPUTED_IN_FLOAT32`` build a single probe's
capture."""

from __future__ import annotations

from pathlib import Path

import gen_records

from fwbench.records import write_record
from runners.probes.catalog import ProbeSpec, all_specs, planted_line, program_path
from runners.probes.record import build_record

MACHINE = gen_records.CPU_MACHINE
PROVENANCE = dict(
    software={"python": "3.11", "os": "Linux", "packages": dict(gen_records.VERSIONS)},
    started_at="2026-11-30T06:00:00.000Z",
    finished_at="2026-11-30T06:00:01.000Z",
)
JAX_WARNING = (
    "/x/jax/_src/numpy/array_methods.py:125: UserWarning: Explicitly requested dtype float64 requested in "
    "astype is not available, and will be truncated to dtype float32.\n  return lax_numpy.astype(self)\n"
)
#: TensorFlow's XLA compiler refusing the NaN check's op (tf.function(jit_compile=True) with check_numerics on)
UNSUPPORTED_OP = (
    "Detected unsupported operations when trying to compile graph __inference_step_151[_XlaMustCompile=true] on "
    "XLA_CPU_JIT: CheckNumericsV2 (No registered 'CheckNumericsV2' OpKernel for XLA_CPU_JIT devices)"
)
#: (framework, bug) -> the message of the error it raises (the shape bug's: DENSE_SHAPE)
MESSAGES = {
    ("torch", "loss_shape"): "0D or 1D target tensor expected, multi-target not supported",
    ("tensorflow", "loss_shape"): "Arguments `target` and `output` must have the same shape. Received: "
    "target.shape=(8, 7), output.shape=(8, 10)",
    ("jax", "loss_shape"): "mul got incompatible shapes for broadcasting",
    ("torch", "dtype"): "mat1 and mat2 must have the same dtype, but got Double and Float",
    ("torch", "nan"): "Function 'LogSoftmaxBackward0' returned nan values in its 0th output.",
    ("tensorflow", "nan"): "Tensor had NaN values : Detected Infinity or NaN in output 0 of op 'Sqrt'",
    ("jax", "nan"): "invalid value (nan) encountered in sqrt",
}
_KERAS_INPUT = "is incompatible with the layer: expected axis -1 of input shape to have value 64, but received input "
_TF_GRAPH = (
    'in user code:\n\n    File "tensorflow_probes.py", line 52, in step  *\n        loss = loss_fn(model, x, y)\n'
)
_JAX_DOT = "dot_general requires contracting dimensions to have the same shape, got (128,) and (64,)."
_TORCH_REDUCTION = "a and b must have same reduction dim, but got [8, 128] X [64, 10]."
_DYNAMO = f"RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node: {_TORCH_REDUCTION}"
_DYNAMO_2_2 = (
    f"Failed running call_module L__model___head(*(FakeTensor(..., size=(8, 128)),), **{{}}):\n{_TORCH_REDUCTION}"
)
_DYNAMO_ERROR = "torch._dynamo.exc.TorchRuntimeError"
#: (framework, mode) -> the shape bug's exception type, message and traceback length (lines) in today's releases
DENSE_SHAPE = {
    ("torch", "eager"): ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)", 29),
    ("torch", "compiled"): (_DYNAMO_ERROR, _DYNAMO, 184),
    ("tensorflow", "eager"): ("ValueError", f"Input 0 with name 'None' of layer 'head' {_KERAS_INPUT}(8, 128)", 24),
    ("tensorflow", "compiled"): ("ValueError", f"{_TF_GRAPH}Input 0 of layer 'head' {_KERAS_INPUT}(8, 128)", 37),
    ("jax", "eager"): ("TypeError", _JAX_DOT, 22),
    ("jax", "compiled"): ("TypeError", _JAX_DOT, 22),
}
#: where the article's release words or traces the shape bug otherwise (tf.keras 2.15, Dynamo in PyTorch 2.2)
ARTICLE_DENSE_SHAPE = {
    ("torch", "compiled"): (_DYNAMO_ERROR, _DYNAMO_2_2, 198),
    ("tensorflow", "eager"): ("ValueError", f'Input 0 of layer "head" {_KERAS_INPUT}(8, 128)', 24),
    ("tensorflow", "compiled"): ("ValueError", f'{_TF_GRAPH}Input 0 of layer "head" {_KERAS_INPUT}(8, 128)', 46),
}
RAN = {"frames": [], "warnings": [], "exit_code": 0, "stderr_tail": None, "wall_seconds": 1.0}
#: a dtype probe's step that ran and computed in float32: the float64 input was cast (Keras's silent cast)
COMPUTED_IN_FLOAT32 = {**RAN, "outcome": "no_error", "result": "loss=2.4 dtype=float32 gradients_finite=True"}


def error(message: str, frames: tuple[str, ...] = (), exception_type: str = "RuntimeError") -> dict:
    """A capture of a raised error with ``message``, as the child prints it, its traceback showing ``frames``."""
    traceback = "\n".join(["Traceback (most recent call last):", *frames, f"{exception_type}: {message}", ""])
    raised = {"outcome": "error", "exception_type": exception_type, "message": message, "seconds_to_error": 0.5}
    return {**RAN, **raised, "traceback": traceback}


def capture(spec: ProbeSpec) -> dict:
    """What the child reports for ``spec`` (see the module docstring)."""
    if spec.bug == "nan" and not spec.tooling:
        return {**RAN, "outcome": "no_error", "result": "loss=nan dtype=float32 gradients_finite=False"}
    if spec.bug == "nan" and spec.framework == "tensorflow" and spec.mode == "compiled":
        return error(UNSUPPORTED_OP)
    if spec.bug == "dtype" and spec.framework != "torch":
        return {**COMPUTED_IN_FLOAT32, "warnings": [JAX_WARNING] if spec.framework == "jax" else []}
    if spec.bug != "dense_shape":
        return error(MESSAGES[spec.framework, spec.bug])
    key = (spec.framework, spec.mode)
    exception_type, message, lines = (spec.version and ARTICLE_DENSE_SHAPE.get(key)) or DENSE_SHAPE[key]
    # eager mode shows where it failed: the planted line, then frames inside the framework up to the traceback's length
    planted = f'  File "{program_path(spec.framework)}", line {planted_line(spec.framework, spec.bug)}, in step'
    inside = ['  File "framework.py", line 1, in call'] * (lines - 2 - message.count("\n"))
    frames = (planted, *inside[1:]) if spec.mode == "eager" else tuple(inside)
    return error(message, frames, exception_type)


#: the article's releases, which ``runners probes --versions`` probes in environments of their own
ARTICLE = {"torch": "2.2.1", "tensorflow": "2.15.0", "jax": "0.4.26"}
#: the packages beside each article release in its environment
COMPANIONS = {
    "torch": {"numpy": "1.26.4"},
    "tensorflow": {"keras": "2.15.0", "numpy": "1.26.4"},
    "jax": {"numpy": "1.26.4"},
}


def record(spec: ProbeSpec) -> dict:
    """``spec``'s record on MACHINE; another release's probe ran in that release's environment."""
    if spec.version is None:
        return build_record(spec, capture(spec), machine_id=MACHINE, **PROVENANCE)
    child = {**capture(spec), "packages": {spec.framework: spec.version, **COMPANIONS[spec.framework]}}
    environment = f"{spec.framework}-{spec.version}-py3.11"
    return build_record(spec, child, machine_id=MACHINE, environment=environment, **PROVENANCE)


def machine_records(article: bool = False) -> list[dict]:
    """Every probe of the catalogue on MACHINE, for PyTorch, TensorFlow and JAX; ``article``: in the article's
    releases too."""
    versions = {name: [None, release] for name, release in ARTICLE.items()} if article else None
    return [record(spec) for spec in all_specs(frameworks=tuple(ARTICLE), versions=versions)]


def write_machine(root: Path, article: bool = False) -> Path:
    """A results tree under ``root`` holding MACHINE's probe records only (``machine_records``)."""
    for made in machine_records(article):
        write_record(root / "probes" / MACHINE / f"{made['record_id']}.json", made)
    return root
