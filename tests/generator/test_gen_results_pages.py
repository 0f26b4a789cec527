"""The results pages read honestly: an accuracy means something only after enough training, the frameworks
agree to the image, a known platform issue is sized from the records, and charts draw each framework alike."""

from __future__ import annotations

import gen_records

from fwbench.frameworks import REGISTRY
from fwbench.records import write_record
from generator.build.render import build_pages
from generator.message import parts
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.accuracy import image_agreement, undertrained
from generator.views import chart_data
from generator.views.verdict_text import text

YNN_OFF = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}


def write(root, records):
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def one_epoch(framework, batch_size, accuracy, loss=2.5):
    record = gen_records.run(framework, batch_size, epochs=1, accuracy=accuracy)
    record["accuracy"]["epochs"][0]["train_loss"] = loss
    return record


def test_below_chance_or_above_the_uniform_loss_is_flagged_and_never_called_working(tmp_path):
    results = write(tmp_path, [one_epoch("torch", 32, 0.078125), one_epoch("jax", 32, 0.5, loss=1.2)])
    (table,) = tables(summarise(results.runs))
    torch, jax = (table.cell(fw, "compiled", 32) for fw in ("torch", "jax"))
    why = text(parts(undertrained(torch, 10)))
    assert "at or below chance (10%)" in why and "not below ln 10 = 2.30" in why
    assert undertrained(jax, 10) == ()
    page = build_pages(results)["results/accuracy.md"]
    assert "Not trained long enough to mean anything" in page and "training works" not in page
    assert "256 test images" in page  # the test set's size, stated
    assert "charts/test_accuracy" not in page and "Per-epoch figures" not in page  # one epoch: no curve


def test_the_frameworks_agree_to_the_image_or_the_page_says_where_not(tmp_path):
    same = write(tmp_path / "same", [one_epoch(fw, 32, 0.25) for fw in ("torch", "tensorflow", "jax")])
    (table,) = tables(summarise(same.runs))
    (agreement,) = image_agreement(table)
    assert agreement.agree and agreement.counts["JAX"] == (64,) and agreement.test_images == 256
    assert "The frameworks agree to the image" in build_pages(same)["results/accuracy.md"]
    differ = write(tmp_path / "differ", [one_epoch("torch", 32, 0.25), one_epoch("jax", 32, 0.2578125)])
    page = build_pages(differ)["results/accuracy.md"]
    assert "The frameworks disagree on some test images" in page and "PyTorch 64; JAX 66 of 256 correct" in page


def test_two_epochs_draw_the_curves(tmp_path):
    results = write(tmp_path, [gen_records.run(fw, 32, epochs=2) for fw in ("torch", "jax")])
    files = build_pages(results)
    assert any(path.startswith("charts/test_accuracy-") for path in files)
    assert "Per-epoch figures" in files["results/accuracy.md"]


def test_the_platform_issue_is_sized_from_the_tuned_and_plain_runs(tmp_path):
    tuned = [
        gen_records.with_changes(gen_records.run("jax", bs, seconds=s), record_id=f"jax-tuned-{bs}")
        for bs, s in ((32, 4.0), (64, 5.0))
    ]
    for record in tuned:
        record["config"]["tuning_environment"] = YNN_OFF
    results = write(
        tmp_path, [gen_records.run("jax", 32, seconds=12.0), gen_records.run("jax", 64, seconds=12.5), *tuned]
    )
    page = build_pages(results)["results/platform-issues.md"]
    assert "**Measured size.** no verdict (n = 1), from the run records:" in page  # one run each way: no size
    assert "| 32 | 42.7<br><small>n=1</small> | 128.0<br><small>n=1</small> | no verdict (n = 1) |" in page
    assert "`python benchmarks/xla_cpu_conv.py`" in page
    assert "`XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=`" in page
    unmeasured = build_pages(write(tmp_path / "plain", [gen_records.run("jax", 32)]))["results/platform-issues.md"]
    assert "not measured yet" in unmeasured


def test_charts_take_each_frameworks_colour_and_marker_from_the_registry(tmp_path):
    results = write(tmp_path, [gen_records.run(fw, 32) for fw in ("torch", "tensorflow", "jax")])
    (table,) = tables(summarise(results.runs))
    chart = chart_data.per_batch(table, lambda s: s.images_per_second, "images per second")
    assert [(s.colour, s.marker) for s in chart.series] == [
        (REGISTRY[fw].colour, REGISTRY[fw].marker) for fw in ("torch", "tensorflow", "jax")
    ]
