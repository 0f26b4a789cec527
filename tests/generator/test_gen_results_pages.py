"""The results pages read honestly: an accuracy means something only after enough training, the frameworks
agree to the image, a known platform issue is sized from the records, and charts draw each framework alike."""

from __future__ import annotations

import gen_records
from matplotlib import rc_context
from one_page import page_alone, pages_undrawn

from fwbench.frameworks import REGISTRY
from fwbench.records import write_record
from generator.message import parts
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.accuracy import diverged, image_agreement, undertrained
from generator.views import chart_data, charts
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
    page = page_alone(results, "results/accuracy.md")
    assert "Not trained long enough to mean anything" in page and "training works" not in page
    assert "256 test images" in page  # the test set's size, stated
    assert "charts/test_accuracy" not in page and "Per-epoch figures" not in page  # one epoch: no curve


def test_a_test_loss_far_above_a_uniform_guess_is_flagged_diverged_not_undertrained(tmp_path):
    blown = one_epoch("torch", 256, 0.1171875, loss=7.70)  # as the quick profile's batch 256 records it on a CPU
    blown["accuracy"]["epochs"][0]["test_loss"] = 216840.09
    blown["training"] = {"first_losses": [2.39, 4.31, 8.39, 12.11]}
    recovered = one_epoch("jax", 256, 0.22, loss=6.05)  # its epoch's mean loss high, its test loss below ln 10
    recovered["accuracy"]["epochs"][0]["test_loss"] = 1.96
    results = write(tmp_path, [blown, recovered])
    (table,) = tables(summarise(results.runs))
    torch, jax = (table.cell(fw, "compiled", 256) for fw in ("torch", "jax"))
    assert text(parts(diverged(torch, 10))) == (
        "training loss 7.70, more than 2 × ln 10 = 4.61; test loss 216840.09, more than 2 × ln 10 = 4.61; "
        "the loss rose over the first 4 steps, from 2.39 to 12.11"
    )
    assert undertrained(torch, 10) == () and diverged(jax, 10) == ()
    assert text(parts(undertrained(jax, 10))) == "training loss 6.05, not below ln 10 = 2.30"
    page = page_alone(results, "results/accuracy.md")
    flagged = page[page.index('!!! failure "Diverged"') : page.index("Not trained long enough to mean anything")]
    assert "1 configuration ended with a test loss far above a uniform guess's" in flagged
    assert "- PyTorch compiled, batch 256: training loss 7.70" in flagged and "JAX" not in flagged
    assert "⚠ diverged" in page and "- JAX compiled, batch 256: training loss 6.05" in page


def test_the_frameworks_agree_to_the_image_or_the_page_says_where_not(tmp_path):
    # trained past chance and the uniform loss: a table of its own, not folded with the untrained ones
    same = write(tmp_path / "same", [one_epoch(fw, 32, 0.25, loss=1.5) for fw in ("torch", "tensorflow", "jax")])
    (table,) = tables(summarise(same.runs))
    (agreement,) = image_agreement(table)
    assert agreement.agree and agreement.counts["JAX"] == ((64,),) and agreement.test_images == 256
    assert "The frameworks classify as many test images correctly" in page_alone(same, "results/accuracy.md")
    differ = write(
        tmp_path / "differ", [one_epoch("torch", 32, 0.25, loss=1.5), one_epoch("jax", 32, 0.2578125, loss=1.5)]
    )
    page = page_alone(differ, "results/accuracy.md")
    assert "The frameworks disagree on some test images" in page
    assert "batch 32 (seed 0): PyTorch 64; JAX 66 of 256 correct" in page


def test_two_epochs_draw_the_curves(tmp_path):
    results = write(tmp_path, [gen_records.run(fw, 32, epochs=2) for fw in ("torch", "jax")])
    files = pages_undrawn(results)
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
    page = page_alone(results, "results/platform-issues.md")
    assert "**Measured size.** no verdict (n = 1), from the run records:" in page  # one run each way: no size
    assert "| 32 | 42.7<br><small>n=1</small> | 128.0<br><small>n=1</small> | no verdict (n = 1) |" in page
    assert "`python benchmarks/investigations/platform_issues/xla_cpu_conv.py`" in page
    assert "`XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=`" in page
    unmeasured = page_alone(write(tmp_path / "plain", [gen_records.run("jax", 32)]), "results/platform-issues.md")
    assert "not measured yet" in unmeasured


def test_a_tuned_table_says_which_frameworks_ran_without_its_tuning_not_that_they_never_ran(tmp_path):
    tuned = gen_records.with_changes(gen_records.run("jax", 32, seconds=4.0), record_id="jax-tuned-32")
    tuned["config"]["tuning_environment"] = YNN_OFF
    plain = [gen_records.run(fw, 32) for fw in ("torch", "tensorflow", "jax")]
    page = page_alone(write(tmp_path, [*plain, tuned]), "results/speed.md")
    tuned_section = page[page.index("tuned: XLA_FLAGS=") :]
    assert "PyTorch and TensorFlow: no run with this tuning, so this table has no column for it." in tuned_section
    assert "no run on this machine" not in page  # both ran here, out of the box


def test_charts_take_each_frameworks_colour_and_marker_from_the_registry(tmp_path):
    results = write(tmp_path, [gen_records.run(fw, 32) for fw in ("torch", "tensorflow", "jax")])
    (table,) = tables(summarise(results.runs))
    chart = chart_data.per_batch(table, lambda s: s.images_per_second, "images per second")
    assert [(s.colour, s.marker) for s in chart.series] == [
        (REGISTRY[fw].colour, REGISTRY[fw].marker) for fw in ("torch", "tensorflow", "jax")
    ]


def test_a_chart_from_zero_leaves_room_above_its_highest_point_and_error_bar():
    # the versions chart of PyTorch on 846125: four points between 25.7 and 28.5 img/s, the highest cut by the frame
    line = charts.Series("bs 32", "#E69F00", "o", "-", ((0, 27.2, 0.0), (1, 28.5, 0.0)))
    other = charts.Series("bs 256", "#56B4E9", "s", "--", ((0, 28.0, 0.4), (1, 25.6, 0.0)))
    chart = charts.Chart(
        "version", "version", "images per second", (line, other), from_zero=True, categories=("a", "b")
    )
    with rc_context(charts.THEME):
        bottom, top = charts.figure_of(chart).axes[0].get_ylim()
    assert bottom == 0 and top >= 28.5 * 1.05


def test_eager_mode_shows_first_step_overhead_not_a_compile_time(tmp_path):
    records = [gen_records.run("torch", 32), gen_records.run("torch", 32, mode="eager", compile_seconds=0.8)]
    page = page_alone(write(tmp_path, records), "results/speed.md")
    assert "**Compile time, cold caches** (compiled mode)" in page
    assert "**First-step overhead, cold caches** (eager mode)" in page  # eager compiles nothing
    assert "**Compile time, cold caches** (eager mode)" not in page
