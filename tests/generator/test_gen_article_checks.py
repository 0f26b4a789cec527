"""The article's remaining figures: transcribed, and checked against its own text, the probes and the runs."""

from __future__ import annotations

from pathlib import Path

import probe_records
import pytest
from one_page import page_alone

from generator.i18n import language
from generator.records.load import Loaded, Results, load_results
from generator.verdicts.article import own_tables
from generator.verdicts.article import probes as probe_claims
from generator.verdicts.article import setup_and_unsourced as article_checks
from generator.verdicts.article.ecosystem import ecosystem_gap_claims
from generator.verdicts.claims import (
    CONFIRMED,
    CONSISTENT,
    CONTRADICTED,
    INCONSISTENT,
    NOT_COMPARABLE,
    VERDICTS,
    Claim,
    load_article_figures,
)
from generator.views.verdict_text import claim_text


@pytest.fixture(scope="module")
def article():
    return load_article_figures()


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """One machine's probe records in today's releases and the article's (``probe_records``), loaded as the site
    loads them."""
    return load_results(probe_records.write_machine(tmp_path_factory.mktemp("results"), article=True), strict=True)


def run(
    framework="torch",
    version="2.2.1",
    *,
    dataset="cifar10",
    train=50000,
    test=10000,
    seed=42,
    accuracy=0.92,
    gpu=True,
    busy=False,
) -> Loaded:
    """A run record with the fields these checks read."""
    record = {
        "status": "ok",
        "framework": {"name": framework, "version": version, "mode": "compiled"},
        "config": {
            "profile": "article",
            "precision": "default",
            "dataset": dataset,
            "train_images": train,
            "test_images": test,
            "batch_size": 128,
            "epochs": 5,
            "seed": seed,
        },
        "hardware": {
            "machine_id": "gpu-box",
            "device_kind": "gpu" if gpu else "cpu",
            "gpu_driver": "535.129.03",
            "cuda": "12.2",
            "cudnn": "8.9.7",
        },
        "accuracy": {"final_test_accuracy": accuracy},
        "load": {"busy": busy},
    }
    return Loaded(path=Path(f"/r/{framework}-{seed}-{accuracy}.json"), record=record)


def by_claim(rows: list[Claim]) -> dict[str, Claim]:
    """The rows worded in English, by their claim."""
    worded = [claim_text(row) for row in rows]
    return {row.claim: row for row in worded}


def test_every_row_is_a_claim_with_a_known_verdict_and_its_conditions(article, probes):
    rows = article_checks.article_claims(article, probes)
    assert rows and all(isinstance(row, Claim) for row in rows)
    assert all(row.verdict in VERDICTS and row.conditions for row in rows)


def test_the_introductions_3090_is_inconsistent_with_the_setups_4090(article):
    row = claim_text(article_checks.gpu_mentions_claim(article))
    assert row.verdict == INCONSISTENT
    assert "RTX 3090" in row.article and "RTX 4090" in row.article


def test_messages_are_compared_by_wording_with_the_sizes_as_placeholders(article, probes):
    rows = by_claim(probe_claims.message_claims(article, probes.probes))
    torch_eager = rows["PyTorch (eager): the message for the shape bug"]
    assert torch_eager.verdict == CONFIRMED
    assert torch_eager.ours == "mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)"
    assert rows["PyTorch (compiled): the message for the shape bug"].verdict == CONTRADICTED  # Dynamo's wording
    assert rows["TensorFlow (eager): the message for the shape bug"].verdict == CONTRADICTED  # Keras's input check
    jax = rows["JAX (eager): the message for the shape bug"]
    assert jax.verdict == CONTRADICTED and "raised as TypeError, not ValueError" in "; ".join(jax.reason)
    assert "mode: eager" in jax.conditions


