"""6.3's versions axis: per framework, how often an upgrade changed a probe's outcome or its error message (a probe
run on an older release beside today's same probe) and what each release bisect found."""

from __future__ import annotations

import gen_records
from bisect_records import bisect_report
from one_page import page_alone

from fwbench.records import write_record
from generator.records.load import load_results

OLD = {"torch": "2.2.1", "tensorflow": "2.15.0", "jax": "0.4.26"}
SHAPES = "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"


def probe_at(framework: str, version: str | None, message: str | None, outcome: str = "error", **changes) -> dict:
    """A probe of the shape bug as `runners probes` records it: on today's release (``version`` None), or on an
    older one in its own environment (`runners probes --versions`)."""
    record = gen_records.probe(framework, message=message, outcome=outcome, **changes)
    if version:
        record["framework"]["version"] = version
        record["environment"] = f"{framework}-{version}-py3.11"
        record["record_id"] += f"-{version}"
    return record


def results_with(tmp_path, probes: list[dict], bisect: bool):
    for record in probes:
        write_record(tmp_path / "probes" / record["machine_id"] / f"{record['record_id']}.json", record)
    if bisect:
        path = tmp_path / "bisect" / gen_records.CPU_MACHINE / "jax-images_per_second-bs32.json"
        write_record(path, bisect_report())
    return load_results(tmp_path)


def upgrade_rows(page: str) -> dict[str, list[str]]:
    """Framework -> the cells of its row in the upgrades table."""
    table = page.split("## Did an upgrade change a result or an error message?", 1)[1].split("\n\n", 3)[2]
    rows = [line.strip("| ").split(" | ") for line in table.splitlines() if line.startswith("| ")][1:]
    return {row[0]: row[1:] for row in rows}


def test_each_framework_counts_the_upgrades_that_changed_an_outcome_or_a_message(tmp_path):
    traceback = 'in user code:\n  File "{}/probe.py", line 52\nIncompatible shapes (8, 7) and (8, 10)'
    probes = [
        probe_at("torch", None, SHAPES),
        probe_at("torch", OLD["torch"], "size mismatch, m1: [8 x 128], m2: [64 x 10]"),  # reworded
        probe_at("tensorflow", None, traceback.format("/tmp/fresh")),
        probe_at("tensorflow", OLD["tensorflow"], traceback.format("/tmp/site-clone")),  # only the path differs
        probe_at("jax", None, SHAPES),
        probe_at("jax", OLD["jax"], None, outcome="no_error"),  # the older release raised nothing
        probe_at("jax", OLD["jax"], SHAPES, machine_id=gen_records.GPU_MACHINE),  # no probe of today's beside it
    ]
    page = page_alone(results_with(tmp_path, probes, bisect=True), "beyond/maintenance.md")
    rows = upgrade_rows(page)
    assert rows["PyTorch"] == ["1 probe, 1 machine: 2.2.1 → 2.14.1", "0 of 1", "1 of 1", "—"]
    assert rows["TensorFlow"] == ["1 probe, 1 machine: 2.15.0 → 2.21.0", "0 of 1", "0 of 1", "—"]
    jax = rows["JAX"]
    assert jax[:3] == ["1 probe, 1 machine: 0.4.26 → 0.10.2", "1 of 1", "—"]  # no pair where both raised
    assert jax[3].startswith("0.4.26 → 0.10.2, images per second: 0.4.36 is the first release worse than")
    assert f"({gen_records.CPU_MACHINE})" in jax[3]


def test_the_chinese_page_words_the_table(tmp_path):
    probes = [probe_at("torch", None, SHAPES), probe_at("torch", OLD["torch"], SHAPES)]
    page = page_alone(results_with(tmp_path, probes, bisect=False), "beyond/maintenance.md", language="zh")
    assert "## 升级是否改变了结果或错误信息？" in page
    assert "| PyTorch | 1 个探针、1 台机器：2.2.1 → 2.14.1 | 1 个中 0 个 | 1 个中 0 个 | — |" in page


def test_without_probes_across_releases_or_a_bisect_the_page_says_none_yet(tmp_path):
    results = results_with(tmp_path, [probe_at("torch", None, SHAPES)], bisect=False)
    maintenance = page_alone(results, "beyond/maintenance.md")
    assert "None yet: no probe has run on an older release beside today's" in maintenance
    assert "| outcome changed |" not in maintenance
