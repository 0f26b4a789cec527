"""Shared fixtures of the generator tests: fixture records and a site built from them once per session."""

from __future__ import annotations

from pathlib import Path

import gen_records
import pytest


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    """A fresh results tree with every record kind, a failed run and one invalid record."""
    return gen_records.write_results(tmp_path / "results")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built by `generator build` from the fixture records and a fake frameworks tree, for serving under
    a GitHub Pages project path (``--site-url``: its 404 page links there)."""
    from generator.cli import main

    root = tmp_path_factory.mktemp("site-build")
    results = gen_records.write_results(root / "results")
    frameworks = root / "frameworks"
    frameworks.mkdir()
    (frameworks / "torch_model.py").write_text('"""Model."""\n\nimport torch  # the framework\n\nx = torch.ones(1)\n')
    site = root / "site"
    code = main(
        [
            "build",
            "--results",
            str(results),
            "--site-dir",
            str(site),
            "--frameworks-dir",
            str(frameworks),
            "--site-url",
            "https://example.org/fwbench/",
        ]
    )
    assert code == 0
    return site
