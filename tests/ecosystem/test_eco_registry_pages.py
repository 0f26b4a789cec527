"""What the site makes of a snapshot's PyPI figures (a snapshot made by `ecosystem collect --sources pypi` against the
stored answers): the "Which to choose" rows they decide, and the tables of the 4.3 and 6.3 pages."""

from __future__ import annotations

import functools
import time

import pytest
import responses
from eco_mocks import add_pypi_json, fake_uv, fixed_clock, pypi_body

from ecosystem import cli, pypi_registry
from ecosystem.collect import collect
from fwbench.records import read_record
from generator.i18n import language
from generator.records.load import Loaded
from generator.verdicts.registry_choices import registry_choices
from generator.views import registry
from generator.views.verdict_text import text

#: distinct stacks, each installed wherever fwbench is; the fake uv resolves each by its first requirement
STACKS = {
    "torch": {"cpu": ("requests",), "gpu": ("requests",)},
    "tensorflow": {"cpu": ("urllib3",), "gpu": ("urllib3", "idna")},
    "jax": {"cpu": ("idna",), "gpu": ("idna", "certifi")},
}
RESOLVED = {
    "requests": ("torch==2.5.0", "nvidia-cudnn-cu12==2.5.0", "filelock==3.16.1"),  # 1.6 GB
    "urllib3": ("tensorflow==2.5.0", "filelock==3.16.1"),  # 800 MB
    "idna": ("filelock==3.16.1",),  # 16 kB
}


def released_on(project: str, day: str):
    """Answers in which every file of ``project``'s current release (2.5.0) was uploaded on ``day``."""

    def answer(name: str) -> dict:
        data = pypi_body(name)
        if name == project:
            for entry in data["releases"]["2.5.0"]:
                entry["upload_time_iso_8601"] = f"{day}T12:00:00.000000Z"
        return data

    return answer


def collected(tmp_path, monkeypatch, answer, sources: tuple[str, ...] = ("pypi",)) -> dict:
    """The snapshot `ecosystem collect` writes from ``answer``'s PyPI answers where only pypi.org is reachable:
    of ``sources``, or of every source when it names none."""
    monkeypatch.setattr(pypi_registry, "STACKS", STACKS)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    uv = fake_uv(tmp_path, by_first=RESOLVED)
    online = functools.partial(collect, is_reachable=lambda host: host == "pypi.org", clock=fixed_clock, uv=uv)
    monkeypatch.setattr(cli, "collect", online)
    chosen = ["--sources", ",".join(sources)] if sources else []
    with responses.RequestsMock() as rsps:
        add_pypi_json(rsps, answer)
        code = cli.main(["collect", *chosen, "--out", str(tmp_path / "eco"), "--no-progress"])
    assert code == (0 if sources == ("pypi",) else 1)  # 1: a partial snapshot, the unreachable sources recorded
    return read_record(tmp_path / "eco" / "2025-06-01.json", kind="fwbench.ecosystem/1")


def rows(record: dict) -> dict[str, tuple[str, str]]:
    with language("en"):
        return {
            text(c.scenario): (text(c.favoured), text(c.evidence))
            for c in registry_choices(Loaded(path=None, record=record))
        }


@pytest.mark.parametrize(
    "jaxlib_day, python_row",
    [
        ("2024-09-01", "JAX"),  # 36 days before CPython 3.13, PyTorch and TensorFlow 10 days after: 46 days ahead
        ("2024-10-01", "about even"),  # 6 days before: 16 days ahead, within the 30-day margin
    ],
)
def test_choose_rows_favour_a_framework_only_by_a_real_lead(tmp_path, monkeypatch, jaxlib_day, python_row):
    found = rows(collected(tmp_path, monkeypatch, released_on("jaxlib", jaxlib_day)))
    favoured, evidence = found["the smallest install"]
    assert favoured == "JAX" and "JAX 0, TensorFlow 763 and PyTorch 1,526" in evidence
    favoured, evidence = found["the widest platform support"]
    assert favoured == "about even" and "PyTorch 4, TensorFlow 4 and JAX 4" in evidence  # no macOS x86-64 wheels
    favoured, evidence = found["the fastest support of a new Python"]
    assert favoured == python_row and "CPython 3.13" in evidence and "more than 30 days" in evidence


def test_a_snapshot_without_pypi_figures_decides_no_row():
    record = {"date": "2025-06-01", "sources": {"github": {}}}
    assert registry_choices(Loaded(path=None, record=record)) == []


def test_page_tables(tmp_path, monkeypatch):
    record = collected(tmp_path, monkeypatch, released_on("jaxlib", "2024-09-01"))
    with language("en"):
        cadence = {row[0]: row for row in registry.cadence_grid(record).rows}
        support = {row[0]: row for row in registry.support_grid(record).rows}
        platforms = {row[0]: row for row in registry.platform_grid(record).rows}
        stacks = {row[0]: row for row in registry.stack_grid(record).rows}
    assert cadence["`torch`"][1] == "2.5.0 (2024-10-17)"
    assert support["`jaxlib`"][-3:] == ["-36 d", "none yet", "none yet"]  # 3.13, 3.14, 3.15
    assert "`flax`" not in support  # pure Python: no support window
    assert platforms["PyTorch"][2:] == ["✓", "✓", "✓", "✗", "✓"]
    assert stacks["PyTorch"][1:3] == ["3", "1,526"]
