"""What ``generator build`` hands to the mkdocs-gen-files script: the records it loaded, as one explicit object.

mkdocs-gen-files runs ``gen_pages.py`` as a script inside ``mkdocs build``, so nothing can be passed to it as an
argument: ``build_site`` sets ``current`` for as long as its builds run, and the script reads it. Under
``mkdocs serve`` no ``build_site`` runs; the script then loads the records itself (``from_environment``), from
``$FWBENCH_RESULTS`` (default ``results``, relative to the repository; several roots separated by ``os.pathsep``),
``$FWBENCH_SOURCE_ROOT`` and ``$FWBENCH_THIS_MACHINE``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.records.load import Results, load_roots

RESULTS_ENV = "FWBENCH_RESULTS"
SOURCE_ROOT_ENV = "FWBENCH_SOURCE_ROOT"
THIS_MACHINE_ENV = "FWBENCH_THIS_MACHINE"


@dataclass(frozen=True)
class Handoff:
    """The records of one build, the repository whose framework implementations the code-size page counts (None:
    this one), the machine id of the machine building the site (None: not given), and the language-neutral values
    the first language's pages computed from them, which the next one reuses."""

    results: Results
    source_root: Path | None = None
    this_machine: str | None = None
    shared: dict[str, Any] = field(default_factory=dict)


#: the handoff of the ``build_site`` running now; None outside one
current: Handoff | None = None


@contextmanager
def handing(handoff: Handoff) -> Iterator[None]:
    """Make ``handoff`` the ``current`` one while the block runs."""
    global current
    previous, current = current, handoff
    try:
        yield
    finally:
        current = previous


def from_environment(repo_root: Path) -> Handoff:
    """The handoff of a build that no ``build_site`` started (``mkdocs serve``), from the environment variables."""
    source_root = os.environ.get(SOURCE_ROOT_ENV)
    roots = [repo_root / root for root in os.environ.get(RESULTS_ENV, "results").split(os.pathsep)]
    return Handoff(load_roots(roots), Path(source_root) if source_root else None, os.environ.get(THIS_MACHINE_ENV))
