"""The paired, replicated decision rule (fwbench/decision.py): on constructed per-round throughputs, and on run records
made through runners.measure.record for the pairing by sitting and round."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from fwbench.decision import ABOUT_EQUAL, AHEAD, DISAGREE, UNDECIDED, decide
from fwbench.gap import Gap
from fwbench.pairing import paired_rounds
from fwbench.stats import WITHIN_NOISE, describe, separation

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "generator"))
import gen_records  # noqa: E402

#: a machine whose speed moves from round to round by far more than the gap between the two frameworks
DRIFTING = [100.0, 140.0, 90.0, 125.0, 105.0]


def keyed(*sittings: list[float]) -> dict[tuple[int, int], float]:
    """Throughputs per round, keyed by (sitting, round): one list per sitting."""
    return {(s, r): value for s, values in enumerate(sittings) for r, value in enumerate(values)}


def times(values: list[float], ratios: list[float]) -> list[float]:
    return [value * ratio for value, ratio in zip(values, ratios, strict=True)]


LEAD = [1.30, 1.33, 1.29, 1.31, 1.32]  # a clear 31 % lead, round by round


def test_a_clear_lead_decided_in_two_sittings_is_a_replicated_ahead_with_its_gap():
    verdict = decide(keyed(times(DRIFTING, LEAD), times(DRIFTING, LEAD)), keyed(DRIFTING, DRIFTING))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (AHEAD, 0, True)
    assert [d.sitting for d in verdict.rests_on] == [0, 1] and verdict.n == 10
    lead = verdict.rests_on[0].lead
    assert lead.low > 1.25 and lead.high < 1.37 and str(lead).startswith("1.31× (")


def test_the_same_lead_in_one_sitting_is_ahead_in_one_sitting_only():
    verdict = decide(keyed(times(DRIFTING, LEAD)), keyed(DRIFTING))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (AHEAD, 0, False)
    assert len(verdict.rests_on) == 1 and verdict.rests_on[0].n == 5


def test_a_lead_in_one_sitting_beside_an_undecided_one_still_rests_on_one_sitting():
    noisy = [1.30, 0.85, 1.60, 0.95, 1.20]
    verdict = decide(keyed(times(DRIFTING, LEAD), times(DRIFTING, noisy)), keyed(DRIFTING, DRIFTING))
    assert (verdict.outcome, verdict.replicated) == (AHEAD, False)
    assert [d.outcome for d in verdict.sittings] == [AHEAD, UNDECIDED]


def test_the_second_framework_ahead_reads_the_same_from_either_side():
    slower = [1 / ratio for ratio in LEAD]
    verdict = decide(keyed(times(DRIFTING, slower), times(DRIFTING, slower)), keyed(DRIFTING, DRIFTING))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (AHEAD, 1, True)
    assert verdict.rests_on[0].lead.ratio == pytest.approx(verdict.rests_on[0].gap.inverse().ratio)
    assert verdict.rests_on[0].lead.ratio > 1.25
    mirrored = decide(keyed(DRIFTING, DRIFTING), keyed(times(DRIFTING, slower), times(DRIFTING, slower)))
    assert (mirrored.outcome, mirrored.leader) == (AHEAD, 0)
    assert mirrored.rests_on[0].lead.ratio == pytest.approx(verdict.rests_on[0].lead.ratio)


def test_ratios_inside_the_band_with_a_tight_interval_are_about_equal():
    even = [1.01, 0.99, 1.00, 1.02, 0.99]
    verdict = decide(keyed(times(DRIFTING, even), times(DRIFTING, even)), keyed(DRIFTING, DRIFTING))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (ABOUT_EQUAL, None, True)


def test_a_precise_lead_below_the_minimum_effect_is_about_equal_not_ahead():
    small = [1.03, 1.031, 1.029, 1.03, 1.03]  # its interval is narrow and above 1, but inside the band
    assert decide(keyed(times(DRIFTING, small)), keyed(DRIFTING)).outcome == ABOUT_EQUAL


def test_a_lead_whose_interval_reaches_below_the_minimum_effect_is_undecided():
    near = [1.05, 1.09, 1.03, 1.08, 1.06]  # 1.06× but its interval reaches below 1.05
    verdict = decide(keyed(times(DRIFTING, near)), keyed(DRIFTING))
    assert verdict.outcome == UNDECIDED and verdict.rests_on == ()
    assert verdict.sittings[0].gap.low < 1.05 < verdict.sittings[0].gap.ratio


def test_noisy_ratios_are_undecided_at_their_n():
    noisy = [1.30, 0.85, 1.60, 0.95, 1.20]
    verdict = decide(keyed(times(DRIFTING, noisy), times(DRIFTING[:3], noisy[:3])), keyed(DRIFTING, DRIFTING[:3]))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (UNDECIDED, None, False)
    assert verdict.n == 8 and [d.n for d in verdict.sittings] == [5, 3]


def test_fewer_than_three_paired_rounds_give_no_interval_and_no_decision():
    verdict = decide(keyed(times(DRIFTING[:2], LEAD[:2])), keyed(DRIFTING[:2]))
    assert verdict.outcome == UNDECIDED and verdict.sittings[0].gap is None and verdict.n == 2


def test_sittings_that_decide_differently_make_no_verdict():
    slower = [1 / ratio for ratio in LEAD]
    verdict = decide(keyed(times(DRIFTING, LEAD), times(DRIFTING, slower)), keyed(DRIFTING, DRIFTING))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (DISAGREE, None, False)
    assert [d.leader for d in verdict.rests_on] == [0, 1]


def test_pairing_decides_a_lead_that_the_unpaired_intervals_cannot_see():
    steady = [1.09, 1.11, 1.10, 1.12, 1.08]  # 10 % ahead in every round, on a machine whose speed drifts
    first, second = times(DRIFTING, steady), DRIFTING
    assert separation(describe(first), describe(second)) == WITHIN_NOISE  # today's rule: overlapping intervals
    verdict = decide(keyed(first, first), keyed(second, second))
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (AHEAD, 0, True)
    assert verdict.rests_on[0].lead.low > 1.05


def test_rounds_where_only_one_framework_ran_are_dropped():
    first, second = keyed(times(DRIFTING, LEAD)), keyed(DRIFTING)
    alone = {(0, 5): 10.0, (0, 6): 500.0, (1, 0): 1.0, (1, 1): 2.0, (1, 2): 3.0}  # would be a wild sitting if paired
    verdict = decide(first | alone, second)
    assert verdict == decide(first, second)
    assert verdict.n == 5 and [d.sitting for d in verdict.sittings] == [0]


def test_a_throughput_that_is_not_positive_is_refused_with_its_round():
    with pytest.raises(ValueError, match=r"round \(0, 1\): throughput 0.0"):
        decide(keyed([10.0, 0.0, 12.0]), keyed([9.0, 9.0, 9.0]))


def test_a_gap_is_written_as_a_ratio_with_its_interval():
    assert str(Gap(1.3112, 1.18, 1.4549)) == "1.31× (1.18–1.45×)"
    assert str(Gap(1.25, 1.1, 1.4).inverse()) == "0.80× (0.71–0.91×)"


def test_a_gap_at_the_band_edge_gets_a_third_decimal_so_its_side_of_the_edge_shows():
    assert str(Gap(1.0533, 1.0531, 1.0536)) == "1.053× (1.053–1.054×)"
    assert str(Gap(1.0533, 1.0531, 1.0536).inverse()) == "0.949× (0.949–0.950×)"
    assert str(Gap(1.02, 0.951, 1.049)) == "1.020× (0.951–1.049×)"


at_32 = gen_records.quick_at_32


def numbered(keyed: dict) -> dict:
    """``paired_rounds``' values keyed by (the sitting's number, the round): a round is (its matrix, seed, repeat),
    the matrix None for these runs of ``runners run`` alone."""
    return {(sitting.number, round_): value for (sitting, round_), value in keyed.items()}


runs = gen_records.matrix_runs


def test_run_records_pair_by_sitting_and_round_and_a_lead_on_two_days_is_replicated():
    torch = runs("torch", times(DRIFTING[:4], LEAD[:4]), day=1) + runs("torch", times(DRIFTING[:3], LEAD[:3]), 3, 4)
    tensorflow = runs("tensorflow", DRIFTING[:3], day=1) + runs("tensorflow", DRIFTING[:3], 3, 4)
    first, second = paired_rounds(torch, tensorflow)
    seed = at_32("torch").seed
    assert set(numbered(second)) == {
        (0, (None, seed, 0)),
        (0, (None, seed, 1)),
        (0, (None, seed, 2)),
        (1, (None, seed, 4)),
        (1, (None, seed, 5)),
        (1, (None, seed, 6)),
    }
    assert numbered(first).keys() - numbered(second).keys() == {
        (0, (None, seed, 3))
    }  # PyTorch's fourth on day 1: no partner
    assert numbered(first)[(1, (None, seed, 4))] == pytest.approx(DRIFTING[0] * LEAD[0])
    verdict = decide(first, second)
    assert (verdict.outcome, verdict.leader, verdict.replicated) == (AHEAD, 0, True)
    assert [d.n for d in verdict.rests_on] == [3, 3]


def test_the_same_round_on_two_days_is_two_rounds_and_a_round_run_twice_in_one_sitting_pairs_with_nothing():
    torch = runs("torch", [130.0, 131.0, 129.0], day=1)
    tensorflow_later = runs("tensorflow", [100.0, 100.0, 100.0], day=3)  # the same repeats, another day
    first, second = paired_rounds(torch, tensorflow_later)
    assert not first.keys() & second.keys() and decide(first, second).outcome == UNDECIDED
    twice = runs("torch", [128.0], day=1)  # round 0 again, in the same sitting
    first, second = paired_rounds(torch + twice, runs("tensorflow", [100.0, 101.0, 99.0], day=1))
    seed = at_32("torch").seed
    assert set(numbered(first)) == set(numbered(second)) - {(0, (None, seed, 0))}
    assert set(numbered(first)) == {(0, (None, seed, 1)), (0, (None, seed, 2))}
    assert decide(first, second).outcome == UNDECIDED  # two paired rounds left: no interval


def test_two_sittings_parted_by_a_pause_on_one_boot_agree_but_do_not_replicate():
    torch = runs("torch", times(DRIFTING[:3], LEAD[:3]), 1, boot="one") + runs("torch", LEAD[:3], 3, 4, boot="one")
    tensorflow = runs("tensorflow", DRIFTING[:3], 1, boot="one") + runs("tensorflow", [1.0] * 3, 3, 4, boot="one")
    verdict = decide(*paired_rounds(torch, tensorflow))
    assert (verdict.outcome, verdict.agreeing, verdict.boots) == (AHEAD, 2, 1)
    assert verdict.after_a_pause and not verdict.replicated
    other_boot = runs("torch", LEAD[:3], 3, 4, boot="two") + runs("tensorflow", [1.0] * 3, 3, 4, boot="two")
    verdict = decide(*paired_rounds(torch[:3] + other_boot[:3], tensorflow[:3] + other_boot[3:]))
    assert verdict.replicated and not verdict.after_a_pause and verdict.boots == 2


def test_a_sitting_whose_boot_was_not_recorded_replicates_only_on_another_kernel_build():
    unrecorded = [
        runs(fw, rates, 1) + runs(fw, rates, 3, 4) for fw, rates in (("torch", LEAD[:3]), ("tensorflow", [1.0] * 3))
    ]
    for record in (r for records in unrecorded for r in records):
        record["hardware"]["boot_id"] = None
    assert not decide(*paired_rounds(*unrecorded)).replicated  # a pause, as far as the records show
    for record in (r for records in unrecorded for r in records if r["started_at"].startswith("2026-12-03")):
        record["hardware"]["fingerprint"]["kernel"] = "6.8.0"  # another kernel build: the machine booted again
    assert decide(*paired_rounds(*unrecorded)).replicated


def test_undecided_sittings_are_counted_beside_the_decided_ones():
    noisy = [1.30, 0.85, 1.60, 0.95, 1.20]
    verdict = decide(keyed(LEAD, LEAD, noisy), keyed([1.0] * 5, [1.0] * 5, [1.0] * 5))
    assert (verdict.outcome, verdict.replicated) == (AHEAD, True)
    assert (verdict.agreeing, len(verdict.sittings), verdict.undecided) == (2, 3, 1)


def test_undecided_at_n_counts_only_the_rounds_of_sittings_that_were_judged():
    two_rounds = keyed(LEAD[:2], LEAD[:2])  # two sittings of two paired rounds: neither has an interval
    assert decide(two_rounds, keyed([1.0] * 2, [1.0] * 2)).n == 2
    noisy = [1.30, 0.85, 1.60]
    verdict = decide(keyed(noisy, LEAD[:2]), keyed([1.0] * 3, [1.0] * 2))
    assert verdict.outcome == UNDECIDED and verdict.n == 3  # the judged sitting's three rounds, not five


def test_the_ranking_ratio_pools_the_sittings_that_decided():
    verdict = decide(keyed(LEAD, [1.0] * 5), keyed([1.0] * 5, [1.0] * 5))  # one ahead, one about equal: disagree
    assert verdict.outcome == DISAGREE and verdict.ratio == pytest.approx((math.prod(LEAD)) ** (1 / 10))
    undecided = decide(keyed([1.30, 0.85]), keyed([1.0, 1.0]))
    assert undecided.rests_on == () and undecided.ratio == pytest.approx(math.sqrt(1.30 * 0.85))
