"""What the matrix planned and has not run yet: records carry the plan as ``runners matrix`` writes it
(``runners.matrix.order.matrix_plan`` on the quick profile's configurations), and a machine's tables name the planned
configurations with no record there (its plans united, less what a later plan superseded), in both languages; a failed
run counts as run, and records without a plan (older ones, ``runners run`` alone) name nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gen_records
from one_page import page_alone, pages_undrawn

from fwbench.records import write_record
from generator import i18n
from generator.build.render import environment, render_page
from generator.records.load import load_results
from generator.records.plans import not_run_yet
from generator.site import speed
from generator.views.sitedata import REPO_ROOT, SiteData
from runners.matrix.order import interleaved_order, matrix_plan
from runners.measure.profiles import RunConfig, expand
from runners.measure.record import failed_record

#: the quick profile on the test CPU: three frameworks at batch 32, 64, 128 and 256 in fp32, and bf16 at batch 32
QUICK = interleaved_order(expand("quick", device="cpu", version_of=gen_records.VERSIONS.get))
OTHER_MACHINE = "cpu-other-cpu-2t-9f8e7d"
NOT_RUN_EN = "Not run in this sitting: "
NOT_RUN_ZH = "本测量时段未运行："


def ok(config: RunConfig, plan: list[RunConfig] = QUICK, finished_at: str = "2026-12-01T10:01:00.000Z") -> dict:
    """The record ``runners matrix`` writes for a successful run of ``config`` finished at ``finished_at``, carrying
    the matrix's plan."""
    measured = gen_records.one_epoch(config, 30.0)
    record = gen_records.as_recorded(config, measured, ["runners", "matrix"], finished_at=finished_at)
    return {**record, "matrix": matrix_plan(plan)}


def oom(config: RunConfig) -> dict:
    """The record ``runners matrix`` writes for a run of ``config`` that ran out of memory, carrying its plan; the
    message holds HTML."""
    record = failed_record(
        config, gen_records.hardware(), "2026-12-01T10:00:00.000Z", "oom", "MemoryError", "<b>out of memory</b>"
    )
    return {**record, "matrix": matrix_plan(QUICK)}


def at(*batch_sizes: int, precision: str = "fp32", frameworks=("torch", "tensorflow", "jax")) -> list[RunConfig]:
    """The quick configurations at ``batch_sizes`` and ``precision`` of ``frameworks``."""
    return [c for c in QUICK if c.batch_size in batch_sizes and c.precision == precision and c.framework in frameworks]


def results(tmp_path: Path, records: list[dict]):
    """``records`` written where the matrix writes them, loaded as the build loads them."""
    for record in records:
        machine = record["hardware"]["machine_id"]
        write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    return load_results(tmp_path)


def speed_page(found, language: str = i18n.SOURCE) -> str:
    """The speed page's Markdown in ``language``."""
    with i18n.language(language):
        return render_page(environment(), speed, SiteData(found, REPO_ROOT))


def sentence(page: str, start: str) -> list[str]:
    """Every line of ``page`` that starts with ``start``."""
    return [line for line in page.splitlines() if line.startswith(start)]


def test_the_ends_alone_ran_so_the_middle_sizes_and_the_extra_precision_are_named_in_both_languages(tmp_path):
    found = results(tmp_path, [ok(c) for c in at(32, 256)])
    assert {p.config_id for p in not_run_yet(found.runs)} == {
        c.config_id for c in at(64, 128) + at(32, precision="bf16")
    }
    (english,) = sentence(speed_page(found), NOT_RUN_EN)
    assert english == (
        "Not run in this sitting: batch 64 and 128; batch 32 bf16 (the matrix planned them but stopped before "
        "reaching them, when its time budget ran out or it was interrupted; run `make site` again to go on where it "
        "stopped)."
    )
    (chinese,) = sentence(speed_page(found, "zh"), NOT_RUN_ZH)
    assert chinese.startswith("本测量时段未运行：批大小 64 和 128；批大小 32 的 bf16（") and "`make site`" in chinese


