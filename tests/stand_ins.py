"""A stand-in plugin folder for the tests that add a framework or a workload by adding one folder
(tests/test_fourth_framework.py, tests/test_fourth_workload.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path


def stand_in_folder(root: Path, package: str, name: str, files: dict[str, str]) -> Iterator[Path]:
    """Write ``files`` (file name → source) into ``root/name/`` and yield ``root``, the directory to put on
    ``package``'s path; afterwards forget the modules imported from it."""
    folder = root / name
    folder.mkdir()
    for file_name, source in files.items():
        (folder / file_name).write_text(source)
    yield root
    for module in [module for module in sys.modules if module.startswith(f"{package}.{name}")]:
        del sys.modules[module]
