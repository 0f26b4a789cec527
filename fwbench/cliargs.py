"""argparse types shared by the console scripts: the error names the bad value, argparse names the flag."""

from __future__ import annotations

import argparse


def _number(text: str, kind: type, minimum: float, inclusive: bool, what: str):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum or (value == minimum and not inclusive):
        bound = f"at least {minimum:g}" if inclusive else f"above {minimum:g}"
        raise argparse.ArgumentTypeError(f"must be {bound}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number ≥ 1."""
    return _number(text, int, 1, True, "a positive integer")


def non_negative_int(text: str) -> int:
    """A whole number ≥ 0."""
    return _number(text, int, 0, True, "a non-negative integer")


def positive_float(text: str) -> float:
    """A number > 0."""
    return _number(text, float, 0, False, "a positive number")
