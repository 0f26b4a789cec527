"""The claims check computes its verdicts from the article's figures and the records."""

from __future__ import annotations

import json

import gen_records
import pytest

from fwbench.records import write_record
from generator.records.aggregate import summarise, tables
from generator.records.load import Loaded, load_results
from generator.records.machines import machines
from generator.verdicts import claims
from generator.verdicts.article import own_tables
from generator.verdicts.article.ecosystem import ecosystem_claims
from generator.verdicts.article.machine import machine_claims
from generator.views.verdict_text import claim_text

ARTICLE = claims.load_article_figures()


def by_claim(rows):
    """The rows worded in English, by their claim."""
    return {c.claim: c for c in map(claim_text, rows)}


def test_internal_speedup_inconsistency_is_computed():
    rows = by_claim(own_tables.internal_claims(ARTICLE))
    torch = rows["PyTorch speed-up from batch 32 to 256"]
    assert torch.verdict == claims.INCONSISTENT  # its own table disagrees; no record of fwbench's contradicts it
    assert "3.92×" in torch.ours  # 42.3 / 10.8
    assert rows["TensorFlow speed-up from batch 32 to 256"].verdict == claims.CONSISTENT
    # TF's ±0.21 is within 0.2 at the bound's one decimal, as 3.87 is the stated 3.9 at the speed-up's
    spread = rows["every standard deviation is within 0.2 points"]
    assert spread.verdict == claims.CONSISTENT and spread.article == "≤ 0.2"
    assert spread.ours == "0.21, the largest standard deviation of its table (TensorFlow)"
    assert "0.2 stands for anything up to 0.25" in spread.reason[0]
    stricter = {**ARTICLE["accuracy"], "table": {"torch": {"mean": 92.4, "std": 0.26}}}
    assert own_tables.internal_claims({**ARTICLE, "accuracy": stricter})[-1].verdict == claims.INCONSISTENT


def test_verdict_helpers():
    assert claims.within_relative(11.0, 10.0, 0.15) == claims.CONFIRMED
    assert claims.within_relative(12.0, 10.0, 0.15) == claims.CONTRADICTED
    assert claims.within_absolute(92.0, 92.43, 1.0) == claims.CONFIRMED
    assert claims.ranking({"a": 3, "b": 1, "c": 2}) == ["b", "c", "a"]


def test_cpu_measurements_are_not_comparable_with_the_gpu_article(results_dir):
    loaded = load_results(results_dir)
    summaries = summarise(loaded.runs)
    (machine,) = machines(loaded.runs)
    rows = machine_claims(ARTICLE, machine, tables(summaries))
    speed = by_claim(rows)["PyTorch, batch 32: seconds per epoch"]
    assert speed.verdict == claims.NOT_COMPARABLE and "CPU" in "; ".join(speed.reason)
    assert speed.ours.endswith(" s ± 0.2 (95 % CI, n=3), cold compile caches")
    assert by_claim(rows)["PyTorch, batch 128: seconds per epoch"].ours == "failed: 1 OOM"
    accuracy = by_claim(rows)["PyTorch final test accuracy over 5 runs"]
    assert accuracy.verdict == claims.NOT_COMPARABLE and "synthetic" in "; ".join(accuracy.reason)


#: images trained per epoch of the article profile's 50,000 requested, after drop-last
IMAGES_PER_EPOCH = {32: 49984, 64: 49984, 128: 49920, 256: 49920}


#: what a framework's default precision reads back on an Ampere or later GPU
DEFAULT_FLAGS = {"allow_tf32": True}


def with_precision(record, policy, flags, article_epoch=True):
    """``record`` as run under the precision ``policy``, ``flags`` read back from the framework (None: the record
    does not say), without the article's epoch seconds unless ``article_epoch``."""
    record = gen_records.with_changes(record)
    record["config"]["precision"] = policy
    record["precision"] = {"policy": policy, "compute_dtype": "float32", "flags": flags}
    if not article_epoch and record["timing"]:
        record["timing"].pop("article_epoch_seconds", None)
    return record