def test_the_rows_read_the_articles_versions_with_todays_message_where_it_changed(article, probes):
    found = probe_claims.message_claims(article, probes.probes)
    assert len(found) == 6  # one per framework and mode: the article-version probes, on the one machine that ran them
    rows = by_claim(found)
    keras = rows["TensorFlow (eager): the message for the shape bug"]
    assert "TensorFlow 2.15.0" in keras.conditions and "with keras 2.15.0, numpy 1.26.4" in keras.conditions
    assert keras.ours.startswith('Input 0 of layer "head" is incompatible with the layer')  # tf.keras 2.15's
    (changed,) = [reason for reason in keras.reason if reason.startswith("changed since: TensorFlow 2.21.0")]
    assert "Input 0 with name 'None' of layer 'head'" in changed  # Keras 3's
    jax = rows["JAX (eager): the message for the shape bug"]
    assert "JAX 0.4.26" in jax.conditions and not any("changed since" in reason for reason in jax.reason)
    assert not any("the probe ran" in reason for row in rows.values() for reason in row.reason)


def test_without_article_version_probes_the_rows_read_todays_and_name_the_release(article, probes):
    today = [p for p in probes.probes if not p.record.get("environment")]
    rows = by_claim(probe_claims.message_claims(article, today))
    jax = rows["JAX (eager): the message for the shape bug"]
    assert "the article 0.4.26" in "; ".join(jax.reason) and "JAX 0.10.2" in jax.conditions


def test_a_probe_without_an_error_has_no_message_to_compare(article, probes):
    silent = next(p for p in probes.probes if p.record["record_id"] == "dtype-jax-eager")
    record = {**silent.record, "bug": "dense_shape"}
    (row,) = map(claim_text, probe_claims.message_claims(article, [Loaded(path=silent.path, record=record)]))
    assert row.verdict == NOT_COMPARABLE and "silently cast" in "; ".join(row.reason)


def test_tensorflows_200_line_stack_against_the_captured_tracebacks(article, probes):
    rows = by_claim(probe_claims.traceback_claims(article, probes.probes))
    eager = rows["TensorFlow (eager): the error stack for the shape bug is about 200 lines long"]
    assert eager.verdict == CONTRADICTED
    assert eager.ours == "24 lines (same probe: PyTorch 29, JAX 22)"
    assert "TensorFlow 2.15.0" in eager.conditions
    assert rows["TensorFlow (compiled): the error stack for the shape bug is about 200 lines long"].ours.startswith(
        "46 lines"
    )


def test_stated_line_counts_against_the_articles_own_snippets(article):
    rows = by_claim(article_checks.code_size_claims(article))
    assert rows["PyTorch: the snippet's length"].verdict == INCONSISTENT  # 12 stated, 8 (10) counted
    assert rows["TensorFlow: the snippet's length"].verdict == CONSISTENT  # 10 stated, 10 with layout
    assert rows["JAX: the snippet's length"].verdict == INCONSISTENT  # 15 stated, 9 (11) counted
    longest = rows["JAX's snippet is the longest"]
    assert longest.verdict == CONSISTENT and "restored with one statement per line" in "; ".join(longest.reason)


def test_the_unsourced_paper_share_cannot_be_checked(article):
    (row,) = map(claim_text, article_checks.unsourced_claims(article))
    assert (row.section, row.verdict) == ("5.1", NOT_COMPARABLE)
    assert "70 %" in row.article and "no source" in "; ".join(row.reason)


def test_section_6_says_no_snapshot_and_leaves_a_snapshot_to_ecosystem_claims(article):
    rows = [claim_text(row) for row in ecosystem_gap_claims(article, None)]
    gaps = [row for row in rows if row.reason[0].startswith("no snapshot")]  # the rest: the 4.3 and 6.3 statements
    assert [row.section for row in gaps] == ["6.1", "6.1", "6.3"]
    assert all(row.verdict == NOT_COMPARABLE for row in rows)
    assert ecosystem_gap_claims(article, Loaded(Path("s.json"), {})) == []


