"""A configuration's identity includes the framework's version: two versions are never seeds of one
configuration, a table that holds both shows each, and the claims check compares the article's release. The
versions profile has a page of its own (one row per release, the article's marked, the article's ordering on its
releases with the claims check's reasons, the release bisects) and stays off the other results pages; a bisect
that found the first slow release of a platform issue's framework shows on that issue."""

from __future__ import annotations

import dataclasses
import json

import gen_records
import pytest
from bisect_records import bisect_report
from one_page import page_alone, pages_undrawn

from fwbench.records import validate, write_record
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.records.machines import machines
from generator.verdicts.article.machine import machine_claims
from generator.verdicts.claims import load_article_figures
from generator.views.verdict_text import claim_text
from runners.measure.profiles import expand


def at_version(record: dict, version: str) -> dict:
    changed = gen_records.with_changes(record, record_id=f"{record['record_id']}-{version.replace('+', '-')}")
    changed["framework"]["version"] = version
    return changed


def write(root, records):
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def test_two_versions_are_two_configurations_and_two_columns(tmp_path):
    results = write(
        tmp_path,
        [
            *(gen_records.run("torch", 32, seed, seconds=10.0) for seed in range(2)),
            *(at_version(gen_records.run("torch", 32, seed, seconds=20.0), "2.2.1") for seed in range(2)),
            gen_records.run("jax", 32, seconds=12.0),
        ],
    )
    summaries = summarise(results.runs)
    torch = [s for s in summaries if s.key.framework == "torch"]
    assert sorted((s.key.version, s.n_runs, s.epoch_seconds.mean) for s in torch) == [
        ("2.14.1", 2, 10.0),
        ("2.2.1", 2, 20.0),
    ]
    (table,) = tables(summaries)
    assert [table.column_label(c) for c in table.columns] == ["PyTorch 2.2.1", "PyTorch 2.14.1", "JAX"]
    assert table.cell("torch", "compiled", 32).key.version == "2.14.1"  # the newest, unless asked
    assert table.cell("torch", "compiled", 32, version="2.2.1").epoch_seconds.mean == 20.0
    speed = page_alone(results, "results/speed.md")
    assert "| batch | PyTorch 2.2.1 | PyTorch 2.14.1 | JAX |" in speed


def test_the_claims_check_compares_the_articles_release_and_names_the_other(tmp_path):
    article = load_article_figures()
    results = write(
        tmp_path,
        [
            gen_records.run("torch", 32, seconds=10.0),
            at_version(gen_records.run("torch", 32, seconds=20.0), "2.2.1+cu121"),
        ],
    )
    (machine,) = machines(results.runs)
    rows = {c.claim: c for c in map(claim_text, machine_claims(article, machine, tables(summarise(results.runs))))}
    row = rows["PyTorch, batch 32: seconds per epoch"]
    assert row.ours.startswith("21.5 s")  # the article's 2.2.1 (its epoch: 20 s and 3 s of compile over 2), not 2.14.1
    assert "also measured, not compared here: PyTorch 2.14.1" in "; ".join(row.reason)


# --- the versions profile: the Versions page, the bisect on the platform issues page -----------------------------

#: (framework, version) -> (images/s at batch 32 and 256, companion packages): the article's releases and today's
RELEASES = {
    ("torch", "2.2.1"): ((40.0, 55.0), {"numpy": "1.26.4"}),
    ("torch", "2.14.1"): ((44.0, 60.0), {"numpy": "2.4.6"}),
    ("tensorflow", "2.15.0"): ((30.0, 45.0), {"keras": "3.3.3", "numpy": "1.26.4"}),
    ("tensorflow", "2.21.0"): ((33.0, 47.0), {"keras": "3.15.1", "numpy": "2.4.6"}),
    ("jax", "0.4.26"): ((31.0, 50.0), {"jaxlib": "0.4.26", "flax": "0.8.4", "optax": "0.2.2", "numpy": "1.26.4"}),
    ("jax", "0.10.2"): ((9.0, 20.0), {"jaxlib": "0.10.2", "flax": "0.12.8", "optax": "0.2.8", "numpy": "2.4.6"}),
}
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.8, "cpu_count": 2}