def write_article_runs(
    root,
    seconds,
    *,
    machine_id=gen_records.GPU_MACHINE,
    seeds=5,
    jitter=0.0,
    precision="default",
    flags=DEFAULT_FLAGS,
    article_epoch=True,
    **changes,
):
    """Article-protocol runs (CIFAR-10, 50,000 training images, 5 epochs, all four batch sizes) on a GPU at each
    framework's default precision (or ``precision`` with ``flags``; see ``with_precision``):
    ``seconds[framework][batch_size]`` per epoch, seed k adding ``k × jitter``; ``changes`` go to every run."""
    for fw, by_batch in seconds.items():
        for bs, secs in by_batch.items():
            for seed in range(seeds):
                options = dict(
                    seconds=secs + seed * jitter,
                    accuracy=0.924,
                    machine_id=machine_id,
                    dataset="cifar10",
                    train_images=50000,
                    images_per_epoch=IMAGES_PER_EPOCH[bs],
                    epochs=5,
                    nvml=ARTICLE["memory"]["table"][str(bs)][fw] * 2**20,
                )
                run = gen_records.run(fw, bs, seed, **{**options, **changes})
                record = with_precision(run, precision, flags, article_epoch)
                write_record(root / "runs" / machine_id / f"{record['record_id']}.json", record)
    return load_results(root)


def article_times(scale: dict[str, float]) -> dict[str, dict[int, float]]:
    """The article's seconds per epoch, each framework's scaled by ``scale``."""
    return {fw: {int(bs): row[fw] * scale[fw] for bs, row in ARTICLE["speed"]["table"].items()} for fw in scale}


def claims_of(results):
    summaries = summarise(results.runs)
    (machine,) = machines(results.runs)
    return by_claim(machine_claims(ARTICLE, machine, tables(summaries)))


def test_same_gpu_and_protocol_is_compared_in_one_table(tmp_path):
    # torch and TF as published, JAX twice as slow: four batch sizes, two images-per-epoch values, one table
    results = write_article_runs(tmp_path, article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 2.0}), jitter=0.05)
    (table,) = tables(summarise(results.runs))
    assert table.batch_sizes == [32, 64, 128, 256] and table.setting.train_images == 50000
    rows = claims_of(results)
    assert rows["PyTorch, batch 32: seconds per epoch"].verdict == claims.CONFIRMED
    assert rows["JAX, batch 32: seconds per epoch"].verdict == claims.CONTRADICTED
    assert rows["PyTorch, batch 256: peak GPU memory (NVML)"].verdict == claims.CONFIRMED
    ranking = rows[ARTICLE["speed"]["stated_ranking_text"]]
    assert ranking.verdict == claims.CONTRADICTED  # JAX is slowest here, beyond the noise
    assert "another GPU" not in "; ".join(ranking.reason)  # the article's own GPU model
    for row in rows.values():
        assert row.conditions == (
            "GPU",
            "default precision",
            "CIFAR-10",
            "article protocol",
            "learning-rate schedule",
            "n ≥ 3",
            "no busy or older records",
        )


def test_accuracy_is_not_judged_without_the_articles_learning_rate_schedule(tmp_path):
    rows = claims_of(write_article_runs(tmp_path, article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0})))
    accuracy = rows["PyTorch final test accuracy over 5 runs"]
    assert accuracy.verdict == claims.NOT_COMPARABLE
    assert accuracy.reason[0] == "the article states no learning-rate schedule, and a final accuracy depends on it"
    assert accuracy.ours.startswith("92.40 %")  # still shown


def test_strict_fp32_and_unknown_precision_are_not_judged_against_the_article(tmp_path):
    times = article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0})
    fp32 = claims_of(write_article_runs(tmp_path / "fp32", times, precision="fp32"))
    unknown = claims_of(write_article_runs(tmp_path / "unknown", times, flags=None))
    for rows, why in (
        (fp32, "strict FP32, the article ran each framework's default precision"),
        (unknown, "precision unknown: the record does not say which precision the framework ran"),
    ):
        for claim in ("PyTorch, batch 32: seconds per epoch", ARTICLE["speed"]["stated_ranking_text"]):
            assert rows[claim].verdict == claims.NOT_COMPARABLE and rows[claim].reason[0] == why, rows[claim]
    (table,) = tables(summarise(load_results(tmp_path / "fp32").runs))
    assert "strict FP32 (TF32 off)" in table.setting.label  # the table's heading names the precision


