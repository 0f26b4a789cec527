"""The record factories of tests/generator (``gen_records``, ``probe_records``) importable from every test folder:
pytest puts only a test file's own folder on the path. And the heaviest test files first, for `make test`'s schedule."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "generator"))

#: the files that keep one worker busy for half a minute or more (``pytest --durations``, 2 workers), dearest first.
#: `make test` hands files to its two workers in collection order (``--dist loadfile --no-loadscope-reorder``; xdist's
#: own order, most tests first, hands several of these out last): with these handed out first, the many quick files
#: fill the gaps, and no worker is left alone with a heavy file at the end.
HEAVIEST_FIRST = (
    "runners/test_matrix.py",
    "runners/test_parity.py",
    "runners/test_precision_parity.py",
    "runners/test_gpt_parity.py",
    "runners/test_version_sets.py",
    "generator/test_gen_browser.py",
    "runners/test_ray_executor.py",
    "test_float32_parity.py",
    "probes/test_probe_real.py",
)
HEAVIEST_PATHS = [Path(__file__).parent / file for file in HEAVIEST_FIRST]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return HEAVIEST_PATHS.index(item.path) if item.path in HEAVIEST_PATHS else len(HEAVIEST_PATHS)

    items.sort(key=rank)  # stable: each file's tests, and the other files, keep their order
