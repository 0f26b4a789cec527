"""Aggregation: medians over repeats, mean ± std and intervals, failed runs kept as failures."""

from __future__ import annotations

import copy
import dataclasses
import re
import statistics

import gen_records
import pytest

from fwbench.stats import APART, TOO_FEW_RUNS, WITHIN_NOISE, describe
from generator.records import aggregate
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.records.machines import machines
from generator.verdicts.leads import lead_text, leads_by_batch, throughput_leads
from generator.views import fmt
from generator.views.cells import compile_cell, time_cell, time_to_accuracy_cell
from generator.views.headline import throughput_rows
from generator.views.verdict_text import text


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
    assert (failed.n_runs, failed.n_ok, text(failed.failure_note)) == (1, 0, "1 OOM")
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
    (torch,) = [c for c in table.columns if c.framework == "torch"]
    ratio, first, last = table.speedup(torch)
    assert (first, last) == (32, 64)  # batch 128 failed: the ratio spans the batches that ran
    rates = [table.at(torch, bs).images_per_second.mean for bs in (32, 64)]
    assert ratio == pytest.approx(rates[1] / rates[0])  # throughputs: the same work whatever each epoch's size
    by_batch = {lead.batch_size: lead for lead in throughput_leads(table)}
    assert by_batch[32].leader == "JAX" and by_batch[32].runner_up == "PyTorch"
    assert by_batch[32].margin == pytest.approx(by_batch[32].leader_stats.mean / by_batch[32].runner_up_stats.mean - 1)
    assert 128 not in by_batch  # nobody finished batch 128


def test_tuning_environment_splits_tables_and_is_labelled():
    from generator.records.identity import setting_of

    record = gen_records.run("jax", 32)
    plain = setting_of(record)
    record["config"]["tuning_environment"] = {"XLA_FLAGS": "--f", "OMP_NUM_THREADS": "1"}
    tuned = setting_of(record)
    assert plain != tuned and plain.slug != tuned.slug
    assert re.fullmatch(r"[a-z0-9.-]+", tuned.slug)  # chart file names: no spaces or brackets
    assert "tuned" not in plain.label
    assert tuned.label.endswith("tuned: OMP_NUM_THREADS=1; XLA_FLAGS=--f")


def test_no_lead_without_a_competitor(tmp_path):
    from fwbench.records import write_record

    record = gen_records.run("jax", 32)
    write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    (table,) = tables(summarise(load_results(tmp_path).runs))
    assert throughput_leads(table) == []  # JAX alone is not "fastest"


def write(root, *records):
    from fwbench.records import write_record

    for record in records:
        machine = record["hardware"]["machine_id"] if record["hardware"] else gen_records.CPU_MACHINE
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
    return load_results(root)


def test_spread_shows_n_and_the_sd_or_the_interval():
    assert fmt.spread(describe([9.07]), unit="s") == "9.07 s (n=1)"
    assert fmt.spread(describe([9.0, 9.2]), unit="s") == "9.10 s ± 0.14 (sd, n=2)"
    assert fmt.spread(describe([9.0, 9.1, 9.2]), unit="s") == "9.10 s ± 0.25 (95 % CI, n=3)"
    assert (
        fmt.spread(describe([0.40, 0.41, 0.42]), 100, unit="%", with_sd=True)
        == "41.00 % ± 2.48 (95 % CI, n=3, sd 1.00)"
    )
    assert fmt.spread(None) == "—"


def test_one_table_holds_four_batch_sizes_with_differing_images_per_epoch(tmp_path):
    per_epoch = {32: 49984, 64: 49984, 128: 49920, 256: 49920}
    loaded = write(
        tmp_path,
        *(
            gen_records.run("jax", bs, dataset="cifar10", train_images=50000, images_per_epoch=n)
            for bs, n in per_epoch.items()
        ),
    )
    (table,) = tables(summarise(loaded.runs))
    assert table.batch_sizes == [32, 64, 128, 256]
    assert table.setting.train_images == 50000 and not table.setting.older
    assert "50,000 training images" in table.setting.label
    assert [table.cell("jax", "compiled", bs).images_per_epoch for bs in per_epoch] == list(per_epoch.values())