def test_seconds_rows_say_which_epoch_they_compare(tmp_path):
    times = article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0})
    median = claims_of(write_article_runs(tmp_path / "median", times, jitter=0.05, article_epoch=False))
    row = median["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.CONFIRMED and "compares fwbench's median steady epoch" in "; ".join(row.reason)
    results = write_article_runs(tmp_path / "article", {"torch": {32: 42.3}}, jitter=0.05)
    for item in results.runs:  # the article's epoch: compile inside the first, 30 % above the median here
        item.record["timing"]["article_epoch_seconds"] = item.record["timing"]["epoch_seconds"] * 1.3
    row = claims_of(results)["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.CONTRADICTED and row.ours.startswith("55.1 s")
    epoch = "compares the article's epoch (the mean over the epochs, compile inside the first) over the runs with cold"
    assert epoch in "; ".join(row.reason)


def test_every_batch_size_claim_needs_all_four_rows(tmp_path):
    times = {
        fw: {bs: t for bs, t in row.items() if bs != 128}
        for fw, row in article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0}).items()
    }
    rows = claims_of(write_article_runs(tmp_path, times))
    ranking = rows[ARTICLE["speed"]["stated_ranking_text"]]
    assert ranking.verdict == claims.NOT_COMPARABLE and "at batch 128" in "; ".join(ranking.reason)
    assert rows["PyTorch, batch 32: seconds per epoch"].verdict == claims.CONFIRMED


def test_rankings_within_noise_when_intervals_overlap(tmp_path):
    # everyone at the article's PyTorch time, ±1 s between seeds: the stated order cannot be told apart
    same = {
        fw: {int(bs): row["torch"] for bs, row in ARTICLE["speed"]["table"].items()}
        for fw in ("torch", "tensorflow", "jax")
    }
    rows = claims_of(write_article_runs(tmp_path, same, jitter=1.0))
    ranking = rows[ARTICLE["speed"]["stated_ranking_text"]]
    assert ranking.verdict == claims.WITHIN_NOISE
    assert "batch 32: within noise" in ranking.ours


def test_an_interval_across_the_tolerance_edge_is_within_noise():
    assert claims.band_verdict(40.0, 44.0, 42.3, 0.15, relative=True) == claims.CONFIRMED
    assert claims.band_verdict(46.0, 50.0, 42.3, 0.15, relative=True) == claims.WITHIN_NOISE  # edge at 48.6
    assert claims.band_verdict(49.0, 52.0, 42.3, 0.15, relative=True) == claims.CONTRADICTED
    assert claims.band_verdict(91.0, 92.0, 92.43, 1.0, relative=False) == claims.WITHIN_NOISE


def test_another_gpu_judges_only_the_scale_free_claims(tmp_path):
    # an H200 twice as fast as the article's 4090 everywhere: every absolute figure would be contradicted
    results = write_article_runs(
        tmp_path, article_times({"torch": 0.5, "tensorflow": 0.5, "jax": 0.5}), machine_id="nvidia-h200", jitter=0.02
    )
    rows = claims_of(results)
    for claim in ("PyTorch, batch 32: seconds per epoch", "JAX, batch 256: peak GPU memory (NVML)"):
        row = rows[claim]
        assert row.verdict == claims.NOT_COMPARABLE, row
        assert row.reason[0] == (
            "another GPU: NVIDIA H200, not the article's NVIDIA RTX 4090 (24 GB): an absolute figure on another GPU "
            "measures the hardware"
        )
    for fw in ("PyTorch", "TensorFlow", "JAX"):  # the ratio of the article's own table, measured back
        speed_up = rows[f"{fw} speed-up batch 32 → 256"]
        assert speed_up.verdict == claims.CONFIRMED, speed_up
        assert "a scale-free claim, judged on any GPU" in "; ".join(speed_up.reason)
    assert rows[ARTICLE["speed"]["stated_ranking_text"]].verdict == claims.CONFIRMED
    assert rows[ARTICLE["memory"]["stated_ranking_text"]].verdict != claims.NOT_COMPARABLE


