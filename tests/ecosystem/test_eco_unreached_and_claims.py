"""What the site makes of a snapshot made by `ecosystem collect` where only pypi.org answers (against the stored
answers): 6.1, 6.2 and 6.3 say which figures need a network the snapshot could not reach, from its recorded
failures; the article's ecosystem statements are judged from the PyPI figures where they bear on them."""

from __future__ import annotations

import pytest
from test_eco_registry_pages import collected, released_on

from fwbench.records import write_record
from generator.build.render import build_pages
from generator.i18n import language
from generator.records.load import load_results
from generator.verdicts.article.registry import registry_claims
from generator.verdicts.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE
from generator.views.verdict_text import claim_text

ARTICLE = ("torch", "tensorflow", "jax")


def collected_where_only_pypi_answers(tmp_path, monkeypatch, sources=(), torch_day: str = "2024-10-17") -> dict:
    """The snapshot of ``sources`` (every source when none), torch's current release uploaded on ``torch_day``."""
    return collected(tmp_path, monkeypatch, released_on("torch", torch_day), sources)


def pages(tmp_path, record: dict, lang: str = "en") -> dict:
    write_record(tmp_path / "results" / "ecosystem" / f"{record['date']}.json", record)
    return build_pages(load_results(tmp_path / "results"), language=lang)


def table_rows(page: str) -> list[str]:
    """The rows of the unreachable sources' table (its header left out)."""
    lines = page.split("`ecosystem collect`", 1)[1].split("\n\n", 2)[1].splitlines()
    return [line for line in lines if line.startswith("| ")][1:]


@pytest.fixture
def unreached_site(tmp_path, monkeypatch):
    return collected_where_only_pypi_answers(tmp_path, monkeypatch), tmp_path


def test_each_page_names_the_hosts_its_snapshot_recorded_as_unreachable(unreached_site):
    record, tmp_path = unreached_site
    site = pages(tmp_path, record)
    documentation = table_rows(site["beyond/documentation.md"])
    assert [row.split(" | ")[:2] for row in documentation] == [
        ["| Stack Overflow", "`api.stackexchange.com`"],
        ["| GitHub", "`api.github.com`"],
        ["| pypistats.org", "`pypistats.org`"],
    ]
    assert "GitHub stargazers" in documentation[1] and "[6.3 Maintenance](maintenance.md)" in documentation[1]
    assert "PyPI downloads in the last month" in documentation[2] and "(community.md)" in documentation[2]
    community = table_rows(site["beyond/community.md"])
    assert [row.split(" | ")[0] for row in community] == ["| Stack Overflow", "| pypistats.org"]
    maintenance = table_rows(site["beyond/maintenance.md"].split("## fwbench's figures", 1)[1])
    assert [row.split(" | ")[0] for row in maintenance] == ["| GitHub"]


def test_the_hosts_follow_the_failures_the_snapshot_recorded(unreached_site):
    record, tmp_path = unreached_site
    record["failures"] = [f for f in record["failures"] if f["source"] != "github"]
    documentation = table_rows(pages(tmp_path, record)["beyond/documentation.md"])
    assert [row.split(" | ")[0] for row in documentation] == ["| Stack Overflow", "| pypistats.org"]


def test_the_chinese_pages_say_it_too(unreached_site):
    record, tmp_path = unreached_site
    site = pages(tmp_path, record, "zh")
    assert "## 第 6 节在这里测不到的内容" in site["beyond/documentation.md"]
    assert "这里列出的数字需要本项目连不上的网络" in site["beyond/community.md"]
    assert "`api.github.com`" in site["beyond/maintenance.md"]


def test_a_snapshot_that_reached_every_source_it_asked_names_none(tmp_path, monkeypatch):
    site = pages(tmp_path, collected_where_only_pypi_answers(tmp_path, monkeypatch, sources=("pypi",)))
    assert "could not measure from here" not in site["beyond/documentation.md"]
    assert "need a network" not in site["beyond/community.md"] + site["beyond/maintenance.md"]


def worded(record: dict | None) -> dict[str, object]:
    with language("en"):
        return {c.claim: c for c in map(claim_text, registry_claims(record, ARTICLE))}


@pytest.mark.parametrize(
    "torch_day, verdict, why",
    [
        ("2024-10-17", CONFIRMED, "it still releases: a final release within a year of the snapshot of 2025-06-01"),
        ("2024-05-01", CONTRADICTED, "no final release within a year of the snapshot of 2025-06-01"),
    ],
)
def test_still_maintained_is_judged_by_the_latest_release(tmp_path, monkeypatch, torch_day, verdict, why):
    rows = worded(collected_where_only_pypi_answers(tmp_path, monkeypatch, sources=("pypi",), torch_day=torch_day))
    torch = rows["PyTorch: still maintained"]
    assert torch.verdict == verdict and torch.reason[0] == why
    assert torch.ours.startswith(f"latest release 2.5.0 on {torch_day}")
    assert rows["TensorFlow: still maintained"].verdict == CONFIRMED


def test_the_statements_no_figure_bears_on_say_why(tmp_path, monkeypatch):
    rows = worded(collected_where_only_pypi_answers(tmp_path, monkeypatch, sources=("pypi",)))
    edge = rows["TensorFlow: deployment to mobile and edge devices"]
    assert edge.verdict == NOT_COMPARABLE and edge.ours == "Linux aarch64: PyTorch ✓, TensorFlow ✓, JAX ✓"
    old_code = rows["old code on today's releases"]
    assert (
        old_code.verdict == NOT_COMPARABLE and "fwbench runs no code written for those releases" in old_code.reason[0]
    )
    unsnapshotted = worded(None)
    assert {c.verdict for c in unsnapshotted.values()} == {NOT_COMPARABLE}
    assert unsnapshotted["JAX: still maintained"].reason == ("no ecosystem snapshot",)
