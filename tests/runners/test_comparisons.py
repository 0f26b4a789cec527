"""The matrix's comparisons count runs by the site's rule (fwbench.judged) and judge them by the site's decision
(fwbench.decision), on records made through runners.measure.record, in the sitting the matrix makes: a new one
where it starts after the latest is over."""

from __future__ import annotations

import dataclasses
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fwbench import judged
from fwbench.decision import AHEAD, UNDECIDED
from fwbench.sittings import Start
from generator.records import aggregate
from runners.matrix import comparisons
from runners.matrix.store import first_repeat
from runners.measure.profiles import expand

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generator"))
import gen_records  # noqa: E402

ORDER = list(expand("smoke", version_of=gen_records.VERSIONS.get, frameworks=["torch", "jax"]))
GPT_ORDER = list(expand("smoke-gpt", version_of=gen_records.VERSIONS.get, frameworks=["torch", "jax"]))


def test_the_matrix_and_the_site_count_runs_by_one_rule():
    assert comparisons.counts is judged.counts is aggregate.counts


def three_rounds(rates: dict[str, float], order: list = ORDER, **changes) -> dict[str, list[dict]]:
    """Three rounds of each configuration of ``order`` at its framework's rate, ``changes`` made to JAX's records."""
    runs = {}
    for config in order:
        made = []
        for repeat in range(3):
            again = dataclasses.replace(config, repeat=repeat)
            finished = f"2026-12-01T10:0{2 * repeat + (config.framework == 'jax') + 1}:00.000Z"
            measured = gen_records.one_epoch(again, rates[config.framework])
            record = gen_records.as_recorded(again, measured, ["runners"], finished_at=finished)
            made.append({**record, **changes} if config.framework == "jax" else record)
        runs[config.config_id] = made
    return runs


def test_busy_and_older_runs_do_not_count_towards_a_decision():
    rates = {"torch": 100.0, "jax": 50.0}
    (counted,) = comparisons.comparisons(ORDER, three_rounds(rates), cap=5)
    assert counted.status == AHEAD and counted.decided
    busy = gen_records.load(busy=True)
    for changes, why in (
        ({"load": busy}, "3 on a busy machine"),
        ({"upgraded_from": "fwbench.run/2"}, "3 older records"),
    ):
        (comparison,) = comparisons.comparisons(ORDER, three_rounds(rates, **changes), cap=5)
        assert comparison.status == UNDECIDED and not comparison.decided
        assert (
            comparison.line("cap")
            == f"bs 32: undecided at n = 0; no run of JAX counts in this sitting yet, {why} (cap)"
        )
        assert {c.framework for c in comparison.to_run_again()} == {"torch", "jax"}


#: the last finish of ``three_rounds``' records
LAST_FINISH = datetime.fromisoformat("2026-12-01T10:07:00+00:00")


def test_a_matrix_started_after_the_latest_sitting_is_over_decides_in_a_new_one():
    runs = three_rounds({"torch": 100.0, "jax": 50.0})  # decided: PyTorch ahead at n = 3
    (soon,) = comparisons.comparisons(ORDER, runs, cap=5, start=Start(LAST_FINISH + timedelta(minutes=10)))
    assert soon.decided and not soon.new_sitting and soon.to_run_again() == []
    (later,) = comparisons.comparisons(ORDER, runs, cap=5, start=Start(LAST_FINISH + timedelta(hours=2)))
    assert later.new_sitting and later.status == UNDECIDED and not later.decided
    earlier = "counts in this sitting yet, 3 in earlier sittings"
    assert later.line("") == f"bs 32: undecided at n = 0; no run of PyTorch {earlier}; no run of JAX {earlier}"
    assert {c.framework for c in later.to_run_again()} == {"torch", "jax"}


def test_the_runs_limit_counts_the_runs_of_the_sitting():
    runs = three_rounds({"torch": 100.0, "jax": 100.0})
    (alike,) = comparisons.comparisons(ORDER, runs, cap=5, limit=3)
    assert all(c.at_limit for c in alike.ranked)  # three runs each of a limit of three
    (new,) = comparisons.comparisons(ORDER, runs, cap=5, limit=3, start=Start(LAST_FINISH + timedelta(hours=2)))
    assert not any(c.at_limit for c in new.ranked)  # none of them in the new sitting


def test_a_new_harness_in_a_new_sitting_counts_only_its_own_runs_towards_the_limit():
    """A trainer changed since the earlier sittings: their runs (of the older harness) neither count in the new
    sitting's comparison nor use up its runs limit, so the new harness gets its rounds."""
    older = three_rounds({"torch": 100.0, "jax": 100.0})
    for made in older.values():
        for record in made:
            record["harness"] = {**record["harness"], "digest": "0123456789ab"}
    later = {key: [shifted(made[0], hours=3)] for key, made in three_rounds({"torch": 100.0, "jax": 100.0}).items()}
    runs = {key: older[key] + later[key] for key in older}
    (comparison,) = comparisons.comparisons(ORDER, runs, cap=5, limit=3)
    assert not comparison.new_sitting and not comparison.decided
    assert not any(c.at_limit for c in comparison.ranked)  # one run each in this sitting, of a limit of three
    assert {c.framework for c in comparison.to_run_again()} == {"torch", "jax"}


def shifted(record: dict, hours: int) -> dict:
    """``record`` as if made ``hours`` later."""
    at = {key: datetime.fromisoformat(record[key]) + timedelta(hours=hours) for key in ("started_at", "finished_at")}
    return {**record, **{key: when.isoformat().replace("+00:00", "Z") for key, when in at.items()}}


def test_a_new_sittings_rounds_follow_the_earlier_repeats():
    runs = three_rounds({"torch": 100.0, "jax": 50.0})  # repeats 0 to 2
    assert first_repeat(runs, Start(LAST_FINISH + timedelta(minutes=10))) == 0  # the same sitting: from the start
    assert first_repeat(runs, Start(LAST_FINISH + timedelta(hours=2))) == 3
    assert first_repeat({}, Start(LAST_FINISH)) == 0


@pytest.mark.parametrize("order", [ORDER, GPT_ORDER], ids=["resnet18", "gpt"])
def test_after_a_trainer_change_the_rounds_follow_the_older_trainers_runs_not_resume_them(order):
    rates, same_sitting = {"torch": 100.0, "jax": 50.0}, Start(LAST_FINISH + timedelta(minutes=10))
    assert first_repeat(three_rounds(rates, order), same_sitting) == 0  # each workload's own trainer: resumed
    older = {"digest": "0123456789ab", "modules": ["runners.frameworks.jax.resnet18"]}
    runs = three_rounds(rates, order, harness=older)  # JAX's records made by another trainer
    assert first_repeat(runs, same_sitting) == 3  # the same sitting, yet none of them resumed
