"""The debuggability rubric: a score computed only from a probe's captured, objective fields.

Points, for a probe that raised an error (``outcome == "error"``) that reports the planted bug:

* ``location`` (0-2): 2 when the traceback, message or a warning shown with it names the planted
  file *and line*, 1 when it names only the file, 0 otherwise;
* ``names_shapes`` (0-2): 2 when the message names every offending shape/dtype/NaN token;
* ``names_layer`` (0-1): 1 when the message names the layer at fault (only for bugs with one);
* ``brevity`` (0-1): 1 for a traceback of at most 40 lines, 0.5 up to 120 lines, 0 beyond.

An error reports the planted bug (``fwbench.probe_outcome.reports_planted_bug``) when its clean message names
every offending token (``names_shapes``) or, as a whole word, a word of the bug's kind: shape/shapes/dimension/
dimensions for the dense-layer bug, those or target/targets for the loss bug, dtype/dtypes for the dtype bug,
nan/nans/infinity for the NaN bug. An error that does not (TensorFlow's XLA compiler refusing the NaN check's
``CheckNumericsV2`` op, say) is an error about something else: like a probe that raised nothing (the bug passed
silently), crashed or timed out, it scores 0 of the same maximum, since the developer got no usable message about
the bug; its location and brevity earn nothing. One kind of silence is documented behaviour rather
than a bad message: a float64 input the framework cast to the model's float32 (a cast warning was
captured, or the step computed in float32). Readers derive that category, ``silently cast``, from the
record (fwbench.probe_outcome) and report the score with and without those probes.
"""

from __future__ import annotations

RUBRIC_ID = "fwbench.probe-rubric/2"
RUBRIC_TEXT = (
    f"{RUBRIC_ID}: location 2 (planted line) / 1 (file only); names_shapes 2 (message names every offending "
    "shape, dtype or NaN); names_layer 1 (message names the layer, where a layer is at fault); brevity 1 "
    "(traceback <= 40 lines) / 0.5 (<= 120 lines); no error, crash, timeout or an error that does not report the "
    "planted bug (its message names neither every offending token nor a word of the bug's kind: shape, "
    "dimension, target, dtype, NaN, infinity) scores 0"
)
SHORT_TRACEBACK_LINES = 40
LONG_TRACEBACK_LINES = 120


def brevity_points(traceback_lines: int | None) -> float:
    """1 for a short traceback, 0.5 for a medium one, 0 for a long or missing one."""
    if traceback_lines is None:
        return 0.0
    if traceback_lines <= SHORT_TRACEBACK_LINES:
        return 1.0
    return 0.5 if traceback_lines <= LONG_TRACEBACK_LINES else 0.0


def score(
    outcome: str,
    points_to_file: bool | None,
    points_to_line: bool | None,
    names_shapes: bool | None,
    names_layer: bool | None,
    has_layer: bool,
    traceback_lines: int | None,
    reports_bug: bool | None,
) -> dict:
    """The rubric's score: ``{"total", "max", "parts", "rubric"}`` (see the module docstring); ``reports_bug``:
    whether the error reports the planted bug (``fwbench.probe_outcome.reports_planted_bug``)."""
    maximum = {"location": 2.0, "names_shapes": 2.0, "brevity": 1.0}
    if has_layer:
        maximum["names_layer"] = 1.0
    if outcome != "error" or not reports_bug:
        parts = dict.fromkeys(maximum, 0.0)
    else:
        parts = {
            "location": 2.0 if points_to_line else 1.0 if points_to_file else 0.0,
            "names_shapes": 2.0 if names_shapes else 0.0,
            "brevity": brevity_points(traceback_lines),
        }
        if has_layer:
            parts["names_layer"] = 1.0 if names_layer else 0.0
    return {"total": sum(parts.values()), "max": sum(maximum.values()), "parts": parts, "rubric": RUBRIC_TEXT}
