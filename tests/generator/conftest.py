"""Shared fixtures of the generator tests: fixture records and a site built from them once per session."""

from __future__ import annotations

from pathlib import Path

import gen_records
import pytest

from fwbench.frameworks import REGISTRY
from generator.records.codesize import module_path


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    """A fresh results tree with every record kind, a failed run and one invalid record."""
    return gen_records.write_results(tmp_path / "results")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built by `generator build` from the fixture records and a fake repository holding one framework's
    model (``--source-root``), for serving under a GitHub Pages project path (``--site-url``: its 404 page links
    there)."""
    from generator.cli import main

    root = tmp_path_factory.mktemp("site-build")
    results = gen_records.write_results(root / "results")
    sources = root / "repository"
    model = module_path(sources, REGISTRY["torch"].model_module)
    model.parent.mkdir(parents=True)
    model.write_text('"""Model."""\n\nimport torch  # the framework\n\nx = torch.ones(1)\n')
    site = root / "site"
    code = main(
        [
            "build",
            "--results",
            str(results),
            "--site-dir",
            str(site),
            "--source-root",
            str(sources),
            "--site-url",
            "https://example.org/fwbench/",
        ]
    )
    assert code == 0
    return site
