"""What a field of a small results file must hold: each rule takes a value and returns None where it is fine, else the
words for what it must be (a file's reader names the field and the value beside them). Shared by the harness checks
(``fwbench.harness_checks``) and the attention parity files (``fwbench.parity_files``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

Rule = Callable[[Any], str | None]


def text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "a non-empty string"


def one_of(choices: Sequence[str]) -> Rule:
    return lambda value: None if value in choices else f"one of {', '.join(choices)}"


def count(value: Any) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else "an integer ≥ 1"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def positive(value: Any) -> str | None:
    return None if _number(value) and value > 0 else "a number above 0"


def non_negative(value: Any) -> str | None:
    return None if _number(value) and value >= 0 else "a number ≥ 0"


def interval(value: Any) -> str | None:
    """Null, or [low, high] with 0 < low ≤ high."""
    if value is None:
        return None
    if isinstance(value, list) and len(value) == 2 and not any(map(positive, value)) and value[0] <= value[1]:
        return None
    return "null or [low, high] with 0 < low ≤ high"


def stamped(document: Any) -> str | None:
    """What is wrong with a file's document as a whole: a JSON object whose ``made_at`` is an ISO 8601 time."""
    if not isinstance(document, dict):
        return "expected a JSON object with made_at, command and checks"
    try:
        datetime.fromisoformat(document.get("made_at", ""))
    except (TypeError, ValueError):
        return f"field 'made_at': expected an ISO 8601 time, got {document.get('made_at')!r:.80}"
    return None
