"""The home page answers in one screen: the answer's short paragraphs, then at once the throughput chart, and only
below it the folded detail (where the machines disagree, each table) and the per-machine tables."""

from __future__ import annotations

import gen_records
import pytest
from machine_runs import SECOND, THIRD, write_runs
from one_page import page_alone

from generator.records.load import load_results

#: machine -> the framework that leads there: three CPUs, so the paragraph sums them up, and two of them disagree
LEADERS = {gen_records.CPU_MACHINE: "torch", SECOND: "jax", THIRD: "torch"}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("first-screen")
    write_runs(root, LEADERS)
    return load_results(root)


@pytest.mark.parametrize(("lang", "headline"), [("en", "## The headline"), ("zh", "## 结论速览")])
def test_the_chart_comes_right_after_the_answer_before_any_machines_table(results, lang, headline):
    home = page_alone(results, "index.md", lang)
    before, answer = home.split('<div class="fw-answer" markdown>', 1)
    paragraphs, after = answer.split("</div>", 1)
    assert "\n\n" not in paragraphs.strip()  # one class, one paragraph
    assert "\n|" not in before + paragraphs  # no table above the chart
    chart = after.lstrip()
    assert chart.startswith("![") and "charts/answer-cpu-fp32.png" in chart.split("\n", 1)[0]
    folded = chart.index('??? note "')
    assert "\n|" not in chart[:folded] and folded < chart.index(headline) < chart.index("\n|")


def test_the_paragraph_is_the_verdicts_counted_and_the_disagreement_is_folded(results):
    home = page_alone(results, "index.md")
    paragraph = home.split('<div class="fw-answer" markdown>', 1)[1].split("</div>", 1)[0].strip()
    assert paragraph.startswith("**CPUs:** In compiled mode, over 3 machines and 3 comparisons")
    assert paragraph.count(". ") == 2  # the count, how to replicate a verdict in one sitting, what none measured
    assert "disagree" not in paragraph and "fingerprint" not in paragraph
    fold = home[home.index('??? note "CPUs: where the machines disagree, and table by table"') :]
    assert fold.index("The machines disagree in strict FP32") < fold.index("a verdict holds for the machine")
