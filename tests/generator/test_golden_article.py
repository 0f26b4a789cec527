"""Golden end to end: an article-profile run on an RTX 4090, recorded exactly as ``runners run`` records it, is
judged by ``generator build``.

Sixty records (3 frameworks × 4 batch sizes × 5 seeds, compiled) are built through ``runners.record.ok_record``,
the function ``runners run`` builds its records with, from the article's own seconds, megabytes and accuracies
(a small spread over the seeds, so that every configuration has a 95 % interval). Their images per epoch are
what drop-last gives (49,984 at batch 32 and 64, 49,920 at 128 and 256): if the setting keyed on that figure
again, the four batch sizes would split into two tables and these assertions would fail.
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

from fwbench.records import write_record
from generator.claims import load_article_figures
from generator.cli import main as generator_main
from runners import machine_load, provenance, record, run
from runners.profiles import expand
from runners.record import Measured, ok_record, record_path

ARTICLE = load_article_figures()
SEEDS = range(5)
#: relative offset of each seed's timing and memory from the article's figure: a spread of about ±0.3 %
JITTER = (-0.004, -0.002, 0.0, 0.002, 0.004)
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.8, "cpu_count": 32}
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
    "fingerprint": provenance.cpu_fingerprint(
        "vendor_id : AuthenticAMD\nflags : avx avx2 fma avx512f\n", cache_dir=Path("/nonexistent"), kernel="6.5.0"
    ),
}
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


def article_run(framework: str, batch_size: int, seed: int, position: int) -> dict:
    """One run as ``runners run --profile article`` records it, with the article's figures injected."""
    (config,) = expand(
        "article",
        frameworks=[framework],
        modes=["compiled"],
        batch_sizes=[batch_size],
        seeds=[seed],
        version_of=VERSIONS.get,
    )
    steps = config.train_images // config.batch_size
    windows = run.window_sizes(steps) * config.epochs
    seconds = ARTICLE["speed"]["table"][str(batch_size)][framework] * (1 + JITTER[seed])
    final = accuracies(**ARTICLE["accuracy"]["table"][framework])[seed]
    measured = Measured(
        first_step_seconds=20.0,
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
    return ok_record(
        config,
        RTX_4090,
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:05:00.000Z",
        measured,
        software=SOFTWARE,
        command=["runners", "matrix", "--profile", "article", "--dataset", "cifar10"],
    )


@pytest.fixture(scope="module")
def claims_rows(tmp_path_factory) -> list[dict]:
    """``generator build`` over the sixty records; the claims rows of the RTX 4090 as the site publishes them."""
    root = tmp_path_factory.mktemp("golden")
    position = 0
    for batch_size in (32, 64, 128, 256):
        for seed in SEEDS:
            for framework in ("torch", "tensorflow", "jax"):
                position += 1
                rec = article_run(framework, batch_size, seed, position)
                (config,) = expand(
                    "article",
                    frameworks=[framework],
                    modes=["compiled"],
                    batch_sizes=[batch_size],
                    seeds=[seed],
                    version_of=VERSIONS.get,
                )
                write_record(record_path(root / "results" / "runs", rec["hardware"]["machine_id"], config), rec)
    site = root / "site"
    assert generator_main(["build", "--results", str(root / "results"), "--site-dir", str(site)]) == 0
    with (site / "data" / "claims.csv").open(encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if row["scope"] == RTX_4090["machine_id"]]


def rows_about(rows: list[dict], section: str, text: str) -> list[dict]:
    return [r for r in rows if r["section"] == section and text in r["claim"]]


def test_the_records_are_shaped_as_the_runner_writes_them():
    rec = article_run("torch", 32, 0, 1)
    assert rec["config"]["train_images"] == 50_000
    assert rec["config"]["images_per_epoch"] == 49_984
    assert article_run("jax", 256, 0, 1)["config"]["images_per_epoch"] == 49_920


def test_every_speed_memory_and_accuracy_row_is_judged(claims_rows):
    judged = {"confirmed", "contradicted"}
    speed = rows_about(claims_rows, "3.1", "seconds per epoch")
    memory = rows_about(claims_rows, "3.2", "peak GPU memory")
    accuracy = rows_about(claims_rows, "3.3", "final test accuracy")
    assert (len(speed), len(memory), len(accuracy)) == (12, 12, 3)
    for row in speed + memory + accuracy:
        assert row["verdict"] in judged, row
    # the article's own figures, measured back, agree with themselves
    assert {r["verdict"] for r in speed + memory + accuracy} == {"confirmed"}


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
