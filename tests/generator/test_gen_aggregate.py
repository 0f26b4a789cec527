"""Aggregation: medians over repeats, mean ± std and intervals, failed runs kept as failures."""

from __future__ import annotations

import re
import statistics

import gen_records
import pytest

from generator.aggregate import describe, machines, summarise, tables
from generator.load import load_results
from generator.pages import leads, time_cell


def test_describe_single_value_has_no_spread_or_interval():
    stats = describe([2.0])
    assert (stats.n, stats.mean, stats.median, stats.std, stats.ci95) == (1, 2.0, 2.0, None, None)
    assert describe([]) is None


def test_describe_two_values_has_std_but_no_interval():
    stats = describe([1.0, 3.0])
    assert stats.std == pytest.approx(statistics.stdev([1.0, 3.0]))
    assert stats.ci95 is None


def test_describe_interval_uses_student_t():
    values = [0.40, 0.41, 0.42]
    stats = describe(values)
    half = 4.303 * statistics.stdev(values) / 3**0.5
    assert stats.ci95 == pytest.approx((0.41 - half, 0.41 + half))


def test_summaries_group_seeds_and_keep_failures(results_dir):
    summaries = summarise(load_results(results_dir).runs)
    torch32 = next(s for s in summaries if s.key.framework == "torch" and s.key.batch_size == 32)
    assert (torch32.n_runs, torch32.n_ok) == (3, 3)
    assert torch32.epoch_seconds.median == pytest.approx(10.1)
    assert torch32.accuracy.mean == pytest.approx(0.41)
    assert torch32.accuracy.std == pytest.approx(0.01)
    failed = next(s for s in summaries if s.key.batch_size == 128)
    assert (failed.n_runs, failed.n_ok, failed.failure_note) == (1, 0, "1 OOM")
    assert failed.epoch_seconds is None
    assert time_cell(failed) == "**✗ 1 OOM**"
    assert failed.failures[0]["exception_type"] == "torch.OutOfMemoryError"


def test_tables_are_per_machine_and_setting(tmp_path):
    from fwbench.records import write_record

    for machine in (gen_records.CPU_MACHINE, gen_records.GPU_MACHINE):
        for dataset in ("synthetic", "cifar10"):
            record = gen_records.run("jax", 64, machine_id=machine, dataset=dataset)
            write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    loaded = load_results(tmp_path)
    found = tables(summarise(loaded.runs))
    assert [(t.machine_id, t.setting.dataset) for t in found] == [
        (gen_records.CPU_MACHINE, "cifar10"),
        (gen_records.CPU_MACHINE, "synthetic"),
        (gen_records.GPU_MACHINE, "cifar10"),
        (gen_records.GPU_MACHINE, "synthetic"),
    ]
    assert [m.machine_id for m in machines(loaded.runs)] == [gen_records.CPU_MACHINE, gen_records.GPU_MACHINE]
    assert machines(loaded.runs)[1].is_gpu


def test_speedup_and_leads_come_from_the_table(results_dir):
    (table,) = tables(summarise(load_results(results_dir).runs))
    assert table.batch_sizes == [32, 64, 128]
    ratio, first, last = table.speedup("torch", "compiled")
    assert (first, last) == (32, 64)  # batch 128 failed: the ratio spans the batches that ran
    assert ratio == pytest.approx(10.1 / 5.1)
    by_batch = {lead.batch_size: lead for lead in leads(table)}
    assert by_batch[32].leader == "jax" and by_batch[32].runner_up == "torch"
    assert by_batch[32].margin == pytest.approx(10.1 / 9.1 - 1)
    assert 128 not in by_batch  # nobody finished batch 128


def test_tuning_environment_splits_tables_and_is_labelled():
    from generator.aggregate import _setting_of

    record = gen_records.run("jax", 32)
    plain = _setting_of(record)
    record["config"]["tuning_environment"] = {"XLA_FLAGS": "--f", "OMP_NUM_THREADS": "1"}
    tuned = _setting_of(record)
    assert plain != tuned and plain.slug != tuned.slug
    assert re.fullmatch(r"[a-z0-9.-]+", tuned.slug)  # chart file names: no spaces or brackets
    assert "tuned" not in plain.label
    assert tuned.label.endswith("tuned: OMP_NUM_THREADS=1; XLA_FLAGS=--f")


def test_no_lead_without_a_competitor(tmp_path):
    from fwbench.records import write_record

    record = gen_records.run("jax", 32)
    write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    (table,) = tables(summarise(load_results(tmp_path).runs))
    assert leads(table) == []  # JAX alone is not "fastest"