def test_older_records_are_keyed_on_images_per_epoch_and_marked(tmp_path):
    loaded = write(tmp_path, gen_records.run("jax", 32, older=True), gen_records.run("torch", 32, older=True))
    assert loaded.runs[0].record["upgraded_from"] == "fwbench.run/1"
    (table,) = tables(summarise(loaded.runs))
    assert table.setting.older and "images/epoch (older records)" in table.setting.label
    cell = table.cell("jax", "compiled", 32)
    assert not cell.judgeable and cell.flags == [aggregate.OLDER]
    assert "config.train_images" in loaded.runs[0].record["missing"]
    assert time_cell(cell) == '10.00\u00a0s<br><small>n=1 · <span title="older record">◌</span></small>'
    assert throughput_leads(table) == []
    assert (
        throughput_rows(table, table.columns_in("compiled"), leads_by_batch(table))[0].verdict
        == "not judged: older records"
    )


def test_busy_runs_never_lead_and_are_left_out_beside_clean_ones(tmp_path):
    loaded = write(
        tmp_path,
        gen_records.run("jax", 32, seconds=5.0, busy=True),  # only busy: shown, marked, never leads
        *(gen_records.run("torch", 32, seed, seconds=10.0 + 0.1 * seed) for seed in range(3)),
        gen_records.run("torch", 32, 9, seconds=30.0, busy=True),  # left out beside the clean runs
        *(gen_records.run("tensorflow", 32, seed, seconds=12.0 + 0.1 * seed) for seed in range(3)),
    )
    (table,) = tables(summarise(loaded.runs))
    jax, torch = table.cell("jax", "compiled", 32), table.cell("torch", "compiled", 32)
    assert time_cell(jax) == '5.00\u00a0s<br><small>n=1 · <span title="busy-flagged run">⚑</span></small>'
    assert time_cell(torch) == "10.10 ±\u00a00.25\u00a0s<br><small>n=3 · 1 busy run left out</small>"
    (lead,) = throughput_leads(table)
    assert (lead.leader, lead.runner_up, lead.status) == ("PyTorch", "TensorFlow", APART)
    assert "beyond the noise" in text(lead_text(lead))


def test_lead_within_noise_when_intervals_overlap(tmp_path):
    loaded = write(
        tmp_path,
        *(gen_records.run("torch", 32, seed, seconds=10.0 + seed) for seed in range(3)),
        *(gen_records.run("jax", 32, seed, seconds=10.5 + seed) for seed in range(3)),
    )
    (table,) = tables(summarise(loaded.runs))
    (lead,) = throughput_leads(table)
    assert lead.status == WITHIN_NOISE
    words = text(lead_text(lead))
    assert "within noise" in words and "ahead" not in words and "fastest" not in words


def test_a_lead_at_n1_names_no_leader(tmp_path):
    loaded = write(tmp_path, gen_records.run("torch", 32, seconds=10.0), gen_records.run("jax", 32, seconds=11.2))
    (table,) = tables(summarise(loaded.runs))
    (lead,) = throughput_leads(table)
    assert lead.status == TOO_FEW_RUNS and lead.n == 1 and not lead.decided
    assert text(lead_text(lead)) == (
        "no verdict (n = 1): PyTorch at 51.2 img/s (n=1) and JAX at 45.7 img/s (n=1); a verdict needs 3 clean runs "
        "of each and 95 % intervals apart"
    )