def versions_run(
    framework: str, version: str, batch_size: int, rate: float, seed: int = 0, profile="versions", mode="compiled"
) -> dict:
    """One run as ``runners matrix --profile versions`` records it (through ``ok_record``), at ``rate`` images/s,
    in an interpreter holding only ``framework``'s release and its companions."""
    (config,) = expand(
        "quick",
        frameworks=[framework],
        modes=[mode],
        batch_sizes=[batch_size],
        seeds=[seed],
        device="cpu",
        version_of={framework: version}.get,
    )
    config = dataclasses.replace(config, profile=profile)
    measured = gen_records.one_epoch(config, rate, host_self_peak_bytes=(600 + batch_size) << 20)
    packages = {name: None for name in ("torch", "tensorflow", "tensorflow-cpu", "jax", "keras", "jaxlib", "flax")}
    distribution = "tensorflow-cpu" if framework == "tensorflow" else framework
    packages |= {distribution: version, **RELEASES[(framework, version)][1]}
    software = {**gen_records.software(), "packages": packages}
    return gen_records.as_recorded(config, measured, ["runners", "matrix", "--profile", profile], software)


@pytest.fixture(scope="module")
def versions_site(tmp_path_factory):
    """Results of the versions profile (every release at batch 32 and 256, n=1; PyTorch 2.14.1 at batch 32 run
    twice), one quick-profile run, a bisect report and a malformed one, loaded and rendered in English."""
    root = tmp_path_factory.mktemp("versions")
    records = [
        versions_run(fw, version, bs, rate)
        for (fw, version), (rates, _packages) in RELEASES.items()
        for bs, rate in zip((32, 256), rates, strict=True)
    ]
    records.append(versions_run("torch", "2.14.1", 32, 46.0, seed=1))
    records.append(versions_run("torch", "2.14.1", 32, 50.0, profile="quick"))
    for record in records:
        name = f"{record['config']['profile']}-{record['record_id']}.json"
        write_record(root / "runs" / gen_records.CPU_MACHINE / name, record)
    write_record(root / "bisect" / gen_records.CPU_MACHINE / "jax-images_per_second-bs32.json", bisect_report())
    malformed = root / "bisect" / gen_records.CPU_MACHINE / "jax-images_per_second-bs64.json"
    malformed.write_text(json.dumps({"schema": "fwbench.bisect/1", "framework": "jax"}), encoding="utf-8")
    results = load_results(root)
    return results, pages_undrawn(results)


def grid_rows(page: str, title: str) -> list[str]:
    """The rows of the first table after the line starting with ``title``."""
    after = page.split(f"\n{title}", 1)[1].split("\n\n", 2)[1]
    return [line for line in after.splitlines() if line.startswith("| ")][2:]


def test_the_hand_written_bisect_report_is_valid():
    validate(bisect_report(), kind="fwbench.bisect/1")


def test_each_framework_has_a_row_per_version_with_n_spread_and_companions(versions_site):
    _results, files = versions_site
    page = files["results/versions.md"]
    torch = page.split("#### PyTorch", 1)[1].split("####", 1)[0]
    rows = grid_rows(torch, "**Batch 32**")
    assert len(rows) == 2
    article_row, newer_row = rows
    assert article_row.startswith(
        "| 2.2.1 :material-book-open-variant:{ .fw-neutral } **article** | 40.0<br><small>n=1"
    )
    assert "| numpy 1.26.4 |" in article_row
    assert newer_row.startswith("| 2.14.1 | 45.0 (sd\u00a01.4)<br><small>n=2") and "article" not in newer_row
    jax = page.split("#### JAX", 1)[1].split("####", 1)[0]
    (old, new) = grid_rows(jax, "**Batch 256**")
    assert "**article**" in old and "jaxlib 0.4.26, flax 0.8.4, optax 0.2.2, numpy 1.26.4" in old
    assert "jaxlib 0.10.2, flax 0.12.8, optax 0.2.8, numpy 2.4.6" in new
    assert "| version | images/s | compile time | host peak RSS (MiB) | companion packages |" in page
    assert "charts/versions-" in page and any(p.startswith("charts/versions-") for p in files)


