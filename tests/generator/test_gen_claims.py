"""The claims check computes its verdicts from the article's figures and the records."""

from __future__ import annotations

import gen_records
import pytest

from fwbench.records import write_record
from generator import claims
from generator.aggregate import machines, summarise, tables
from generator.load import Loaded, load_results

ARTICLE = claims.load_article_figures()


def by_claim(rows):
    return {c.claim: c for c in rows}


def test_internal_speedup_inconsistency_is_computed():
    rows = by_claim(claims.internal_claims(ARTICLE))
    torch = rows["PyTorch speed-up from batch 32 to 256"]
    assert torch.verdict == claims.CONTRADICTED
    assert "3.92×" in torch.ours  # 42.3 / 10.8
    assert rows["TensorFlow speed-up from batch 32 to 256"].verdict == claims.CONFIRMED
    assert rows["every standard deviation is within 0.2 points"].verdict == claims.CONTRADICTED  # TF's ±0.21


def test_verdict_helpers():
    assert claims.within_relative(11.0, 10.0, 0.15) == claims.CONFIRMED
    assert claims.within_relative(12.0, 10.0, 0.15) == claims.CONTRADICTED
    assert claims.within_absolute(92.0, 92.43, 1.0) == claims.CONFIRMED
    assert claims.ranking({"a": 3, "b": 1, "c": 2}) == ["b", "c", "a"]


def test_cpu_measurements_are_not_comparable_with_the_gpu_article(results_dir):
    loaded = load_results(results_dir)
    summaries = summarise(loaded.runs)
    (machine,) = machines(loaded.runs)
    rows = claims.machine_claims(ARTICLE, machine, tables(summaries))
    speed = by_claim(rows)["PyTorch, batch 32: seconds per epoch"]
    assert speed.verdict == claims.NOT_COMPARABLE and "CPU" in speed.reason
    assert speed.ours == "10.1 s"
    assert by_claim(rows)["PyTorch, batch 128: seconds per epoch"].ours == "failed: 1 OOM"
    accuracy = by_claim(rows)["PyTorch final test accuracy over 5 runs"]
    assert accuracy.verdict == claims.NOT_COMPARABLE and "synthetic" in accuracy.reason


@pytest.fixture
def gpu_results(tmp_path):
    """CIFAR-10 runs on an RTX 4090 following the article's protocol: torch matches, jax is far slower."""
    seconds = {"torch": 42.0, "tensorflow": 48.0, "jax": 80.0}
    for fw, secs in seconds.items():
        for seed in range(5):
            record = gen_records.run(
                fw,
                32,
                seed,
                seconds=secs,
                accuracy=0.924,
                machine_id=gen_records.GPU_MACHINE,
                dataset="cifar10",
                images_per_epoch=50000,
                epochs=5,
                nvml=2148 * 2**20,
            )
            write_record(tmp_path / "runs" / gen_records.GPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(tmp_path)


def test_same_gpu_and_protocol_is_compared(gpu_results):
    summaries = summarise(gpu_results.runs)
    (machine,) = machines(gpu_results.runs)
    rows = by_claim(claims.machine_claims(ARTICLE, machine, tables(summaries)))
    assert rows["PyTorch, batch 32: seconds per epoch"].verdict == claims.CONFIRMED
    assert rows["JAX, batch 32: seconds per epoch"].verdict == claims.CONTRADICTED
    assert rows["PyTorch, batch 32: peak GPU memory (NVML)"].verdict == claims.CONFIRMED
    assert rows["PyTorch final test accuracy over 5 runs"].verdict == claims.CONFIRMED
    assert rows["PyTorch, batch 64: seconds per epoch"].verdict == claims.NOT_COMPARABLE  # not run
    ranking = rows[ARTICLE["speed"]["stated_ranking_text"]]
    assert ranking.verdict == claims.CONTRADICTED  # JAX is slowest here


def test_ecosystem_window_mismatch_is_not_comparable():
    snap = gen_records.snapshot(window=30)
    rows = by_claim(claims.ecosystem_claims(ARTICLE, Loaded(path=None, record=snap)))
    assert rows["[pytorch] questions in the past year"].verdict == claims.NOT_COMPARABLE
    assert "30 days" in rows["[pytorch] questions in the past year"].reason
    yearly = by_claim(claims.ecosystem_claims(ARTICLE, Loaded(path=None, record=gen_records.snapshot())))
    assert yearly["[pytorch] questions in the past year"].verdict == claims.CONTRADICTED  # 9,000 vs 142,000+
    assert yearly["[pytorch] time to first answer"].verdict == claims.NOT_COMPARABLE  # mean vs median
    assert yearly["order of first-answer times"].verdict == claims.CONFIRMED
    assert yearly["[jax-ml/jax] GitHub star growth per year"].verdict == claims.CONTRADICTED
    assert claims.ecosystem_claims(ARTICLE, None) == []
