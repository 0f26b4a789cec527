"""A lead must clear the harness's measured tolerance (fwbench/harness_tolerance.py), from harness checks written and
read as the idiomatic-loop benchmark writes them (fwbench/harness_checks.py); leads judged on run records made through
runners.measure.record, on the site as a results directory holds them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gen_records
import pytest
from one_page import page_alone

from fwbench.decision import AHEAD, UNDECIDED
from fwbench.harness_checks import checks_path, load_checks, write_checks
from fwbench.harness_standing import NOT_A_LEAD, NOT_CHECKED, WIDENED, WITHHELD
from fwbench.harness_tolerance import check_for, within_harness
from fwbench.pairing import compare
from fwbench.records import RecordError, harness_digest, write_record
from generator.i18n import language
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.leads import leads_by_batch
from generator.views.harness_table import model_words
from runners.measure.profiles import expand

QUICK = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
MACHINE = gen_records.CPU_MACHINE


def runs(framework: str, rates: list[float], day: int = 1, first_repeat: int = 0) -> list[dict]:
    """``framework``'s quick fp32 runs at batch 32 on 2026-12-``day`` (its own boot), one per repeat from
    ``first_repeat`` at ``rates`` images/s, a few minutes apart."""
    config = next(c for c in QUICK if c.batch_size == 32 and c.precision == "fp32" and c.framework == framework)
    made = []
    for offset, rate in enumerate(rates):
        repeat = first_repeat + offset
        again = dataclasses.replace(config, repeat=repeat)
        finished = f"2026-12-{day:02d}T10:{2 * repeat + 1 + (framework == 'jax'):02d}:00.000Z"
        made.append(
            gen_records.as_recorded(
                again, gen_records.one_epoch(again, rate), ["runners"], finished_at=finished, boot_id=f"boot-{day}"
            )
        )
    return made


#: JAX's images/s, round by round, on two days
JAX_RATES = ([100.0, 100.5, 99.8], [100.0, 100.2, 99.5])
JAX = runs("jax", JAX_RATES[0], 1) + runs("jax", JAX_RATES[1], 3, 3)
#: PyTorch 1.30× JAX in every round of two days
TORCH = runs("torch", [130.0, 131.0, 129.5], 1) + runs("torch", [130.0, 130.5, 129.0], 3, 3)
#: 6 % ahead in every round: past the minimum effect, but within what the harness may add
NEAR = runs("torch", [1.06 * r for r in JAX_RATES[0]], 1) + runs("torch", [1.06 * r for r in JAX_RATES[1]], 3, 3)


def check(framework: str, records: list[dict], ratio: float, interval: tuple[float, float] | None, **changes):
    """A harness check of ``framework``'s trainer (at the harness of its ``records``) against its minimal loop on the
    test CPU, in strict fp32 at batch 32: ``ratio`` trainer ÷ minimal, ``interval`` its 95 % interval."""
    fields = {
        "framework": framework,
        "workload": "resnet18",
        "device_kind": "cpu",
        "device_name": "Test CPU @ 2.0GHz",
        "machine_id": MACHINE,
        "precision": "fp32",
        "batch_size": 32,
        "harness": harness_digest(records[-1]),
        "reference": f"minimal {framework} loop",
        "ratio": ratio,
        "ratio_interval": list(interval) if interval else None,
        "pairs": 5,
    }
    return fields | changes


def written(results: Path, *checks: dict) -> list:
    """``checks`` written as the benchmark writes them, under ``results/harness/<machine>/``, and read back."""
    write_checks(checks_path(results, MACHINE, "2026-12-04T10:00:00Z"), checks, "benchmarks/idiomatic_loop.py")
    return load_checks(results)


def found(checks, framework: str, records: list[dict], batch_size: int = 32):
    return check_for(
        checks,
        framework,
        workload="resnet18",
        device_kind="cpu",
        precision="fp32",
        digest=harness_digest(records[-1]),
        batch_size=batch_size,
    )


def test_a_lead_stands_widened_by_the_checks_and_moved_to_the_minimal_loops_ratio(tmp_path):
    # PyTorch's trainer reaches 0.94 of its minimal loop, JAX's 0.85: between the minimal loops the lead is smaller
    checks = written(tmp_path, check("torch", TORCH, 0.94, (0.93, 0.95)), check("jax", JAX, 0.85, (0.84, 0.86)))
    measured = compare(TORCH, JAX)
    verdict = within_harness(measured, found(checks, "torch", TORCH), found(checks, "jax", JAX))
    assert (verdict.outcome, verdict.leader, verdict.replicated, verdict.harness_checked) == (AHEAD, 0, True, True)
    assert verdict.harness.applies == WIDENED and verdict.harness.batch_sizes() == (32, 32)
    for before, after in zip(measured.rests_on, verdict.rests_on, strict=True):
        assert after.gap.ratio == pytest.approx(before.gap.ratio * 0.85 / 0.94)
        assert after.gap.low == pytest.approx(before.gap.low * 0.84 / 0.95)
        assert after.gap.high == pytest.approx(before.gap.high * 0.86 / 0.93)
        assert 1.14 < after.gap.low < after.gap.ratio < 1.20 < after.gap.high


def test_a_lead_within_the_harness_tolerance_is_withheld(tmp_path):
    checks = written(tmp_path, check("torch", NEAR, 1.0, (0.98, 1.02)), check("jax", JAX, 1.0, (0.98, 1.02)))
    measured = compare(NEAR, JAX)
    assert measured.outcome == AHEAD and measured.replicated  # 1.06×: past 1.05 in both sittings
    verdict = within_harness(measured, found(checks, "torch", NEAR), found(checks, "jax", JAX))
    assert (verdict.outcome, verdict.leader, verdict.rests_on, verdict.harness.applies) == (
        UNDECIDED,
        None,
        (),
        WITHHELD,
    )
    assert all(d.gap.low < 1.05 for d in verdict.sittings) and verdict.n == 6


def test_without_a_check_for_both_the_verdict_stands_and_says_its_harness_was_not_checked(tmp_path):
    checks = written(tmp_path, check("torch", TORCH, 0.94, (0.93, 0.95)))
    measured = compare(TORCH, JAX)
    verdict = within_harness(measured, found(checks, "torch", TORCH), found(checks, "jax", JAX))
    assert verdict.harness.applies == NOT_CHECKED and not verdict.harness_checked
    assert (verdict.outcome, verdict.rests_on) == (measured.outcome, measured.rests_on)
    other_digest = written(tmp_path / "other", check("jax", JAX, 0.85, (0.84, 0.86), harness="0123456789ab"))
    assert found(other_digest, "jax", JAX) is None  # a check of another trainer says nothing of this one
    even = compare(runs("torch", [100.0, 100.2, 99.9]), runs("jax", [100.0, 100.1, 100.0]))
    both = written(tmp_path / "both", check("torch", TORCH, 0.94, (0.93, 0.95)), check("jax", JAX, 0.85, (0.84, 0.86)))
    assert within_harness(even, found(both, "torch", TORCH), found(both, "jax", JAX)).harness.applies == NOT_A_LEAD


def test_the_nearest_batch_size_stands_in_and_of_two_references_the_fastest_loop(tmp_path):
    checks = written(
        tmp_path,
        check("torch", TORCH, 0.90, None, batch_size=64),
        check("torch", TORCH, 0.95, None, batch_size=1024),
        check("torch", TORCH, 0.99, None, batch_size=8),
        # a check keeps what else the benchmark measured (its rounds), which the rule does not read
        check("jax", JAX, 0.94, (0.93, 0.95), reference="linen", rounds={"trainer": [1.0], "reference": [1.1]}),
        check("jax", JAX, 0.97, (0.96, 0.98), reference="nnx"),
        check("torch", TORCH, 0.50, None, mode="eager"),  # PyTorch's eager trainer: no bound on a compiled one
    )
    assert found(checks, "torch", TORCH, batch_size=256).batch_size == 1024  # 64 and 1024 as near: the larger
    assert found(checks, "torch", TORCH, batch_size=16).batch_size == 8
    assert found(checks, "torch", TORCH).batch_size == 64
    eager = check_for(
        checks, "torch", workload="resnet18", device_kind="cpu", precision="fp32", digest=harness_digest(TORCH[-1]),
        batch_size=32, mode="eager",
    )  # fmt: skip
    assert (eager.mode, eager.ratio) == ("eager", 0.50)
    assert found(checks, "jax", JAX).reference == "linen"  # the trainer falls furthest behind the fastest loop


def test_a_check_at_another_size_of_the_workload_never_stands_in(tmp_path):
    # the GPT at GPT-2 small's shape and at its default byte shape: one trainer digest, two different steps
    checks = written(tmp_path, check("torch", TORCH, 0.80, None, size="gpt2-small"))
    assert checks[0].size == "gpt2-small"
    assert found(checks, "torch", TORCH) is None
    at_size = check_for(
        checks, "torch", workload="resnet18", device_kind="cpu", precision="fp32", digest=harness_digest(TORCH[-1]),
        batch_size=32, size="gpt2-small",
    )  # fmt: skip
    assert at_size.ratio == 0.80
    # the method page's table names a sized model by its shape, as the default size's words do
    (gpt,) = written(tmp_path, check("torch", TORCH, 0.80, None, workload="gpt", size="gpt2-small"))
    assert model_words(gpt) == "GPT (12 × 768, a vocabulary of 50,257)"
    with language("zh"):
        assert model_words(gpt) == "GPT（12 × 768，词表 50,257）"
    with pytest.raises(RecordError, match=r"field 'checks\[0\]\.size': expected null or a non-empty string"):
        write_checks(
            checks_path(tmp_path, MACHINE, "2026-12-05T10:00:00Z"), [check("torch", TORCH, 1, None, size="")], "x"
        )


def test_a_bad_check_file_fails_in_one_line_naming_the_file_and_the_field(tmp_path):
    path = checks_path(tmp_path, MACHINE, "2026-12-04T10:00:00Z")
    with pytest.raises(RecordError, match=r"field 'checks\[0\]\.ratio': expected a number above 0, got -1"):
        write_checks(path, [check("torch", TORCH, -1, None)], "benchmarks/idiomatic_loop.py")
    assert not path.exists()
    path.parent.mkdir(parents=True)
    path.write_text('{"made_at": "2026-12-04T10:00:00Z", "command": "x", "checks": [{"framework": "torch"}]}')
    with pytest.raises(RecordError) as raised:
        load_checks(tmp_path)
    assert str(raised.value) == f"{path}: field 'checks[0].workload': missing"
    loaded = load_results(tmp_path)  # the site skips it with that reason, as it skips a bad record
    assert loaded.harness_checks == [] and [s.reason for s in loaded.skipped] == ["field 'checks[0].workload': missing"]


def test_the_sites_leads_are_set_against_the_checks_beside_the_records(tmp_path):
    for record in TORCH + JAX:
        write_record(tmp_path / "runs" / MACHINE / f"{record['record_id']}.json", record)
    (plain,) = tables(summarise(load_results(tmp_path).runs))
    assert leads_by_batch(plain)[32].verdict.harness.applies == NOT_CHECKED
    written(tmp_path, check("torch", TORCH, 0.94, (0.93, 0.95)), check("jax", JAX, 0.85, (0.84, 0.86)))
    results = load_results(tmp_path)
    (table,) = tables(summarise(results.runs), tuple(results.harness_checks))
    lead = leads_by_batch(table)[32]
    assert (lead.leader, lead.decided, lead.replicated, lead.verdict.harness.applies) == (
        "PyTorch",
        True,
        True,
        WIDENED,
    )
    assert all(1.15 < d.lead.ratio < 1.20 for d in lead.verdict.rests_on)  # the gap the page shows, widened


def test_the_method_page_lists_the_checks_of_the_trainers_the_newest_records_ran(tmp_path):
    for record in TORCH + JAX:
        write_record(tmp_path / "runs" / MACHINE / f"{record['record_id']}.json", record)
    assert "No check of the trainers the newest records ran" in page_alone(load_results(tmp_path), "method.md")
    written(
        tmp_path,
        check("torch", TORCH, 0.94, (0.93, 0.95)),
        check("jax", JAX, 0.85, (0.84, 0.86)),
        check("jax", JAX, 0.70, None, harness="0123456789ab"),  # an older trainer's: it judges no record
        # another machine of the kind, whose check stands for this one's records (``check_for``)
        check("torch", TORCH, 0.96, (0.95, 0.97), machine_id="cpu-other", batch_size=256),
    )
    page = page_alone(load_results(tmp_path), "method.md")
    (torch_row,) = [line for line in page.splitlines() if "| minimal torch loop |" in line and "cpu-other" not in line]
    assert "| fp32 |" not in torch_row and "| strict FP32 (TF32 off) | 32 | PyTorch | minimal torch loop |" in torch_row
    assert torch_row.endswith("| 0.940 (0.930–0.950) | 5 |")
    (other_row,) = [line for line in page.splitlines() if "(`cpu-other`)" in line]
    assert other_row.endswith("| 0.960 (0.950–0.970) | 5 |")
    (jax_row,) = [line for line in page.splitlines() if "| minimal jax loop |" in line]
    assert "0.850 (0.840–0.860)" in jax_row and "0.700" not in page
    assert "训练器 ÷ 循环" in page_alone(load_results(tmp_path), "method.md", language="zh")


def test_the_home_page_counts_a_withheld_lead_as_its_table_says_not_as_undecided(tmp_path):
    for record in NEAR + JAX:
        write_record(tmp_path / "runs" / MACHINE / f"{record['record_id']}.json", record)
    written(tmp_path, check("torch", NEAR, 1.0, (0.98, 1.02)), check("jax", JAX, 1.0, (0.98, 1.02)))
    home = page_alone(load_results(tmp_path), "index.md")
    assert "1 within what fwbench's trainers may add, between PyTorch and JAX (n = 6)" in home
    assert "undecided" not in home
