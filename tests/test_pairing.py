"""Which runs a comparison pairs and which framework it ranks first (fwbench/pairing.py), one rule for the matrix
(runners.matrix.comparisons) and the site (generator.verdicts.leads): on run records made through
runners.measure.record, as ``runners matrix`` writes them (its plan added as the driver adds it)."""

from __future__ import annotations

from pathlib import Path

import gen_records

from fwbench.decision import AHEAD, UNDECIDED
from fwbench.pairing import compare, newest_harness, ranked
from fwbench.records import write_record
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.leads import leads_by_batch
from runners.matrix.comparisons import comparisons

#: a steady 30 % lead, round by round
TORCH_RATES, TENSORFLOW_RATES = [130.0, 132.0, 129.0], [100.0, 101.0, 99.0]


at_32 = gen_records.quick_at_32


runs = gen_records.matrix_runs


PAIR = [at_32("torch"), at_32("tensorflow")]
TRIO = [*PAIR, at_32("jax")]


def test_rounds_pair_only_runs_that_one_matrix_compared():
    same = compare(runs("torch", TORCH_RATES, plan=PAIR), runs("tensorflow", TENSORFLOW_RATES, plan=PAIR))
    assert (same.outcome, same.n) == (AHEAD, 3)
    # the same sitting, seeds and repeats, but two matrices: no round of one was run beside a round of the other
    apart = compare(runs("torch", TORCH_RATES, plan=PAIR), runs("tensorflow", TENSORFLOW_RATES, plan=TRIO))
    assert (apart.outcome, apart.n, apart.sittings) == (UNDECIDED, 0, ())
    # runs of `runners run` alone name no matrix: they pair with each other, never with a matrix's
    alone = compare(runs("torch", TORCH_RATES), runs("tensorflow", TENSORFLOW_RATES))
    assert alone.n == 3 and compare(runs("torch", TORCH_RATES), runs("tensorflow", TENSORFLOW_RATES, plan=PAIR)).n == 0


def with_harness(records: list[dict], digest: str | None) -> list[dict]:
    """``records`` as a trainer of harness ``digest`` wrote them (None: before records said, unversioned)."""
    if digest is None:
        return [{key: value for key, value in record.items() if key != "harness"} for record in records]
    return [{**record, "harness": {**record["harness"], "digest": digest}} for record in records]


def test_a_framework_is_judged_on_its_newest_harness_and_its_older_runs_are_counted_not_judged():
    reversed_rates = TENSORFLOW_RATES  # the old trainer was slower: PyTorch behind on day 1
    torch = with_harness(runs("torch", reversed_rates, 1), None) + runs("torch", TORCH_RATES, 3, 3)
    tensorflow = runs("tensorflow", TORCH_RATES, 1) + runs("tensorflow", TENSORFLOW_RATES, 3, 3)
    current, older = newest_harness(torch)
    assert current == torch[3:] and older == torch[:3]
    verdict = compare(torch, tensorflow)
    assert (verdict.outcome, verdict.leader, verdict.older_harness_runs) == (AHEAD, 0, 3)
    assert [d.sitting.number for d in verdict.sittings] == [1]  # day 1's sitting: TensorFlow's runs alone
    newer = with_harness(runs("torch", TORCH_RATES, 5, 6), "0123456789ab")  # a trainer changed again on day 5
    assert compare(torch + newer, tensorflow).older_harness_runs == 6


def test_the_matrix_and_the_site_rank_by_the_paired_ratio_not_the_mean(tmp_path: Path):
    # TensorFlow is 1.3× PyTorch in every paired round; PyTorch's mean is higher, from a round TensorFlow never ran
    torch = runs("torch", [100.0, 101.0, 99.0, 900.0], plan=PAIR)
    tensorflow = runs("tensorflow", [130.0, 132.0, 129.0], plan=PAIR)
    assert ranked([torch, tensorflow]) == [1, 0]
    assert compare(tensorflow, torch).ratio > 1.25
    by_config = {PAIR[0].config_id: torch, PAIR[1].config_id: tensorflow}
    (comparison,) = comparisons(PAIR, by_config, cap=5)
    assert [c.name for c in comparison.ranked] == ["TensorFlow", "PyTorch"]
    for record in torch + tensorflow:
        write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    (table,) = tables(summarise(load_results(tmp_path).runs))
    lead = leads_by_batch(table)[32]
    assert (lead.leader, lead.runner_up, lead.outcome) == ("TensorFlow", "PyTorch", AHEAD)
    assert lead.leader_stats.mean < lead.runner_up_stats.mean  # the figures shown; the verdict is the rounds'