def test_one_run_per_configuration_is_not_judged(tmp_path):
    rows = claims_of(
        write_article_runs(tmp_path, article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0}), seeds=1)
    )
    row = rows["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.NOT_COMPARABLE and "fewer than 3 clean runs" in "; ".join(row.reason)
    assert row.ours.endswith(" s (n=1), cold compile caches")  # no spread from one run


def test_busy_and_older_records_are_excluded_from_verdicts(tmp_path):
    times = article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0})
    busy = claims_of(write_article_runs(tmp_path / "busy", times, busy=True))
    row = busy["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.NOT_COMPARABLE and "only busy-flagged runs" in "; ".join(row.reason)
    assert row.ours.endswith("[busy]")
    older = claims_of(write_article_runs(tmp_path / "older", times, older=True))
    row = older["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.NOT_COMPARABLE
    assert "only older records" in "; ".join(row.reason)  # a row about one configuration does not repeat its name
    assert all(r.verdict == claims.NOT_COMPARABLE for r in older.values())


def test_an_older_timing_protocol_never_pools_and_is_shown_as_older(tmp_path):
    for seed in range(3):
        for protocol, seconds in ((1, 90.0), (2, 10.0)):
            record = gen_records.with_changes(gen_records.run("torch", 32, seed, seconds=seconds), protocol=protocol)
            record["record_id"] += f"-protocol{protocol}"
            write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    summaries = summarise(load_results(tmp_path).runs)
    older, newer = sorted(summaries, key=lambda s: s.key.setting.protocol)
    assert (older.epoch_seconds.mean, newer.epoch_seconds.mean) == (90.0, 10.0)  # two configurations, not seeds
    assert older.flags == ["older record"] and not older.judgeable and newer.judgeable
    assert len(tables(summaries)) == 2


def test_busy_runs_beside_clean_ones_are_left_out_and_named(tmp_path):
    times = article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0})
    write_article_runs(tmp_path, times, jitter=0.05)
    results = write_article_runs(tmp_path, {"torch": {32: 90.0}}, seeds=1, busy=True)
    row = claims_of(results)["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.CONFIRMED  # the busy 90 s run is not in the figure
    assert "left out: 1 busy run(s)" in "; ".join(row.reason) and "n=5" in row.ours


def test_ecosystem_window_mismatch_is_not_comparable():
    snap = gen_records.snapshot(window=30)
    rows = by_claim(ecosystem_claims(ARTICLE, Loaded(path=None, record=snap)))
    assert rows["[pytorch] questions in the past year"].verdict == claims.NOT_COMPARABLE
    assert "30 days" in "; ".join(rows["[pytorch] questions in the past year"].reason)
    yearly = by_claim(ecosystem_claims(ARTICLE, Loaded(path=None, record=gen_records.snapshot())))
    assert yearly["[pytorch] questions in the past year"].verdict == claims.CONTRADICTED  # 9,000 vs 142,000+
    assert yearly["[pytorch] time to first answer"].verdict == claims.NOT_COMPARABLE  # mean vs median
    assert yearly["order of first-answer times"].verdict == claims.CONFIRMED
    assert yearly["[jax-ml/jax] GitHub star growth per year"].verdict == claims.CONTRADICTED
    assert ecosystem_claims(ARTICLE, None) == []


def test_the_rules_come_from_data_and_a_bad_file_is_named():
    from generator.verdicts import comparability

    rules = comparability.load_rules(ARTICLE["setup"])
    assert [r.id for r in rules.rules] == [
        "device",
        "precision",
        "dataset",
        "protocol",
        "schedule",
        "repeats",
        "clean",
    ]
    assert rules.min_runs == 3 and rules.tta_targets == (0.85, 0.90)
    assert all(r.tolerates for r in rules.rules)
    data = json.loads(comparability.RULES_FILE.read_text())
    data["rules"][5]["min_runs"] = 2
    with pytest.raises(comparability.RulesError, match=r"comparability\.json: field 'repeats\.min_runs'"):
        comparability.parse_rules(data, ARTICLE["setup"])
    data["rules"][0]["id"] = "colour"
    with pytest.raises(comparability.RulesError, match=r"field 'rules\[0\]\.id': unknown rule 'colour'"):
        comparability.parse_rules(data, ARTICLE["setup"])


def test_a_speed_up_over_epochs_of_different_sizes_compares_images_per_second(tmp_path):
    # a CPU's quick epochs repeat 256 training images to 8 steps: 256 images at batch 32, 2,048 at 256
    for bs, images, rate in ((32, 256, 65.1), (256, 2048, 75.0)):
        for seed in range(3):
            run = gen_records.run(
                "torch", bs, seed, seconds=images / (rate + seed * 0.1), train_images=256, images_per_epoch=images
            )
            write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{run['record_id']}.json", run)
    row = claims_of(load_results(tmp_path))["PyTorch speed-up batch 32 → 256"]
    assert row.ours.startswith("1.15×")  # the epochs' seconds would give 0.14×
    assert any(reason.startswith("compares images per second") for reason in row.reason)
