"""Bar charts where the figures are many cells: the machines page sets every framework's images/s on every machine
side by side at one setting (titled with it and n), and the debugging page each probe's score per bug and
framework; both in both languages."""

from __future__ import annotations

import gen_records
import pytest
from machine_runs import SECOND, write_runs
from one_page import page_alone

from fwbench.records import write_record
from generator.i18n import language
from generator.records.load import load_results
from generator.site import debugging, machines
from generator.views.charts import Chart, Series, figure_of
from generator.views.sitedata import REPO_ROOT, SiteData

#: the debugging probes: framework -> (bug, message); None raises nothing, which scores 0
PROBES = {"torch": ("dense_shape", gen_records.HOSTILE_MESSAGE), "jax": ("dense_shape", None)}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("bars")
    write_runs(root, {gen_records.CPU_MACHINE: "torch", SECOND: "jax"})
    for framework, (bug, message) in PROBES.items():
        outcome = "error" if message else "no_error"
        record = gen_records.probe(framework, bug, message=message, outcome=outcome)
        write_record(root / "probes" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def charts_of(results, page, lang: str = "en") -> tuple[dict, dict[str, Chart]]:
    with language(lang):
        site = SiteData(results, REPO_ROOT)
        return page.context(site), site.charts


def test_the_machines_page_charts_each_framework_on_each_machine_at_one_setting(results):
    found, charts = charts_of(results, machines)
    alt, path = found["chart"]
    chart = charts[path]
    assert alt == chart.title == "compiled · strict FP32 (TF32 off) · batch 32 · synthetic · quick · n = 3"
    assert chart.x == "bars" and sorted(chart.categories) == ["Test\nAVX2\n1a2b3c", "Test\nAVX2\n2b3c4d"]
    rates = {
        (s.label, chart.categories[place].split("\n")[-1]): rate for s in chart.series for place, rate, _e in s.points
    }
    assert len(rates) == 4
    assert rates["PyTorch", "1a2b3c"] > rates["JAX", "1a2b3c"]  # 10 s against 14 s an epoch
    assert rates["JAX", "2b3c4d"] > rates["PyTorch", "2b3c4d"]
    assert all(error > 0 for s in chart.series for _place, _rate, error in s.points)  # three runs: an interval
    page = page_alone(results, "results/machines.md")
    assert f"![{alt}](../{path})" in page and page.index(path) < page.index("## PyTorch · compiled")
    chinese = page_alone(results, "results/machines.md", language="zh")
    assert (
        "![编译 · 严格 FP32（TF32 关闭）· 批大小 32 · 合成数据 · quick · n = 3](../charts/machines-throughput.png)"
        in (chinese)
    )


def test_one_machine_gets_no_machines_chart(tmp_path):
    for framework in ("torch", "jax"):
        record = gen_records.run(framework, 32)
        write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    assert charts_of(load_results(tmp_path), machines)[0]["chart"] is None


def test_the_debugging_page_charts_each_probes_score_per_bug_and_framework(results):
    found, charts = charts_of(results, debugging)
    (machine,) = found["machines"]
    ((mode, (alt, path)),) = machine.charts.items()
    chart = charts[path]
    assert mode == "compiled" and alt == chart.title
    assert chart.title == "Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c) · compiled · n = 1"
    assert chart.categories == ("a dense layer fed the wrong number of features",)
    scores = {s.label: s.points for s in chart.series}
    assert scores == {"PyTorch": ((0, 60.0, 0.0),), "JAX": ((0, 0.0, 0.0),)}  # 3 of 5, and nothing raised
    page = page_alone(results, "devex/debugging.md")
    assert page.index("| bug |") < page.index(f"![{alt}](../{path})") < page.index("??? info")
    chinese = page_alone(results, "devex/debugging.md", language="zh")
    assert "· 编译 · n = 1](../charts/debugging-" in chinese


def test_a_bar_of_zero_is_written_where_it_draws_nothing():
    bars = Chart(
        "bars",
        "",
        "score",
        (Series("PyTorch", "#D55E00", "o", "none", ((0, 60.0, 0.0), (1, 0.0, 0.0))),),
        categories=("first", "second"),
    )
    axes = figure_of(bars).axes[0]
    assert [round(p.get_width()) for p in axes.patches] == [60, 0]
    assert [t.get_text() for t in axes.texts] == [" 0"]
    assert [t.get_text() for t in axes.get_yticklabels()] == ["first", "second"]
