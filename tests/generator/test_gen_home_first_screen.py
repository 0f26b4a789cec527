"""The home page answers in one screen per device class: each class's short paragraph, then at once its chart, and
no table at all: every machine and setting is on the verdicts page, which the home page links to."""

from __future__ import annotations

import gen_records
import pytest
from machine_runs import SECOND, THIRD, write_runs
from one_page import page_alone
from test_gen_tpu import tpu_runs

from fwbench.records import write_record
from generator.records.load import load_results

#: machine -> the framework that leads there: three CPUs, two of which disagree
LEADERS = {gen_records.CPU_MACHINE: "torch", SECOND: "jax", THIRD: "torch"}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("first-screen")
    write_runs(root, LEADERS)
    for record in tpu_runs():
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    return load_results(root)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_paragraph_is_followed_by_its_chart_and_no_table_is_on_the_page(results, lang):
    home = page_alone(results, "index.md", lang)
    blocks = home.split('<div class="fw-answer" markdown>')[1:]
    assert len(blocks) == 2  # the TPU, then the CPUs
    for block, chart in zip(blocks, ("charts/answer-tpu.png", "charts/answer-cpu.png"), strict=True):
        paragraph, after = block.split("</div>", 1)
        assert "\n\n" not in paragraph.strip()  # one class, one paragraph
        assert after.lstrip().startswith("![") and chart in after.lstrip().split("\n", 1)[0]
    assert "\n|" not in home and "### " not in home
    assert "(results/verdicts.md)" in home


def test_the_machines_that_disagree_are_counted_in_the_paragraph_and_named_on_the_verdicts_page(results):
    home = page_alone(results, "index.md")
    cpus = home.split('<div class="fw-answer" markdown>')[2].split("</div>", 1)[0].strip()
    assert cpus.startswith("**CPUs** · 3 machines: PyTorch is ahead of JAX in 2 of 3 comparisons")
    assert "disagree" not in cpus and "fingerprint" not in cpus
    verdicts = page_alone(results, "results/verdicts.md")
    assert verdicts.index("The machines disagree in strict FP32") < verdicts.index("a verdict holds for the machine")
