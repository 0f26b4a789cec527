"""The accuracy page says in one line where no run trained long enough to mean anything, with the command whose runs
would, and folds those tables' figures; a table where some run means something stays in full."""

from __future__ import annotations

from pathlib import Path

import gen_records
import pytest
from one_page import page_alone

from fwbench.records import write_record
from generator.records.load import load_results
from generator.site.accuracy import TRAINS_LONG_ENOUGH
from runners.measure.profiles import expand

PAGE = "results/accuracy.md"
TRAINED = "cpu-trained-cpu-2t-2b3c4d"


def one_epoch_runs() -> list[dict]:
    """The quick profile's one epoch on the test CPU, as ``runners.measure.record`` writes it: a test accuracy at
    chance."""
    records = []
    for framework in ("torch", "jax"):
        (config,) = expand(
            "quick",
            frameworks=[framework],
            modes=["compiled"],
            batch_sizes=[32],
            seeds=[0],
            device="cpu",
            version_of=gen_records.VERSIONS.get,
        )
        records.append(gen_records.as_recorded(config, gen_records.one_epoch(config, 300.0), ["runners", "matrix"]))
    return records


def build(root: Path, records: list[dict]) -> dict[str, str]:
    for record in records:
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    results = load_results(root)
    return {language: page_alone(results, PAGE, language) for language in ("en", "zh")}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    trained = [
        gen_records.run(fw, 32, seed, accuracy=0.6, machine_id=TRAINED) for fw in ("torch", "jax") for seed in (0, 1)
    ]
    return build(tmp_path_factory.mktemp("accuracy"), one_epoch_runs() + trained)


def test_untrained_tables_are_one_line_with_the_command_that_would_train(pages):
    page = " ".join(pages["en"].split())
    line = page.split('!!! warning "Not trained long enough to mean anything" ', 1)[1].split(" ??? note", 1)[0]
    machine = "Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)"
    assert line.startswith(f"On {machine}, no run trained long enough")
    assert "(1 table)" in line and f"`{TRAINS_LONG_ENOUGH}` trains long enough (CIFAR-10, 5 epochs, 5 seeds)." in line
    assert page.count("### Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 1a2b3c)") == 0  # no section of its own
    assert '??? note "Their figures all the same"' in page  # folded below, not lost
    assert "⚠ not trained long enough" in page


def test_a_table_that_trained_stays_in_full(pages):
    page = pages["en"]
    assert "### Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint 2b3c4d)" in page
    assert page.count("Not trained long enough to mean anything") == 1


def test_the_line_reads_in_chinese(pages):
    assert "没有一次运行训练得足够充分" in pages["zh"] and f"`{TRAINS_LONG_ENOUGH}` 的训练足够充分" in pages["zh"]


def test_nothing_collapses_where_every_table_trained(tmp_path):
    trained = [gen_records.run(fw, 32, seed, accuracy=0.6) for fw in ("torch", "jax") for seed in (0, 1)]
    page = build(tmp_path, trained)["en"]
    assert "Not trained long enough to mean anything" not in page and TRAINS_LONG_ENOUGH not in page
