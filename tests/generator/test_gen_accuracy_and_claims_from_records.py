"""The accuracy page and the claims check say what their records show: repeats of one seed count once, the parity
tests' reach is stated as it is, the article agreeing with itself is not a confirmation, an epoch that includes the
compile is read from one compile-cache state, and notes follow the seeds and machines the records hold."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import gen_records
from one_page import page_alone, pages_undrawn
from test_gen_claims import ARTICLE, article_times, claims_of, write_article_runs

from fwbench.records import write_record
from generator.i18n import language
from generator.records.aggregate import summarise, tables
from generator.records.load import Loaded, load_results
from generator.records.machines import machines
from generator.verdicts import claims
from generator.verdicts.article import own_tables, setup_and_unsourced, snippets
from generator.verdicts.article.figures import order_holds
from generator.verdicts.article.machine import machine_claims
from generator.views.verdict_text import claim_text, text


def write(root, records):
    for index, record in enumerate(records):
        record = gen_records.with_changes(record, record_id=f"{record['record_id']}-r{index}")
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    return load_results(root)


def one_epoch(framework, accuracy, batch_size=32):
    """A quick-profile run of seed 0 (one epoch, 256 test images): every repeat shares the seed."""
    return gen_records.run(framework, batch_size, 0, epochs=1, accuracy=accuracy)


def accuracy_page(tmp_path, records, lang="en"):
    return page_alone(write(tmp_path, records), "results/accuracy.md", lang)


def test_repeats_of_one_seed_count_once_so_equal_counts_agree_whatever_the_repeats(tmp_path):
    # five PyTorch repeats and two JAX repeats of seed 0, each classifying 64 of 256 correctly
    page = accuracy_page(tmp_path, [one_epoch("torch", 0.25)] * 5 + [one_epoch("jax", 0.25)] * 2)
    assert "The frameworks classify as many test images correctly" in page
    assert "seed by seed: batch 32: 64." in page and "disagree" not in page
    assert "they do not show that the same images were right" in page  # counts, not per-image predictions
    assert "to the image" not in page


def test_a_frameworks_own_repeats_that_differ_are_shown_and_cannot_agree(tmp_path):
    runs = [one_epoch("torch", 0.25), one_epoch("torch", 0.2578125), one_epoch("jax", 0.25), one_epoch("jax", 0.25)]
    page = accuracy_page(tmp_path, runs)
    assert "batch 32 (seed 0): PyTorch 64/66; JAX 64 of 256 correct." in page
    assert "A count written 19/20 means that framework's own runs of one seed classified different numbers" in page


def test_the_disagreement_box_lists_only_the_batch_sizes_that_disagree(tmp_path):
    runs = [one_epoch(fw, 0.25) for fw in ("torch", "jax")] + [
        one_epoch("torch", 0.25, batch_size=64),
        one_epoch("jax", 0.2578125, batch_size=64),
    ]
    for lang, disagree, agree in (
        ("en", "batch 64 (seed 0): PyTorch 64; JAX 66 of 256 correct.", "at the other batch sizes: batch 32: 64."),
        (
            "zh",
            "批大小 64（种子 0）：PyTorch 64；JAX 66（共 256 张）答对。",
            "在其余批大小下，各框架答对的数量相同：批大小 32：64。",
        ),
    ):
        page = accuracy_page(tmp_path / lang, runs, lang)
        assert disagree in page and agree in page
        assert "batch 32 (seed 0)" not in page and "批大小 32（种子 0）" not in page


def test_the_parity_paragraph_says_what_the_parity_tests_prove_and_why_cpus_need_not_agree(tmp_path):
    page = accuracy_page(tmp_path, [one_epoch("torch", 0.25), one_epoch("jax", 0.2578125)])
    assert "should agree to the image on a CPU" not in page
    assert "in float32 compiled mode bounds the forward pass and the first update alone" in page
    assert "That does not make compiled runs classify the same images after training, on a CPU or a GPU" in page
    box = page[page.index("The frameworks disagree on some test images") :]
    assert "On a CPU the three make the same float32 arithmetic" not in box
    assert '!!! failure "The frameworks disagree' not in page  # expected rounding, not a failure
    zh = accuracy_page(tmp_path / "zh", [one_epoch("torch", 0.25), one_epoch("jax", 0.2578125)], "zh")
    assert "应当精确到每一张图像都一致" not in zh and "无论在 CPU 还是 GPU 上" in zh


def test_the_article_checked_against_itself_is_consistent_or_inconsistent_never_confirmed_or_contradicted(
    results_dir,
):
    internal = own_tables.internal_claims(ARTICLE) + snippets.code_size_claims(ARTICLE)
    assert {c.verdict for c in internal} == {claims.CONSISTENT, claims.INCONSISTENT}
    assert claims.self_consistent(claims.CONFIRMED) == claims.CONSISTENT
    assert claims.self_consistent(claims.CONTRADICTED) == claims.INCONSISTENT
    files = pages_undrawn(load_results(results_dir))
    page = files["appendix/claims.md"]
    rows = list(csv.DictReader(io.StringIO(files["data/claims.csv"])))
    own = [r for r in rows if r["scope"] == "the article against its own tables"]
    assert own and {r["verdict"] for r in own} == {claims.CONSISTENT, claims.INCONSISTENT}
    for verdict in (claims.CONFIRMED, claims.CONSISTENT, claims.CONTRADICTED, claims.INCONSISTENT):
        count = sum(r["verdict"] == verdict for r in rows)  # the page counts what the download holds
        assert count and f"{verdict}</span> | {count} |" in page
    # the verdicts page's findings of the article disagreeing with itself follow the new word
    assert "§3.1: the text and its own table disagree" in files["results/verdicts.md"]
    assert "JAX &lt; PyTorch &lt; TensorFlow (time) | order holds at 4 of 4" in page
    row = page[page.index("order holds at 4 of 4") :].splitlines()[0]
    assert "consistent with its own figures" in row and "confirmed" not in row


def test_an_epoch_with_the_compile_inside_is_compared_over_warm_runs_never_pooled_with_the_cold_one(tmp_path):
    results = write_article_runs(tmp_path, article_times({"torch": 1.0, "tensorflow": 1.0, "jax": 1.0}), jitter=0.05)
    for item in results.runs:  # seed 0 first, with empty caches and a 40 s compile inside its first epoch
        cold = item.record["config"]["seed"] == 0
        item.record["timing"]["compile_cache"] = "cold" if cold else "warm"
        item.record["timing"]["article_epoch_seconds"] += 40.0 / 5 if cold else 0.0
    row = claims_of(results)["PyTorch, batch 32: seconds per epoch"]
    assert row.verdict == claims.CONFIRMED, row  # pooled, the cold run's 8 s more would reach past the tolerance
    assert row.ours.startswith("43.") and row.ours.endswith("(95 % CI, n=4), warm compile caches")
    assert "over the runs with warm compile caches" in "; ".join(row.reason)
    (machine,) = machines(results.runs)
    with language("zh"):
        zh = {c.claim: c for c in map(claim_text, machine_claims(ARTICLE, machine, tables(summarise(results.runs))))}
    assert zh["PyTorch，批大小 32：每轮秒数"].ours.endswith("（95 % 置信区间，n=4），热编译缓存")


def test_the_seeds_note_follows_the_seeds_the_records_hold():
    def note(runs, lang="en"):
        with language(lang):
            return claim_text(setup_and_unsourced.seed_spread_claim(ARTICLE, runs)).reason

    def loaded(seeds, batch_size=32):
        records = [gen_records.run("torch", batch_size, seed) for seed in seeds]
        return [Loaded(Path(f"/r/{gen_records.CPU_MACHINE}/{batch_size}-{i}.json"), r) for i, r in enumerate(records)]

    one = note(loaded([0, 0, 0]))
    assert "fwbench repeats a configuration with different seeds" not in "; ".join(one)
    assert one[1] == (
        "each configuration in fwbench's records ran with a single seed, so its ± too is the run-to-run spread of one "
        "seed: the same kind as the article's"
    )
    assert "with several seeds, so its ± is the spread over seeds" in note(loaded([0, 1, 2]))[1]
    mixed = note(loaded([0, 0]) + loaded([0, 1], batch_size=64))[1]
    assert (
        mixed.startswith("of the configurations in fwbench's records, 1 ran with a single seed") and "1 with" in mixed
    )
    zh = "；".join(note(loaded([0, 0]), "zh"))
    assert "。；" not in zh and "fwbench 记录中的每个配置都只用了一个种子" in zh


def test_a_gpu_machine_with_older_records_only_is_named_as_such(tmp_path):
    records = [gen_records.run("torch", machine_id="nvidia-h200", older=True), gen_records.run("jax")]
    for record in records:
        machine = record["hardware"]["machine_id"]
        write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    runs = load_results(tmp_path).runs
    row = claim_text(setup_and_unsourced.gpu_stack_claim(ARTICLE, runs))
    assert (
        row.verdict == claims.NOT_COMPARABLE and row.ours == "no judgeable GPU run (only older records on nvidia-h200)"
    )
    cpu_only = claim_text(
        setup_and_unsourced.gpu_stack_claim(ARTICLE, [r for r in runs if r.machine_id != "nvidia-h200"])
    )
    assert cpu_only.ours == f"no GPU run record (runs on {gen_records.CPU_MACHINE})"


def test_a_notes_command_renders_as_code_while_captured_text_stays_escaped(results_dir):
    shutil.rmtree(results_dir / "ecosystem")  # without a snapshot, section 6's rows say how to make one
    probe = gen_records.probe("jax", message="shapes `(8, 128)` and <b>(64,)</b> differ")
    write_record(results_dir / "probes" / gen_records.CPU_MACHINE / f"{probe['record_id']}.json", probe)
    page = page_alone(load_results(results_dir), "appendix/claims.md")
    assert "(`ecosystem collect --out results/ecosystem` makes one)" in page
    assert "&#96;ecosystem collect" not in page
    assert "shapes &#96;(8, 128)&#96; and &lt;b&gt;(64,)&lt;/b&gt; differ" in page and "<b>" not in page
    assert "<script>" not in page


def test_a_ranking_that_holds_nowhere_says_none_in_each_language():
    assert text(order_holds(2, 4)) == "order of the means holds at 2 of 4 batch sizes with all three"
    assert text(order_holds(0, 4)) == "order of the means holds at none of the 4 batch sizes with all three"
    assert text(order_holds(0, 0)) == "no batch size has a figure for all three"
    with language("zh"):
        assert text(order_holds(0, 2)) == "在三者都有数据的 2 个批大小中，均值排序无一相符"
        assert text(order_holds(1, 2)) == "在三者都有数据的 2 个批大小中，均值排序有 1 个相符"
        assert "0 个" not in text(order_holds(0, 0))
