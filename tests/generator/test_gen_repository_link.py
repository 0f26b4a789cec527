"""A way to the code: the Pages workflow hands the repository's address to the build, which links it in every page's
header and opens the Reproduce page with its clone command."""

from __future__ import annotations

import html
import re
from pathlib import Path

import gen_records
import pytest
import yaml

from generator.cli import main

REPO = Path(__file__).resolve().parents[2]
ADDRESS = "https://github.com/acme/fwbench"


def test_the_pages_workflow_sets_the_address_the_build_reads():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    (build,) = [step for step in workflow["jobs"]["build"]["steps"] if "generator build" in step.get("run", "")]
    assert build["env"]["FWBENCH_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repository")
    results = gen_records.write_results(root / "results")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("FWBENCH_REPO_URL", ADDRESS)
        assert main(["build", "--results", str(results), "--site-dir", str(root / "site")]) == 0
    return root / "site"


@pytest.mark.parametrize("language", ["", "zh/"])
def test_every_page_links_the_repository_by_its_path(site, language):
    for page in ("index.html", "results/speed.html", "appendix/reproduce.html"):
        markup = (site / language / page).read_text(encoding="utf-8")
        assert f'href="{ADDRESS}"' in markup and "acme/fwbench" in markup, language + page


@pytest.mark.parametrize("language", ["", "zh/"])
def test_the_reproduce_page_starts_with_the_clone_command(site, language):
    markup = (site / language / "appendix" / "reproduce.html").read_text(encoding="utf-8")
    content = markup.split("<h2", 1)[1]  # the first section, "Get the code"
    first_code = html.unescape(re.sub(r"<[^>]+>", "", content.split("<code>", 1)[1].split("</code>", 1)[0]))
    assert first_code.startswith(f"git clone {ADDRESS} fwbench")
    assert "OWNER" not in markup
