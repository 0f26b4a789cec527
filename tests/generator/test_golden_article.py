"""Golden end to end: an article-profile run on an RTX 4090, and the same on an H200, recorded exactly as
``runners run`` records it, is judged by ``generator build``.

Sixty records (3 frameworks × 4 batch sizes × 5 seeds, compiled) are built through ``runners.measure.record.ok_record``,
the function ``runners run`` builds its records with, from the article's own seconds, megabytes and accuracies
(a small spread over the seeds, so that every configuration has a 95 % interval), at each framework's default
precision as the article ran them. Their images per epoch are what drop-last gives (49,984 at batch 32 and 64,
49,920 at 128 and 256): if the setting keyed on that figure again, the four batch sizes would split into two
tables and these assertions would fail. The H200 trains in half the time: its absolute figures are not set
beside the article's, its orderings and speed-ups are.
"""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path

import pytest

from fwbench.records import write_record
from generator.records.load import load_results
from generator.verdicts.claims import load_article_figures
from generator.views import downloads
from generator.views.sitedata import REPO_ROOT, SiteData
from runners.measure import cpu_identity, machine_load, record, run
from runners.measure.profiles import expand
from runners.measure.record import Measured, ok_record, record_path

ARTICLE = load_article_figures()
SEEDS = range(5)
#: relative offset of each seed's timing and memory from the article's figure: a spread of about ±0.3 %
JITTER = (-0.004, -0.002, 0.0, 0.002, 0.004)
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.1, "cpu_count": 32}
RTX_4090 = {
    "machine_id": "nvidia-geforce-rtx-4090",
    "device_kind": "gpu",
    "device_name": "NVIDIA GeForce RTX 4090",
    "device_count": 1,
    "gpu_driver": "535.129.03",
    "cuda": "12.2",
    "cudnn": "8.9.7",
    "cpu_model": "AMD Ryzen 9 7950X",
    "cpu_threads": 32,
    "framework_threads": 16,
    "host_memory_bytes": 64 << 30,
    "fingerprint": cpu_identity.cpu_fingerprint(
        "vendor_id : AuthenticAMD\nflags : avx avx2 fma avx512f\n", cache_dir=Path("/nonexistent"), kernel="6.5.0"
    ),
}
H200 = {**RTX_4090, "machine_id": "nvidia-h200", "device_name": "NVIDIA H200"}
#: how much faster than the article's 4090 each machine trains
SPEED = {RTX_4090["machine_id"]: 1.0, H200["machine_id"]: 2.0}
#: the first step alone: trace, compile, autotune and one step
FIRST_STEP_SECONDS = 20.0
#: what each framework's default precision reads back on an Ampere or later GPU (TF32 convolutions)
DEFAULT_FLAGS = {"allow_tf32_conv": True}
SOFTWARE = {
    "python": "3.11.7",
    "os": "Linux 6.5.0 (x86_64)",
    "packages": {},
    "git_commit": "0" * 40,
    "git_dirty": False,
    "fwbench_version": "0.1.0",
}
VERSIONS = {"torch": "2.2.1", "tensorflow": "2.15.0", "jax": "0.4.26"}


def accuracies(mean: float, std: float) -> list[float]:
    """Five final accuracies (fractions) with exactly the article's mean and sample standard deviation (%)."""
    offsets = [-2, -1, 0, 1, 2]
    scale = std / statistics.stdev(offsets)
    return [(mean + scale * o) / 100 for o in offsets]


def clock_seconds(article_epoch: float, steps: int, epochs: int) -> float:
    """The clock of each epoch that makes the article's epoch (the mean epoch with the compile time, the first step
    less a steady one, inside the first) ``article_epoch`` seconds."""
    return (article_epoch - FIRST_STEP_SECONDS / epochs) / (1 - 1 / (steps * epochs))


def at_default_precision(rec: dict) -> dict:
    """``rec`` as run at each framework's default precision, its flags read back: what the article ran."""
    rec["config"]["precision"] = "default"
    rec["precision"] = {"policy": "default", "compute_dtype": "float32", "flags": DEFAULT_FLAGS}
    return rec


def article_run(framework: str, batch_size: int, seed: int, position: int, hardware: dict = RTX_4090) -> dict:
    """One run as ``runners run --profile article`` records it on ``hardware``, with the article's figures
    injected (seconds divided by the machine's SPEED), at each framework's default precision."""
    (config,) = expand(
        "article",
        frameworks=[framework],
        modes=["compiled"],
        batch_sizes=[batch_size],
        seeds=[seed],
        version_of=VERSIONS.get,
    )
    steps = config.epoch_train_images // config.batch_size
    windows = run.window_sizes(steps) * config.epochs
    article_epoch = ARTICLE["speed"]["table"][str(batch_size)][framework] * (1 + JITTER[seed])
    seconds = clock_seconds(article_epoch / SPEED[hardware["machine_id"]], steps, config.epochs)
    final = accuracies(**ARTICLE["accuracy"]["table"][framework])[seed]
    measured = Measured(
        first_step_seconds=FIRST_STEP_SECONDS,
        epoch_seconds=[seconds] * config.epochs,
        window_step_seconds=[seconds / steps] * len(windows),
        window_steps=windows,
        epochs=[
            {
                "epoch": e,
                "train_loss": 1.0 / e,
                "train_accuracy": final - 0.1 + 0.02 * e,
                "test_loss": 1.0 / e,
                "test_accuracy": final - 0.1 + 0.02 * e,
            }
            for e in range(1, config.epochs + 1)
        ],
        framework_memory={"allocator_peak_bytes": None, "allocator_reserved_bytes": None},
        nvml_peak_bytes=round(ARTICLE["memory"]["table"][str(batch_size)][framework] * 2**20 * (1 + JITTER[seed])),
        host_self_peak_bytes=1 << 30,
        host_children_peak_bytes=0,
        data_bytes=630_000_000,
        load=machine_load.load_section(QUIET, QUIET, waited_seconds=0.0),
        run_order=record.run_order(position, 60),
    )
    rec = ok_record(
        config,
        hardware,
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:05:00.000Z",
        measured,
        software=SOFTWARE,
        command=["runners", "matrix", "--profile", "article", "--dataset", "cifar10"],
    )
    return at_default_precision(rec)


