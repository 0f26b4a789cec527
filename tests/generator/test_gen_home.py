"""The verdicts by machine, which the home page answers from: every framework in each table, the verdict by the noise
rules (a leader and the gap to it only with a margin), compile time and its pay-off, and findings computed from
records and the article's figures."""

from __future__ import annotations

import gen_records
import probe_records
from one_page import page_alone

from fwbench.records import write_record
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.leads import leads_by_batch
from generator.views.headline import compile_rows, payoff, throughput_rows

YNN_OFF = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}


def write(root, records):
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return load_results(root)


def only_table(results):
    (table,) = tables(summarise(results.runs))
    return table


def test_the_first_table_holds_all_three_frameworks_and_no_leader_from_one_run(tmp_path):
    results = write(
        tmp_path,
        [gen_records.run(fw, 32, seconds=s) for fw, s in (("torch", 10.0), ("tensorflow", 12.5), ("jax", 40.0))],
    )
    index = page_alone(results, "results/verdicts.md")
    first = index[index.index("| batch |") :]
    assert first.startswith("| batch | PyTorch | TensorFlow | JAX | verdict |")
    row = first.splitlines()[2]
    cells = "| 32 | 51.2<br><small>n=1</small> | 41.0<br><small>n=1</small> | 12.8<br><small>n=1</small> |"
    assert row == f"{cells} undecided at n = 1 |"  # no bold, no "fastest", no gaps from one run each
    assert "one epoch here is 512 synthetic images; the article's is 50,000 CIFAR-10 images" in index


def test_figures_within_five_percent_round_by_round_read_about_equal(tmp_path):
    results = write(
        tmp_path,
        [
            gen_records.run(fw, 32, seed, seconds=10.0 + seed + shift)
            for fw, shift in (("torch", 0.0), ("jax", 0.3))
            for seed in range(3)
        ],
    )
    table = only_table(results)
    (row,) = throughput_rows(table, table.columns_in("compiled"), leads_by_batch(table))
    assert row.verdict == "about equal (within 5 %), in one sitting" and "**" not in "".join(row.cells)


def test_compiling_pays_off_only_against_an_eager_run_apart_from_it(tmp_path):
    runs = [
        ("torch", 10.0, 41.0, "compiled"),
        ("torch", 30.0, 1.0, "eager"),
        ("tensorflow", 12.0, 3.0, "compiled"),
        ("jax", 11.0, 3.0, "compiled"),
    ]
    one = only_table(
        write(tmp_path / "one", [gen_records.run(fw, 32, seconds=s, compile_seconds=c, mode=m) for fw, s, c, m in runs])
    )
    rows, _notes = compile_rows(one, one.columns_in("compiled"))
    assert "no measurable pay-off (n = 1)" in rows[0].cells[0]  # one run each: the epochs cannot be told apart
    table = only_table(
        write(
            tmp_path / "three",
            [
                gen_records.run(fw, 32, seed, seconds=s + 0.01 * seed, compile_seconds=c, mode=m)
                for fw, s, c, m in runs
                for seed in range(3)
            ],
        )
    )
    compiled = table.columns_in("compiled")
    assert payoff(table, compiled[0], 32).epochs == 2  # 40 s more start-up, 20 s saved per epoch
    rows, notes = compile_rows(table, compiled)
    assert "pays off after 2 epochs" in rows[0].cells[0]
    assert notes == {
        "no eager run in these records to compare with (`runners matrix --modes compiled,eager` adds them)": [
            "TensorFlow"
        ],
        "no eager training mode, so nothing to pay off against": ["JAX"],
    }


def test_findings_come_from_the_articles_figures_and_the_tuned_runs(tmp_path):
    tuned = gen_records.with_changes(gen_records.run("jax", 32, seconds=4.0), record_id="jax-ynn-off")
    tuned["config"]["tuning_environment"] = YNN_OFF
    results = write(
        tmp_path, [gen_records.run("jax", 32, seconds=12.0), gen_records.run("torch", 32, seconds=5.0), tuned]
    )
    index = page_alone(results, "results/verdicts.md")
    findings = index[index.index("## Findings") :]
    assert "the article states **2.9×**, its own figures give **3.92× (42.3 s ÷ 10.8 s, its own table)**" in findings
    assert "Measured here: no verdict (n = 1)." in findings  # one run each way: no size, no bold
    assert "`python benchmarks/investigations/platform_issues/xla_cpu_conv.py`" in findings


def test_the_probes_disagreements_with_section_4_1_are_a_finding(tmp_path):
    results = load_results(probe_records.write_machine(tmp_path, article=True), strict=True)
    index = page_alone(results, "results/verdicts.md")
    assert "§4.1: " in index and "checks of the quoted errors disagree" in index
    assert "`runners probes --out results/probes`" in index


#: two machines of the tuned-variables test
MACHINES = (gen_records.CPU_MACHINE, "cpu-b-2t-1")


def test_older_records_are_named_without_their_schema_and_tuned_variables_appear_once(tmp_path):
    older = [gen_records.as_v2(gen_records.run("jax", 32, seed=1, seconds=12.0, machine_id=m)) for m in MACHINES]
    tuned = [gen_records.run("torch", 32, seconds=5.0, machine_id=m) for m in MACHINES]
    for record in tuned:  # the same variables on two machines: one table each, one label
        record["config"]["tuning_environment"] = YNN_OFF
        record["record_id"] += "-ynn-off"
    for record in (gen_records.run("jax", 32, seconds=12.0), *older, *tuned):
        machine = record["hardware"]["machine_id"] if record.get("hardware") else gen_records.CPU_MACHINE
        write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    index = page_alone(load_results(tmp_path), "results/verdicts.md")
    expected = (
        "2 older records (◌): made by an earlier version of fwbench, which did not yet record everything later runs do."
    )
    assert expected in index and "fwbench.run/" not in index
    assert "tuning variables set (XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=) are shown apart" in index
