"""A configuration's identity includes the framework's version: two versions are never seeds of one
configuration, a table that holds both shows each, and the claims check compares the article's release."""

from __future__ import annotations

import gen_records

from fwbench.records import write_record
from generator.aggregate import summarise, tables
from generator.claims import load_article_figures
from generator.load import load_results
from generator.machine_claims import machine_claims
from generator.machines import machines
from generator.render import build_pages


def at_version(record: dict, version: str) -> dict:
    changed = gen_records.with_changes(record, record_id=f"{record['record_id']}-{version.replace('+', '-')}")
    changed["framework"]["version"] = version
    return changed


def write(root, records):
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def test_two_versions_are_two_configurations_and_two_columns(tmp_path):
    results = write(
        tmp_path,
        [
            *(gen_records.run("torch", 32, seed, seconds=10.0) for seed in range(2)),
            *(at_version(gen_records.run("torch", 32, seed, seconds=20.0), "2.2.1") for seed in range(2)),
            gen_records.run("jax", 32, seconds=12.0),
        ],
    )
    summaries = summarise(results.runs)
    torch = [s for s in summaries if s.key.framework == "torch"]
    assert sorted((s.key.version, s.n_runs, s.epoch_seconds.mean) for s in torch) == [
        ("2.14.1", 2, 10.0),
        ("2.2.1", 2, 20.0),
    ]
    (table,) = tables(summaries)
    assert [table.column_label(c) for c in table.columns] == ["PyTorch 2.2.1", "PyTorch 2.14.1", "JAX"]
    assert table.cell("torch", "compiled", 32).key.version == "2.14.1"  # the newest, unless asked
    assert table.cell("torch", "compiled", 32, version="2.2.1").epoch_seconds.mean == 20.0
    speed = build_pages(results)["results/speed.md"]
    assert "| batch | PyTorch 2.2.1 | PyTorch 2.14.1 | JAX |" in speed


def test_the_claims_check_compares_the_articles_release_and_names_the_other(tmp_path):
    article = load_article_figures()
    results = write(
        tmp_path,
        [
            gen_records.run("torch", 32, seconds=10.0),
            at_version(gen_records.run("torch", 32, seconds=20.0), "2.2.1+cu121"),
        ],
    )
    (machine,) = machines(results.runs)
    rows = {c.claim: c for c in machine_claims(article, machine, tables(summarise(results.runs)))}
    row = rows["PyTorch, batch 32: seconds per epoch"]
    assert row.ours.startswith("20.0 s")  # the article's 2.2.1, not the newer 2.14.1
    assert "also measured, not compared here: PyTorch 2.14.1" in row.reason
