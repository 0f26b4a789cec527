"""Aggregation: medians over repeats, mean ± std and intervals, failed runs kept as failures."""

from __future__ import annotations

import copy
import dataclasses
import re
import statistics

import gen_records
import pytest

from fwbench.decision import ABOUT_EQUAL, AHEAD, UNDECIDED
from fwbench.gap import MIN_EFFECT
from fwbench.pairing import run_throughput
from fwbench.stats import describe
from generator.records import aggregate
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.records.machines import machines
from generator.verdicts.leads import lead_text, leads_by_batch, throughput_leads
from generator.views import text_format
from generator.views.cell_text import compile_cell, time_cell, time_to_accuracy_cell
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
    lead = by_batch[32]
    assert (lead.leader, lead.runner_up, lead.outcome) == ("JAX", "PyTorch", AHEAD)
    (jax,) = [c for c in table.columns if c.framework == "jax"]
    assert lead.leader_stats == table.at(jax, 32).images_per_second
    assert lead.runner_up_stats == table.at(torch, 32).images_per_second
    # the gap is the table's runs paired round by round (seed by seed): the geometric mean of their ratios
    by_seed = {r["config"]["seed"]: run_throughput(r) for r in table.at(torch, 32).judged}
    ratios = [run_throughput(r) / by_seed[r["config"]["seed"]] for r in table.at(jax, 32).judged]
    (decision,) = lead.verdict.rests_on
    assert decision.n == lead.n == 3
    assert decision.lead.ratio == pytest.approx(statistics.geometric_mean(ratios))
    assert MIN_EFFECT < decision.lead.low < decision.lead.ratio < decision.lead.high
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
    assert text_format.spread(describe([9.07]), unit="s") == "9.07 s (n=1)"
    assert text_format.spread(describe([9.0, 9.2]), unit="s") == "9.10 s ± 0.14 (sd, n=2)"
    assert text_format.spread(describe([9.0, 9.1, 9.2]), unit="s") == "9.10 s ± 0.25 (95 % CI, n=3)"
    assert (
        text_format.spread(describe([0.40, 0.41, 0.42]), 100, unit="%", with_sd=True)
        == "41.00 % ± 2.48 (95 % CI, n=3, sd 1.00)"
    )
    assert text_format.spread(None) == "—"


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
    assert table.setting.train_images == 50000
    assert "50,000 training images" in table.setting.label
    assert [table.cell("jax", "compiled", bs).images_per_epoch for bs in per_epoch] == list(per_epoch.values())


def test_older_records_are_marked_and_never_judged(tmp_path):
    loaded = write(tmp_path, gen_records.run("jax", 32, older=True), gen_records.run("torch", 32, older=True))
    assert loaded.runs[0].record["upgraded_from"] == "fwbench.run/2"
    (table,) = tables(summarise(loaded.runs))
    cell = table.cell("jax", "compiled", 32)
    assert not cell.judgeable and cell.flags == [aggregate.OLDER]
    assert "precision.flags" in loaded.runs[0].record["missing"]
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
        gen_records.run("torch", 32, 3, seconds=30.0, busy=True),  # left out beside the clean runs, and unpaired
        *(gen_records.run("tensorflow", 32, seed, seconds=12.0 + 0.1 * seed) for seed in range(4)),
    )
    (table,) = tables(summarise(loaded.runs))
    jax, torch = table.cell("jax", "compiled", 32), table.cell("torch", "compiled", 32)
    assert time_cell(jax) == '5.00\u00a0s<br><small>n=1 · <span title="busy-flagged run">⚑</span></small>'
    assert time_cell(torch) == "10.10 ±\u00a00.25\u00a0s<br><small>n=3 · 1 busy run left out</small>"
    (lead,) = throughput_leads(table)
    assert (lead.leader, lead.runner_up, lead.outcome) == ("PyTorch", "TensorFlow", AHEAD)
    assert lead.n == 3  # seed 3 ran busy for PyTorch: TensorFlow's seed 3 has no round to pair with
    (decision,) = lead.verdict.rests_on
    assert decision.lead.ratio == pytest.approx(statistics.geometric_mean([12.0 / 10.0, 12.1 / 10.1, 12.2 / 10.2]))
    assert text(lead_text(lead)).startswith("**PyTorch** is fastest at 50.7 img/s")


def _rounds(rates: dict[str, list[float]], first_repeat: int = 0) -> list:
    """The (config, measured) pairs of a matrix's rounds at batch 32: round r runs every framework of ``rates`` once,
    at its r-th images/s, as repeat ``first_repeat`` + r."""
    runs = []
    for r in range(len(next(iter(rates.values())))):
        for framework, each in rates.items():
            config = _quick_cpu(framework, 32, first_repeat + r)
            runs.append((config, gen_records.one_epoch(config, each[r])))
    return runs