def test_versions_are_stated_beside_the_records_and_flagged_runs_do_not_count(article):
    at_article = [run(fw, v) for fw, v in (("torch", "2.2.1+cu121"), ("tensorflow", "2.15.0"), ("jax", "0.4.26"))]
    assert article_checks.versions_claim(article, at_article, []).verdict == CONFIRMED
    newer = claim_text(article_checks.versions_claim(article, [run("torch", "2.14.1")], []))
    assert newer.verdict == NOT_COMPARABLE and "runs: PyTorch 2.14.1" in newer.ours
    busy = [run(fw, v, busy=True) for fw, v in (("torch", "2.2.1"), ("tensorflow", "2.15.0"), ("jax", "0.4.26"))]
    flagged = claim_text(article_checks.versions_claim(article, busy, []))
    assert flagged.verdict == NOT_COMPARABLE and "3 flagged run records" in "; ".join(flagged.reason)


def test_gpu_stack_and_data_set_size_against_the_runs(article):
    assert article_checks.gpu_stack_claim(article, [run()]).verdict == CONFIRMED
    assert article_checks.gpu_stack_claim(article, [run(gpu=False)]).verdict == NOT_COMPARABLE
    assert article_checks.dataset_claim(article, [run()]).verdict == CONFIRMED
    synthetic = claim_text(article_checks.dataset_claim(article, [run(dataset="synthetic", train=256, test=128)]))
    assert synthetic.verdict == NOT_COMPARABLE and synthetic.ours == "synthetic: 256 training + 128 test images"


def test_the_plus_minus_is_same_seed_nondeterminism_and_says_so(article):
    assert "not the spread over seeds" in article["seeding"]["note"]
    over_seeds = claim_text(article_checks.seed_spread_claim(article, [run(seed=s) for s in range(5)]))
    assert over_seeds.verdict == NOT_COMPARABLE and article["seeding"]["note"] in "; ".join(over_seeds.reason)
    tight = claim_text(article_checks.seed_spread_claim(article, [run(accuracy=a) for a in (0.920, 0.921, 0.922)]))
    assert tight.verdict == CONFIRMED and tight.ours == "PyTorch ±0.10 (n=3)"
    loose = article_checks.seed_spread_claim(article, [run(accuracy=a) for a in (0.910, 0.920, 0.930)])
    assert loose.verdict == CONTRADICTED


def test_the_same_seed_spread_is_read_at_the_bounds_precision_as_the_articles_own_table(article):
    # the stated 0.2 stands for anything up to 0.25: a spread of 0.24 is within it, 0.26 beyond
    within = claim_text(article_checks.seed_spread_claim(article, [run(accuracy=a) for a in (0.9176, 0.92, 0.9224)]))
    assert within.verdict == CONFIRMED and within.ours == "PyTorch ±0.24 (n=3)"
    assert "against the bound at its precision: 0.2 stands for anything up to 0.25." in within.reason[0]
    beyond = article_checks.seed_spread_claim(article, [run(accuracy=a) for a in (0.9174, 0.92, 0.9226)])
    assert beyond.verdict == CONTRADICTED
    for spread, verdict in ((0.24, CONSISTENT), (0.26, INCONSISTENT)):  # its own table by the same rule
        table = {**article["accuracy"], "table": {"torch": {"mean": 92.4, "std": spread}}}
        assert own_tables.internal_claims({**article, "accuracy": table})[-1].verdict == verdict
    both = [run(fw, accuracy=a) for fw in ("torch", "jax") for a in (0.9176, 0.92, 0.9224)]
    with language("zh"):
        assert (
            claim_text(article_checks.seed_spread_claim(article, both)).ours == "PyTorch ±0.24（n=3）、JAX ±0.24（n=3）"
        )


def test_the_claims_page_shows_the_rows_under_their_sections_and_scope(probes):
    page = page_alone(Results(root=probes.root, probes=probes.probes), "appendix/claims.md")
    assert "## §4.1 Debugging" in page and f"**{article_checks.SCOPE}**" in page
    assert "the ± is the spread of 5 runs with one seed (42)" in page