def write_article_runs(results: Path, hardware: dict) -> None:
    """The sixty records of the article profile on ``hardware``, in the matrix's order, under ``results/runs``."""
    position = 0
    for batch_size in (32, 64, 128, 256):
        for seed in SEEDS:
            for framework in ("torch", "tensorflow", "jax"):
                position += 1
                rec = article_run(framework, batch_size, seed, position, hardware)
                (config,) = expand(
                    "article",
                    frameworks=[framework],
                    modes=["compiled"],
                    batch_sizes=[batch_size],
                    seeds=[seed],
                    version_of=VERSIONS.get,
                )
                write_record(record_path(results / "runs", hardware["machine_id"], config), rec)


def built_claims(root: Path, hardware: dict) -> list[dict]:
    """The claims rows of the sixty records on ``hardware`` as the site publishes them: its download
    ``data/claims.csv``, made without drawing or building the rest of the site (test_gen_site.py builds one)."""
    write_article_runs(root / "results", hardware)
    site = SiteData(load_results(root / "results", strict=True), REPO_ROOT)
    published = csv.DictReader(io.StringIO(downloads.claims_csv(site.all_claims)))
    return [row for row in published if row["scope"] == hardware["machine_id"]]


@pytest.fixture(scope="module")
def claims_rows(tmp_path_factory) -> list[dict]:
    """The claims rows of the RTX 4090 as the site publishes them."""
    return built_claims(tmp_path_factory.mktemp("golden"), RTX_4090)


@pytest.fixture(scope="module")
def h200_rows(tmp_path_factory) -> list[dict]:
    """The claims rows of the H200 as the site publishes them."""
    return built_claims(tmp_path_factory.mktemp("golden-h200"), H200)


def rows_about(rows: list[dict], section: str, text: str) -> list[dict]:
    return [r for r in rows if r["section"] == section and text in r["claim"]]


def test_the_records_are_shaped_as_the_runner_writes_them():
    rec = article_run("torch", 32, 0, 1)
    assert rec["config"]["train_images"] == 50_000
    assert rec["config"]["images_per_epoch"] == 49_984
    assert article_run("jax", 256, 0, 1)["config"]["images_per_epoch"] == 49_920


def test_every_speed_and_memory_row_is_judged_and_no_accuracy_row(claims_rows):
    speed = rows_about(claims_rows, "3.1", "seconds per epoch")
    memory = rows_about(claims_rows, "3.2", "peak GPU memory")
    accuracy = rows_about(claims_rows, "3.3", "final test accuracy")
    assert (len(speed), len(memory), len(accuracy)) == (12, 12, 3)
    # the article's own figures, measured back, agree with themselves
    assert {r["verdict"] for r in speed + memory} == {"confirmed"}
    for row in speed:
        assert "compares the article's epoch" in row["reason"], row
    for row in accuracy:  # the article states no learning-rate schedule
        assert row["verdict"] == "not comparable" and "no learning-rate schedule" in row["reason"], row


def test_rankings_hold_at_all_four_batch_sizes(claims_rows):
    for section, text in (("3.1", "JAX is slightly ahead"), ("3.2", "JAX uses the least memory")):
        (ranking,) = rows_about(claims_rows, section, text)
        assert ranking["verdict"] == "confirmed", ranking
        for batch_size in (32, 64, 128, 256):  # one table: every batch size is a row of it
            assert f"batch {batch_size}: confirmed" in ranking["fwbench"], ranking


def test_the_32_to_256_speed_up_row_exists_for_every_framework(claims_rows):
    speedups = rows_about(claims_rows, "3.1", "speed-up batch 32 → 256")
    assert len(speedups) == 3
    for row in speedups:
        assert row["verdict"] == "confirmed", row  # the measured ratio is the article's table's ratio


def test_another_gpu_judges_the_orderings_and_speed_ups_but_no_absolute_figure(h200_rows):
    absolute = rows_about(h200_rows, "3.1", "seconds per epoch") + rows_about(h200_rows, "3.2", "peak GPU memory")
    assert len(absolute) == 24
    for row in absolute:
        assert row["verdict"] == "not comparable", row
        assert "an absolute figure on another GPU measures the hardware" in row["reason"], row
    for section, text in (("3.1", "JAX is slightly ahead"), ("3.2", "JAX uses the least memory"), ("3.1", "speed-up")):
        for row in rows_about(h200_rows, section, text):
            assert row["verdict"] == "confirmed", row
            assert "a scale-free claim, judged on any GPU" in row["reason"], row