def test_an_eager_release_shows_its_first_step_overhead_not_a_compile_time(tmp_path):
    runs = [
        versions_run("torch", v, 32, 40.0, mode=mode) for v in ("2.2.1", "2.14.1") for mode in ("compiled", "eager")
    ]
    results = write(tmp_path, runs)
    for language, compiled, eager in (
        ("en", "compile time", "first-step overhead"),
        ("zh", "编译时间", "第一步额外开销"),
    ):
        page = page_alone(results, "results/versions.md", language=language)
        tabs = dict(zip(("compiled", "eager"), page.split("=== ")[1:3], strict=True))
        assert f"| {compiled} |" in tabs["compiled"] and f"| {eager} |" not in tabs["compiled"]
        assert f"| {eager} |" in tabs["eager"] and f"| {compiled} |" not in tabs["eager"]  # eager compiles nothing


def test_the_articles_versions_get_no_verdict_from_single_cpu_runs_and_say_why(versions_site):
    page = versions_site[1]["results/versions.md"]
    section = page.split("#### On the article's versions, on this machine", 1)[1]
    assert "On the article's versions (PyTorch 2.2.1, TensorFlow 2.15.0, JAX 0.4.26), on this machine" in section
    assert "not comparable" in section
    # the claims page's reasons, word for word
    assert "- Test CPU @ 2.0GHz: a CPU, not a GPU" in section
    assert "- fewer than 3 clean runs: PyTorch at batch 32 (n=1)" in section
    assert "2.14.1" not in section.split("## Release bisects", 1)[0]  # only the article's releases were read