def test_the_verdicts_page_names_them_too(tmp_path):
    found = results(tmp_path, [ok(c) for c in at(32, 256)])
    (line,) = sentence(page_alone(found, "results/verdicts.md"), NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 64 and 128; batch 32 bf16 (")


def test_when_everything_planned_ran_nothing_is_said(tmp_path):
    found = results(tmp_path, [ok(c) for c in QUICK])
    assert not_run_yet(found.runs) == []
    page = speed_page(found)
    assert "bf16" in page and "| 128 |" in page  # both tables are there, every batch size in them
    assert NOT_RUN_EN not in page and NOT_RUN_ZH not in speed_page(found, "zh")


def test_a_repeat_counts_as_run_when_its_first_runs_file_is_unreadable(tmp_path):
    first, *others = QUICK
    results(tmp_path, [ok(dataclasses.replace(first, repeat=1)), *(ok(c) for c in others)])
    (tmp_path / "runs" / gen_records.CPU_MACHINE / f"{first.config_id}.json").write_text("{not json")
    found = load_results(tmp_path)
    assert found.skipped and not_run_yet(found.runs) == []


def test_records_without_a_plan_name_nothing_and_the_pages_still_build(tmp_path):
    planless = [gen_records.as_recorded(c, gen_records.one_epoch(c, 30.0), ["runners", "run"]) for c in at(32, 256)]
    found = results(tmp_path, [*planless, gen_records.run("torch", 64, older=True)])
    assert not_run_yet(found.runs) == []
    pages = pages_undrawn(found)
    assert all(NOT_RUN_EN not in page for page in pages.values() if isinstance(page, str))
    assert "| 256 |" in pages["results/speed.md"]


def test_a_failed_run_counts_as_run(tmp_path):
    found = results(tmp_path, [*(ok(c) for c in at(32, 256)), *(oom(c) for c in at(64))])
    (line,) = sentence(speed_page(found), NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 128; batch 32 bf16 (")


def test_a_size_that_ran_for_some_frameworks_names_the_others_in_batch_order(tmp_path):
    ran = at(32, 256) + at(32, precision="bf16") + at(64, frameworks=("torch",))
    found = results(tmp_path, [ok(c) for c in ran])
    (line,) = sentence(speed_page(found), NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 64 for TensorFlow and JAX; batch 128 (")
    (chinese,) = sentence(speed_page(found, "zh"), NOT_RUN_ZH)
    assert chinese.startswith("本测量时段未运行：TensorFlow 和 JAX 的批大小 64；批大小 128（")


def test_a_size_whose_row_holds_an_earlier_sittings_runs_says_so(tmp_path):
    """The sitting's plan names batch 64 anew (here: another seed), and its row holds every framework's runs of the
    configuration an earlier sitting planned: the sentence says the row is theirs, not that batch 64 never ran."""
    earlier = [dataclasses.replace(c, seed=1) for c in at(64)]
    then = [ok(c, plan=earlier, finished_at="2026-11-30T10:01:00.000Z") for c in earlier]
    found = results(tmp_path, [*then, *(ok(c) for c in at(32, 128, 256) + at(32, precision="bf16"))])
    (line,) = sentence(speed_page(found), NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 64 (its row holds earlier sittings' runs) (")
    assert "| 64 |" in speed_page(found)


def test_a_column_is_named_with_its_mode_where_the_table_holds_two(tmp_path):
    modes = ["compiled", "eager"]
    both = expand(
        "quick", gen_records.VERSIONS.get, frameworks=["torch"], modes=modes, batch_sizes=[32, 64], device="cpu"
    )
    ran = [c for c in both if c.batch_size == 32 or c.mode == "compiled"]  # all but eager at batch 64
    (line,) = sentence(speed_page(results(tmp_path, [ok(c, plan=both) for c in ran])), NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 64 for PyTorch eager (")


def test_an_extra_precision_that_ran_for_some_frameworks_is_named_in_its_own_table_alone(tmp_path):
    ran = at(32, 64, 128, 256) + at(32, precision="bf16", frameworks=("torch",))
    page = speed_page(results(tmp_path, [ok(c) for c in ran]))
    (line,) = sentence(page, NOT_RUN_EN)
    assert line.startswith("Not run in this sitting: batch 32 for TensorFlow and JAX (")
    assert page.index(line) > page.index("bfloat16")  # under the bf16 table's heading, after the fp32 table


def test_the_plans_of_a_machines_records_are_united_and_other_machines_runs_do_not_count(tmp_path):
    torch = at(32, 64, 128, 256, frameworks=("torch",))
    first = ok(torch[0], plan=torch[:2], finished_at="2026-11-30T10:01:00.000Z")  # planned batch 32 and 64
    second = ok(torch[3], plan=[torch[0], torch[2], torch[3]])  # a later one: batch 32, 128 and 256, not 64
    elsewhere = {**ok(torch[1]), "hardware": gen_records.hardware(OTHER_MACHINE)}  # batch 64, on another machine
    found = results(tmp_path, [first, second, elsewhere])
    unrun = not_run_yet(found.runs)
    here = {p.config_id for p in unrun if p.machine_id == gen_records.CPU_MACHINE}
    assert here == {torch[1].config_id, torch[2].config_id}
    assert {p.config_id for p in unrun if p.machine_id == OTHER_MACHINE} == {c.config_id for c in QUICK} - {
        torch[1].config_id
    }


def test_a_recorded_precision_is_escaped(tmp_path):
    bf16 = at(32, precision="bf16", frameworks=("torch",))
    record = ok(at(32, frameworks=("torch",))[0], plan=bf16)
    record["matrix"]["planned"][0]["precision"] = "<i>bf16</i>"
    (line,) = sentence(speed_page(results(tmp_path, [record])), NOT_RUN_EN)
    assert "batch 32 &lt;i&gt;bf16&lt;/i&gt; (" in line


def test_a_later_plan_supersedes_so_the_sizes_an_upgraded_frameworks_old_version_never_ran_are_not_named(tmp_path):
    older = interleaved_order(expand("quick", device="cpu", version_of={**gen_records.VERSIONS, "torch": "2.13.0"}.get))
    ends = [c for c in older if c.batch_size in (32, 256) and c.precision == "fp32"]
    before = [ok(c, older, finished_at="2026-11-30T10:01:00.000Z") for c in ends]
    unrun_before = not_run_yet(results(tmp_path / "before", before).runs)
    assert {p.config_id for p in unrun_before} == {c.config_id for c in older if c not in ends}
    found = results(tmp_path / "after", [*before, *(ok(c) for c in QUICK)])  # torch 2.14.1 then ran all of it
    assert not_run_yet(found.runs) == []
    assert NOT_RUN_EN not in speed_page(found)
