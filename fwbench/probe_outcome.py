"""A probe record's outcome category, derived from its captured fields whenever it is read.

A ``fwbench.probe/1`` record's ``outcome`` says what the probe's process did: ``error``, ``no_error``,
``crash`` or ``timeout``. The category refines one case. A probe that fed the model a wider float dtype
than its own (float64 into float32), raised nothing, and left proof that the framework cast the input
to the model's dtype is ``silently cast``: documented behaviour, not a missing or bad error message
(JAX truncates float64 with a warning unless x64 is enabled; Keras layers cast their inputs to their
compute dtype). The proof is read from the record, never inferred from the framework's name: a captured
warning that names both dtypes, or a result computed in the model's dtype. Deriving it on read gives
records written before the category existed their category without a re-run.

A raised error is the good outcome only when it is about the planted bug: ``reports_planted_bug`` decides that
from the clean message, so that an error of something else (TensorFlow's compiler refusing the NaN check's op)
scores as the failure of its probe. It too is derived on read, for records written before the rule.

Shared by the runners (which write probe records) and the generator (which scores them).
"""

from __future__ import annotations

import re
from typing import Any

SILENTLY_CAST = "silently cast"

#: dtype names as a probe's ``expected_tokens`` hold them (numpy spelling)
_DTYPE_NAME = re.compile(r"^(?:b?float|u?int|complex)\d+$")
#: the dtype a probe reports for its loss: ``dtype=float32``, ``dtype=torch.float32``
_RESULT_DTYPE = re.compile(r"\bdtype=(\S+)")


def _names(text: str, name: str, flags: int = 0) -> bool:
    # whole names only: float32 must not match inside float320 or xfloat32, nan not inside nano
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text, flags) is not None


def fed_and_model_dtypes(record: dict[str, Any]) -> tuple[str, str] | None:
    """(dtype fed to the model, the model's dtype) when the probe's expected tokens are two dtypes, else None."""
    dtypes = [token for token in record.get("expected_tokens") or [] if _DTYPE_NAME.match(token)]
    return (dtypes[0], dtypes[1]) if len(dtypes) == 2 else None


#: ``cast_evidence``'s two wordings, with the values ``cast_evidence_parts`` fills in (a reader may translate them)
CAST_WARNED = "a warning said the {fed} input was cast to {model}"
CAST_COMPUTED = "no warning, but the step computed in {model}: {reported}"


def cast_evidence_parts(record: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    """``cast_evidence`` as its wording (``CAST_WARNED`` or ``CAST_COMPUTED``) and the values it names, or None."""
    dtypes = fed_and_model_dtypes(record)
    if record.get("outcome") != "no_error" or dtypes is None:
        return None
    fed, model = dtypes
    if any(_names(warning, fed) and _names(warning, model) for warning in record.get("warnings") or []):
        return CAST_WARNED, {"fed": fed, "model": model}
    reported = _RESULT_DTYPE.search(record.get("result") or "")
    if reported and _names(reported[1], model) and not _names(reported[1], fed):
        return CAST_COMPUTED, {"model": model, "reported": reported[0]}
    return None


def cast_evidence(record: dict[str, Any]) -> str | None:
    """What in the record shows a documented cast of the fed dtype (see the module docstring), or None."""
    found = cast_evidence_parts(record)
    return found[0].format(**found[1]) if found else None


def outcome_category(record: dict[str, Any]) -> str:
    """``silently cast`` when ``cast_evidence`` finds a documented cast, else the record's ``outcome``."""
    return SILENTLY_CAST if cast_evidence(record) else record["outcome"]


#: words of each bug's kind, one of which a message about the bug names when it does not name every offending
#: token: a shape or dimension for the shape bugs (the target, for the loss), the dtype, NaN or infinity
BUG_WORDS = {
    "dense_shape": ("shape", "shapes", "dimension", "dimensions"),
    "dtype": ("dtype", "dtypes"),
    "loss_shape": ("shape", "shapes", "dimension", "dimensions", "target", "targets"),
    "nan": ("nan", "nans", "infinity"),
}


def reports_planted_bug(record: dict[str, Any]) -> bool | None:
    """Whether the probe's error reports the planted bug: its clean message names every expected token
    (``names_shapes``) or, as a whole word in any case, a word of the bug's kind (``BUG_WORDS``). None when the
    probe raised no error."""
    if record.get("outcome") != "error":
        return None
    if record.get("names_shapes"):
        return True
    message = record.get("message_clean") or ""
    words = BUG_WORDS.get(record.get("bug"), ())
    return any(_names(message, word, re.IGNORECASE) for word in words)