def test_the_bisect_is_on_the_versions_page_and_the_platform_issue(versions_site):
    files = versions_site[1]
    versions = files["results/versions.md"]
    assert "| **0.4.35** | 30.0 img/s<br><small>n=3</small> |" in versions
    assert "| **0.4.36** | 10.2 img/s<br><small>n=3</small> |" in versions and "**first bad**" in versions
    assert "| **0.4.36 + XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=** | 29.0 img/s" in versions
    assert "&lt;b&gt;pip&lt;/b&gt;" in versions and "<b>pip" not in versions  # escaped
    issue = files["results/platform-issues.md"]
    assert "first slow release 0.4.36 (last fast 0.4.35): 30.0 img/s → 10.2 img/s (n=3, 3)" in issue
    assert "; 0.4.36 with XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=: 29.0 img/s (n=3)" in issue
    block = issue.split("Report ready to send upstream", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    assert "jax 0.4.35: 30.0 img/s (n=3); jaxlib 0.4.35, flax 0.10.2, optax 0.2.4, numpy 2.1.3" in block
    assert "jax 0.4.36: 10.2 img/s (n=3); jaxlib 0.4.36" in block
    assert "jax 0.4.36 + XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=: 29.0 img/s (n=3)" in block
    assert "Workaround: XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=" in block
    assert "  runners envs build jax=0.4.35,0.4.36\n  runners matrix --profile quick" in block
    assert f"fwbench machine id {gen_records.CPU_MACHINE}" in block


def test_a_bisect_names_the_setting_its_own_run_records_were_made_in(versions_site, tmp_path):
    assert "What the bisect's own run records say" not in versions_site[1]["results/versions.md"]  # none loaded
    report = bisect_report()
    machine = tmp_path / "bisect" / gen_records.CPU_MACHINE
    write_record(machine / "jax-images_per_second-bs32.json", report)
    for samples in report["samples"].values():  # the runs behind it (one setting), under an older timing protocol
        run = versions_run("jax", "0.10.2", 32, 30.0, profile="quick")
        run.update(record_id=samples[0]["record_id"], protocol=1)
        write_record(machine / "runs" / f"{run['record_id']}.json", run)
    page = " ".join(page_alone(load_results(tmp_path), "results/versions.md").split())
    said = page.split("What the bisect's own run records say of their setting: ", 1)[1].split(". They are not", 1)[0]
    assert said == (
        "profile: quick; training images requested: 256; steps per epoch: 8; epochs: 1; timing protocol: 1; "
        "day measured: 2026-12-01"
    )


def test_a_malformed_bisect_report_is_skipped_with_its_reason(versions_site):
    results, files = versions_site
    (skipped,) = results.skipped
    assert skipped.name == f"bisect/{gen_records.CPU_MACHINE}/jax-images_per_second-bs64.json"
    assert "'metric' is a required property" in skipped.reason
    assert "'metric' is a required property" in files["appendix/raw-data.md"]
    assert len(results.bisects) == 1


def test_versions_records_stay_off_the_other_results_pages(versions_site):
    files = versions_site[1]
    speed = files["results/speed.md"]
    assert "quick · synthetic" in speed and "versions · synthetic" not in speed
    assert "2.2.1" not in speed and "| batch | PyTorch |" in speed
    for path in ("index.md", "results/memory.md", "results/accuracy.md", "choose.md", "appendix/claims.md"):
        assert "versions · synthetic" not in files[path], path


def test_without_versions_records_the_page_says_how_to_make_them(tmp_path):
    page = page_alone(write(tmp_path, [gen_records.run("jax", 32)]), "results/versions.md")
    assert "`runners envs build`" in page and "`runners matrix --profile versions`" in page
    assert "Release bisects" not in page


def test_known_good_sets_and_versions_that_cannot_run_are_listed():
    from generator.site.versions import version_sets_grid

    shipped = version_sets_grid()
    assert [row[1].split()[0] for row in shipped.rows] == ["2.2.1", "2.15.0", "0.4.26"]
    assert all("**article**" in row[1] for row in shipped.rows)
    data = {
        "frameworks": {
            "jax": {
                "article": "0.4.26",
                "pinned": {"0.4.26": {"packages": ["jax==0.4.26"], "note": "Flax 0.8.4"}},
                "cannot_run": {"0.4.1": "no flax.nnx for it: <NNX> came with Flax 0.8"},
            }
        }
    }
    rows = version_sets_grid(data).rows
    assert rows[0][:3] == ["JAX", "0.4.26 **article**", "runs the model"] and "`jax==0.4.26`" in rows[0][3]
    assert rows[1] == [
        "JAX",
        "0.4.1",
        "cannot run the shared model",
        "no flax.nnx for it: &lt;NNX&gt; came with Flax 0.8",
    ]


def test_the_chinese_versions_page_words_the_bisect_and_the_known_good_sets(versions_site):
    results, _files = versions_site
    page = page_alone(results, "results/versions.md", language="zh")
    bisect = page.split("## 版本二分", 1)[1] if "## 版本二分" in page else page
    # the conclusion is worded from the report's fields, not the bisect tool's English message
    assert "0.4.36 是第一个比前一版本 0.4.35 差" in bisect
    assert "is the first release worse than" not in page and "the bisect's conclusion" not in page.lower()
    # the metric's name, not its key, and the mode in Chinese
    assert "### JAX：批大小 32 时的吞吐量（张/秒），编译模式" in bisect and "compiled 模式" not in page
    # the known-good sets' notes are prose of fwbench/version_sets.json, translated like the data files
    assert "PyPI 上的构建，自带 CUDA 库" in page and "PyPI's build" not in page
    assert "Flax 0.8.4：第一个带 flax.nnx 的版本" in page