def test_time_to_accuracy_from_per_epoch_records(tmp_path):
    record = gen_records.run(
        "torch",
        32,
        dataset="cifar10",
        epochs=4,
        seconds=10.0,
        compile_seconds=3.0,
        epoch_accuracies=[0.70, 0.86, 0.89, 0.91],
    )
    record["timing"]["epoch_seconds_each"] = [11.0, 10.0, 10.0, 9.0]
    assert aggregate.time_to_accuracy(record, 0.85) == pytest.approx(3.0 + 11.0 + 10.0)  # reached in epoch 2
    assert aggregate.time_to_accuracy(record, 0.90) == pytest.approx(3.0 + 40.0)
    assert aggregate.time_to_accuracy(record, 0.95) is None
    slower = copy.deepcopy(record)
    slower["record_id"] += "-slower"
    slower["config"]["seed"] = 1
    slower["accuracy"]["epochs"][1]["test_accuracy"] = 0.80  # reaches 85 % only in epoch 3
    (table,) = tables(summarise(write(tmp_path, record, slower).runs))
    cell = table.cell("torch", "compiled", 32)
    stats, counted = cell.time_to_accuracy(0.85)
    assert counted == 2 and stats.mean == pytest.approx((24.0 + 34.0) / 2)
    assert time_to_accuracy_cell(cell, 0.85) == "29.0\u00a0s (sd\u00a07.1)<br><small>n=2</small>"  # ± is a 95 % CI
    assert time_to_accuracy_cell(cell, 0.95) == "not reached in 4 epochs<br><small>n=2</small>"


def _quick_cpu(framework: str, batch_size: int, repeat: int = 0):
    """The quick profile's fp32 configuration of ``framework`` at ``batch_size`` on the test CPU."""
    from runners.profiles import expand

    (config,) = [
        c
        for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
        if (c.framework, c.batch_size, c.precision) == (framework, batch_size, "fp32")
    ]
    return dataclasses.replace(config, repeat=repeat)


def _recorded(root, runs):
    """Write the records ``runners run`` makes of each (config, measured) pair under ``root`` and load them."""
    from fwbench.records import write_record

    for config, measured in runs:
        record = gen_records.as_recorded(config, measured, ["runners", "matrix"])
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def test_the_speed_up_compares_the_same_work_where_epochs_grow_with_the_batch(tmp_path):
    small, large = _quick_cpu("torch", 32), _quick_cpu("torch", 256)
    assert (small.epoch_train_images, large.epoch_train_images) == (256, 2048)  # a CPU's epochs differ
    found = _recorded(
        tmp_path, [(small, gen_records.one_epoch(small, 65.1)), (large, gen_records.one_epoch(large, 75.0))]
    )
    (table,) = tables(summarise(found.runs))
    ratio, first, last = table.speedup(table.columns[0])
    assert (first, last) == (32, 256)
    assert ratio == pytest.approx(75.0 / 65.1)  # the epochs' seconds would give 0.14×


def test_a_compile_time_within_the_step_noise_is_not_a_measurement(tmp_path):
    configs = [_quick_cpu("jax", 32, repeat) for repeat in (1, 2, 3)]
    steady = gen_records.one_epoch(configs[0], 30.0).window_step_seconds[0]
    firsts = (steady + 5.0, steady + 7.0, steady - 0.3)  # the last first step was quicker than a steady one
    runs = [(c, gen_records.one_epoch(c, 30.0, first_step_seconds=f)) for c, f in zip(configs, firsts, strict=True)]
    (summary,) = summarise(_recorded(tmp_path, runs).runs)
    assert sorted(r["timing"]["compile_seconds"] for r in summary.counted)[0] == 0.0  # the runner clamped it
    assert summary.compile_below_noise() == 1
    assert summary.compile_seconds.n == 2 and summary.compile_seconds.mean == pytest.approx(6.0)
    cell = compile_cell(summary)
    assert cell.startswith("6.0") and "1 run below the step-time noise left out" in cell
    (only_noise,) = summarise(_recorded(tmp_path / "noise", runs[2:]).runs)
    assert only_noise.compile_seconds is None
    assert compile_cell(only_noise).startswith("below the step-time noise") and "0.0" not in compile_cell(only_noise)
