"""Progress bars on a terminal only: in a log (CI, a pipe, a file) every redraw of a bar is a carriage return,
and a long run turns into a flood of them. Off a terminal the commands print one plain line per unit of work
instead (a configuration, a probe) or nothing (record loading, a download)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO

from tqdm import tqdm


def on_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default: the current ``sys.stderr``) is a terminal; a closed stream is not."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_bar(iterable: Iterable | None = None, *, enabled: bool = True, **options: Any) -> tqdm:
    """A tqdm bar on ``sys.stderr``, drawn only when ``enabled`` and stderr is a terminal.

    A hidden bar still iterates and counts, and ``tqdm.write`` lines still appear, so callers need no branch.
    """
    return tqdm(iterable, file=sys.stderr, disable=not (enabled and on_terminal(sys.stderr)), **options)
