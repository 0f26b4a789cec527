"""The home page's answer at a glance: a paragraph per device class, where two machines of a class name different
leaders it says so once and why that can happen (folded below the chart), and one chart per class and precision
sets every framework's throughput on every machine side by side, with its interval, titled with the class,
precision, batch size and n."""

from __future__ import annotations

import gen_records
import pytest
from machine_runs import SECOND, THIRD, write_runs

from fwbench.records import write_record
from generator.i18n import language
from generator.records.load import load_results
from generator.site import home
from generator.views.charts import figure_of
from generator.views.sitedata import REPO_ROOT, SiteData

#: PyTorch leads on the first machine, JAX on the second
LEADERS = {gen_records.CPU_MACHINE: "torch", SECOND: "jax"}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("answer")
    write_runs(root, LEADERS)
    return load_results(root)


def context(results, lang: str = "en") -> tuple[dict, SiteData]:
    with language(lang):
        site = SiteData(results, REPO_ROOT)
        return home.context(site), site


def test_machines_that_disagree_are_named_once_with_why_folded_below(results):
    found = context(results)[0]
    (cpus,) = found["answer"]
    assert cpus.startswith("**CPUs:** On the Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint ")
    assert "disagree" not in cpus  # the paragraph stays short: the chart is under it in the first screen
    not_measured = cpus.rsplit(". ", 1)[1]  # once for the class, last, not per table
    assert not_measured.startswith("TensorFlow") and not_measured.endswith("not measured on any of them.")
    assert "not measured there" not in cpus
    (folded,) = found["answer_details"]
    assert folded.startswith('??? note "CPUs: where the machines disagree, and why"\n\n    The machines disagree')
    assert (
        "The machines disagree in strict FP32 (TF32 off) at batch 32: JAX on the Test CPU @ 2.0GHz (CPU, 2 threads, "
        "AVX2, fingerprint 2b3c4d); PyTorch on the Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)."
    ) in folded
    assert folded.count("a verdict holds for the machine it was measured on") == 1
    assert (
        "严格 FP32（TF32 关闭）、批大小 32 时，各台机器的结论不一致" in context(results, "zh")[0]["answer_details"][0]
    )


def test_one_chart_of_every_framework_on_every_machine_with_intervals(results):
    found, site = context(results)
    ((alt, path),) = found["answer_charts"]
    chart = site.charts[path]
    assert alt == chart.title == "CPUs · strict FP32 (TF32 off) · batch 32 · n = 3"
    # the device, short, and what tells them apart: the widest vector extension and the fingerprint
    assert chart.categories == ("Test\nAVX2\n2b3c4d", "Test\nAVX2\n1a2b3c")
    by_label = {s.label: s.points for s in chart.series}
    assert list(by_label) == ["PyTorch", "JAX"]
    (torch_first, torch_second), (jax_first, jax_second) = by_label["PyTorch"], by_label["JAX"]
    assert jax_first[1] > torch_first[1] and torch_second[1] > jax_second[1]  # each machine's leader on top
    assert all(error > 0 for _x, _y, error in (torch_first, jax_first))  # three runs: a 95 % interval
    assert torch_first[0] < 0 < jax_first[0] < 1  # side by side around their machine, never on top of each other
    assert figure_of(chart).axes[0].get_title(loc="left") == chart.title


def test_one_machine_gets_no_chart(tmp_path):
    record = gen_records.run("torch", 32)
    write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    assert context(load_results(tmp_path))[0]["answer_charts"] == []


def test_three_tables_or_more_are_summed_up_and_each_folded_below(tmp_path):
    write_runs(tmp_path, {**LEADERS, THIRD: "torch"})
    found = context(load_results(tmp_path))[0]
    (cpus,) = found["answer"]
    assert cpus == (
        "**CPUs:** In compiled mode, over 3 machines and 3 comparisons (a setting at a batch size): PyTorch ahead "
        "in one sitting in 2; JAX ahead in one sitting in 1. A verdict in one sitting is what one run of the matrix "
        "measures: run it again another day (after a pause of an hour or more, or a reboot) and the sittings that "
        "agree replicate it. TensorFlow was not measured on any of them."
    )
    (each,) = found["answer_details"]
    folded = each.split("\n\n")
    assert folded[0] == '??? note "CPUs: where the machines disagree, and table by table"'
    assert folded[1].startswith("    The machines disagree in strict FP32 (TF32 off) at batch 32: ")
    assert len(folded) == 6 and all(s.startswith("    On the Test CPU @ 2.0GHz (CPU, ") for s in folded[3:])
