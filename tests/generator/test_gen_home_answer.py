"""The home page's answer at a glance: a paragraph per device class that names the leader and the runner-up as
measured, the smallest and largest lead with their intervals and where each was measured, and counts the other
comparisons; one chart per class sets every framework's throughput on every machine side by side, with its interval;
where two machines of a class name different leaders, the verdicts page says so once and why."""

from __future__ import annotations

import gen_records
import pytest
from machine_runs import SECOND, THIRD, write_runs
from one_page import page_alone

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


def test_two_leaders_in_a_class_name_the_pair_most_comparisons_decide_and_count_the_other(results):
    (cpus,) = context(results)[0]["answers"]
    paragraph = cpus.paragraph
    assert paragraph.startswith("**CPUs** · 2 machines: JAX is ahead of PyTorch in 1 of 2 comparisons, by 1.40× (")
    assert "×) at batch 32 on the Test AVX2 2b3c4d; in one sitting." in paragraph
    assert "The other one: PyTorch ahead of JAX in 1." in paragraph
    assert paragraph.endswith("TensorFlow has no run there yet.")  # once for the class, last
    verdicts = page_alone(results, "results/verdicts.md")
    assert '!!! note "CPUs: where the machines disagree"' in verdicts
    assert (
        "The machines disagree in strict FP32 (TF32 off) at batch 32: JAX on the Test CPU @ 2.0GHz (CPU, 2 threads, "
        "AVX2, fingerprint 2b3c4d); PyTorch on the Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)."
    ) in verdicts
    assert verdicts.count("a verdict holds for the machine it was measured on") == 1
    chinese = page_alone(results, "results/verdicts.md", "zh")
    assert "严格 FP32（TF32 关闭）、批大小 32 时，各台机器的结论不一致" in chinese


def test_one_chart_of_every_framework_on_every_machine_with_intervals(results):
    found, site = context(results)
    (cpus,) = found["answers"]
    chart = site.charts[cpus.chart]
    assert cpus.title == chart.title == "CPUs · strict FP32 (TF32 off) · batch 32 · n = 3"
    # the device, short, and what tells them apart: the widest vector extension and the fingerprint
    assert chart.x == "bars" and chart.categories == ("Test\nAVX2\n2b3c4d", "Test\nAVX2\n1a2b3c")
    by_label = {s.label: s.points for s in chart.series}
    assert list(by_label) == ["PyTorch", "JAX"]
    (torch_first, torch_second), (jax_first, jax_second) = by_label["PyTorch"], by_label["JAX"]
    assert jax_first[1] > torch_first[1] and torch_second[1] > jax_second[1]  # each machine's leader ahead
    assert all(error > 0 for _x, _y, error in (torch_first, jax_first))  # three runs: a 95 % interval
    assert figure_of(chart).axes[0].get_title(loc="left") == chart.title


def test_one_machine_is_drawn_against_batch_size_in_each_precision_with_its_mfu(tmp_path):
    for framework, seconds in (("torch", 10.0), ("jax", 12.0)):
        for batch in (32, 64):
            record = gen_records.run(framework, batch, seconds=seconds)
            record["mfu"] = {"value": 0.25, "peak_flops_per_second": 1e12, "basis": "3 × forward FLOPs"}
            write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    found, site = context(load_results(tmp_path))
    (cpus,) = found["answers"]
    chart = site.charts[cpus.chart]
    assert chart.x == "batch" and chart.batch_sizes == (32, 64)
    assert [k.label for k in chart.keys] == ["PyTorch", "JAX", "strict FP32 (TF32 off)"]
    notes = [note for s in chart.series for note in s.notes]
    assert [words for _index, words, _right in notes] == ["MFU 25 %", "MFU 25 %"]  # one per line, at its fastest
    assert {right for _index, _words, right in notes} == {False, True}  # two frameworks' notes on either side


def test_a_class_with_only_older_records_says_why_it_has_no_verdict_and_no_chart(tmp_path):
    for framework in ("torch", "jax"):
        record = gen_records.run(framework, 32, older=True)
        write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    (cpus,) = context(load_results(tmp_path))[0]["answers"]
    assert cpus.chart is None
    assert "No verdict between PyTorch and JAX: their runs are older records, shown but never judged." in cpus.paragraph


def test_three_machines_sum_their_comparisons_up(tmp_path):
    write_runs(tmp_path, {**LEADERS, THIRD: "torch"})
    (cpus,) = context(load_results(tmp_path))[0]["answers"]
    paragraph = cpus.paragraph
    assert paragraph.startswith("**CPUs** · 3 machines: PyTorch is ahead of JAX in 2 of 3 comparisons, by 1.40× (")
    assert "; none replicated yet (run the matrix again another day). The other one: JAX ahead of PyTorch in 1." in (
        paragraph
    )
