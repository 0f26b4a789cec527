"""A chart shared alone still says where and how it was measured: its title names the machine, the setting (profile,
data, precision) and the successful runs behind its points, in the reader's language."""

from __future__ import annotations

import gen_records
import pytest

from fwbench.records import write_record
from generator.i18n import language
from generator.records.load import load_results
from generator.site import accuracy, memory, speed
from generator.views.charts import figure_of
from generator.views.sitedata import REPO_ROOT, SiteData


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("titles")
    runs = root / "runs" / gen_records.CPU_MACHINE
    for framework in ("torch", "jax"):
        for seed in range(3 if framework == "torch" else 2):  # n = 3 and 2: the title gives the range
            record = gen_records.run(framework, 32, seed, seconds=10.0 + seed, epochs=3)
            write_record(runs / f"{record['record_id']}.json", record)
    return load_results(root)


def charts_of(results, lang: str) -> dict[str, object]:
    with language(lang):
        site = SiteData(results, REPO_ROOT)
        for page in (speed, memory, accuracy):
            page.context(site)
        return site.charts


def test_every_table_chart_is_titled_with_machine_setting_and_n(results):
    charts = charts_of(results, "en")
    assert {path.split("/")[1].split("-")[0] for path in charts} >= {"speed", "memory", "test_accuracy", "train_loss"}
    for path, chart in charts.items():
        machine, setting = chart.title.split("\n")
        assert machine == "Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)", path
        assert setting == "quick · synthetic · strict FP32 (TF32 off) · n = 2–3", path


def test_the_title_is_drawn_and_translated(results):
    (chart,) = [c for p, c in charts_of(results, "zh").items() if p.startswith("charts/speed-")]
    assert "合成数据" in chart.title and "n = 2–3" in chart.title
    assert figure_of(chart).axes[0].get_title(loc="left") == chart.title


def test_a_chart_without_a_title_draws_none():
    from generator.views.charts import Chart

    assert figure_of(Chart("batch", "x", "y", ())).axes[0].get_title(loc="left") == ""
