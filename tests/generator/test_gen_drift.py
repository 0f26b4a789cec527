"""A speed cell marks a configuration whose counted runs drifted within the run beyond the verdicts' 5 % band
(``generator.views.cell_text.drift_mark``), in both languages; records without window times mark nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gen_records
import pytest
from one_page import page_alone

from fwbench.records import write_record
from generator import i18n
from generator.records.aggregate import Summary, summarise
from generator.records.load import load_results
from generator.views.cell_text import DRIFT_MARK, rate_cell, time_cell
from runners.measure import run as runner
from runners.measure.profiles import expand

QUICK_32 = next(
    c
    for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
    if c.framework == "torch" and c.batch_size == 32 and c.precision == "fp32"
)
#: 32 steps an epoch: eight timing windows of 4 steps
CONFIG = dataclasses.replace(QUICK_32, train_images=32 * 32)


def drifting(ratio: float, repeat: int) -> dict:
    """Repeat ``repeat`` of CONFIG, its second half's windows ``ratio`` times its first half's seconds per step."""
    config = dataclasses.replace(CONFIG, repeat=repeat)
    half = len(runner.window_sizes(config.epoch_train_images // config.batch_size)) // 2
    measured = gen_records.one_epoch(config, 100.0, window_step_seconds=[0.32] * half + [0.32 * ratio] * half)
    return gen_records.as_recorded(
        config, measured, ["runners", "matrix"], finished_at=f"2026-12-01T10:{repeat + 1:02d}:00.000Z"
    )


def summary_of(tmp_path: Path, records: list[dict]) -> Summary:
    """The one configuration's summary, its records read back as the site reads them."""
    for index, record in enumerate(records):
        write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"run-{index}.json", record)
    (summary,) = summarise(load_results(tmp_path).runs)
    return summary


def tooltip(cell: str) -> str:
    """The text a pointer at the cell's drift mark shows."""
    before, mark = cell.split("</span>", 1)[0].rsplit('<span title="', 1)[1].split('">')
    assert mark == DRIFT_MARK
    return before


@pytest.mark.parametrize("cell", [time_cell, rate_cell])
def test_a_run_that_drifted_beyond_the_band_marks_the_speed_cell_in_both_languages(tmp_path, cell):
    summary = summary_of(tmp_path, [drifting(1.0, 0), drifting(1.07, 1), drifting(1.02, 2)])
    assert tooltip(cell(summary)) == "drifted +7 % within the run (second half's steps against the first's)"
    with i18n.language("zh"):
        assert tooltip(cell(summary)) == "1 次运行在运行中漂移，最大 +7 %（后半段的步骤对比前半段）"


def test_several_drifted_runs_name_the_largest_drift_either_way(tmp_path):
    summary = summary_of(tmp_path, [drifting(1.07, 0), drifting(1 / 1.12, 1), drifting(1.0, 2)])
    assert tooltip(time_cell(summary)) == (
        "2 runs drifted within the run, up to -11 % (each second half's steps against its first's)"
    )


def test_drift_within_the_band_or_without_window_times_marks_nothing(tmp_path):
    within = summary_of(tmp_path / "within", [drifting(1.04, 0), drifting(1 / 1.04, 1)])
    older = drifting(1.5, 0)
    del older["timing"]["window_step_seconds"]  # as a timing-protocol-2 runner wrote it
    older["protocol"] = 2
    without = summary_of(tmp_path / "without", [older])
    for summary in (within, without):
        for language in i18n.LANGUAGES:
            with i18n.language(language):
                assert DRIFT_MARK not in time_cell(summary) + rate_cell(summary)


@pytest.mark.parametrize(
    ("language", "legend"),
    [
        ("en", "↝ beside a speed figure: one of its runs drifted, its second half's steps more than 5 % slower"),
        ("zh", "速度数字旁的 ↝：它的某次运行发生了漂移，后半段的步骤比前半段慢或快超过 5 %"),
    ],
)
def test_the_speed_pages_legend_says_what_the_mark_means(tmp_path, language, legend):
    summary_of(tmp_path, [drifting(1.0, 0), drifting(1.07, 1)])
    page = page_alone(load_results(tmp_path), "results/speed.md", language)
    assert legend in page
    assert f">{DRIFT_MARK}</span>" in page