def _only_lead(loaded):
    (table,) = tables(summarise(loaded.runs))
    (lead,) = throughput_leads(table)
    return lead


def _names_no_leader(lead) -> str:
    """The lead's words, after checking they name no leader."""
    words = text(lead_text(lead))
    assert not lead.decided and lead.verdict.leader is None
    assert "**" not in words and "ahead" not in words and "fastest" not in words
    return words


def test_a_gap_inside_the_band_or_an_interval_straddling_it_names_no_leader(tmp_path):
    level = {"torch": [20.0, 20.4, 19.8], "jax": [19.8, 20.0, 19.9]}  # within 2 % of each other, round by round
    loaded = _recorded(tmp_path / "level", _rounds(level) + _rounds(level, first_repeat=3), days=(1, 3))
    lead = _only_lead(loaded)
    assert (lead.outcome, lead.replicated, lead.n) == (ABOUT_EQUAL, True, 6)
    assert all(1 / MIN_EFFECT < d.gap.low < d.gap.high < MIN_EFFECT for d in lead.verdict.rests_on)
    assert _names_no_leader(lead).startswith("about equal (within 5 %): PyTorch at 20.1 img/s")

    straddling = {"torch": [21.0, 22.0, 20.6], "jax": [20.0, 20.0, 20.0]}  # 6 % apart on average, not surely 5 %
    lead = _only_lead(_recorded(tmp_path / "straddling", _rounds(straddling)))
    (sitting,) = lead.verdict.sittings
    assert sitting.gap.low < MIN_EFFECT < sitting.gap.ratio < sitting.gap.high
    assert (lead.outcome, lead.n) == (UNDECIDED, 3)
    assert _names_no_leader(lead).startswith("undecided at n = 3: PyTorch at 21.2 img/s")


def test_a_lead_at_n1_names_no_leader(tmp_path):
    loaded = write(tmp_path, gen_records.run("torch", 32, seconds=10.0), gen_records.run("jax", 32, seconds=11.2))
    lead = _only_lead(loaded)
    assert (lead.outcome, lead.n) == (UNDECIDED, 1)  # 12 % apart, but one round has no interval
    assert _names_no_leader(lead) == "undecided at n = 1: PyTorch at 51.2 img/s (n=1) and JAX at 45.7 img/s (n=1)"


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
    from runners.measure.profiles import expand

    (config,) = [
        c
        for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
        if (c.framework, c.batch_size, c.precision) == (framework, batch_size, "fp32")
    ]
    return dataclasses.replace(config, repeat=repeat)


def _recorded(root, runs, days=(1,)):
    """Write the records ``runners run`` makes of each (config, measured) pair under ``root``, in order two minutes
    apart, and load them; ``days``: the days of December whose sittings share the runs equally, in turn, each on a
    boot of its own."""
    from fwbench.records import write_record

    per_day = len(runs) // len(days)
    for index, (config, measured) in enumerate(runs):
        day = days[index // per_day]
        finished_at = f"2026-12-{day:02d}T10:{2 * (index % per_day) + 1:02d}:00.000Z"
        record = gen_records.as_recorded(
            config, measured, ["runners", "matrix"], finished_at=finished_at, boot_id=f"boot-of-day-{day}"
        )
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
    configs = [_quick_cpu("jax", 32, repeat) for repeat in (1, 2, 3, 4)]
    steady = gen_records.one_epoch(configs[0], 30.0).rerun_step_seconds  # the first step run again
    windows = [0.95 * steady, 1.05 * steady]  # the timed windows' steps: p90 − median = 0.04 × steady
    # the third first step was quicker than its rerun; the fourth slower, by less than the steps' noise
    firsts = (steady + 5.0, steady + 7.0, steady - 0.3, steady + 0.02 * steady)
    runs = [
        (c, gen_records.one_epoch(c, 30.0, first_step_seconds=f, window_step_seconds=windows))
        for c, f in zip(configs, firsts, strict=True)
    ]
    (summary,) = summarise(_recorded(tmp_path, runs).runs)
    measured = sorted(r["timing"]["compile_seconds"] for r in summary.counted)
    assert measured == pytest.approx([-0.3, 0.02 * steady, 5.0, 7.0])  # kept as measured: the negative one unclamped
    assert summary.compile_below_noise() == 2
    assert summary.compile_seconds.n == 2 and summary.compile_seconds.mean == pytest.approx(6.0)
    cell = compile_cell(summary)
    assert cell.startswith("6.0") and "2 runs below the step-time noise left out" in cell
    (only_noise,) = summarise(_recorded(tmp_path / "noise", runs[2:]).runs)
    assert only_noise.compile_seconds is None
    below = compile_cell(only_noise)
    assert below.startswith("below the step-time noise") and not re.search(r"\d\.\d", below)
