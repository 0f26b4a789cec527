"""Environment variables set for the length of a block, and put back as they were afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


def set_variable(name: str, value: str | None) -> None:
    """Set environment variable ``name`` to ``value``, or unset it for None."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextmanager
def variables(values: Mapping[str, str | None]) -> Iterator[None]:
    """Within the block, each variable of ``values`` has its value (None: unset); afterwards, the one it had."""
    before = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            set_variable(name, value)
        yield
    finally:
        for name, value in before.items():
            set_variable(name, value)
