"""benchmarks/attention_parity.py: each framework's fused attention against its written-out one, on one device."""

from __future__ import annotations

import json

from benchmarks import attention_parity
from generator.records.check import check_paths
from runners.workloads.gpt import arch, parity


def test_each_framework_checks_the_fused_paths_it_has():
    assert attention_parity.fused_paths("jax") == ["fused", "pallas-flash"]
    assert attention_parity.fused_paths("torchax") == ["fused"]


def test_a_fused_path_is_compared_with_the_written_out_one_the_figures_written_and_a_later_token_let_through_fails(
    tmp_path, monkeypatch, capsys
):
    real_leak = parity.mask_leak
    monkeypatch.setattr(parity, "mask_leak", lambda found: (1e-3, real_leak(found)[1]))  # planted: not causal
    monkeypatch.setitem(arch.SIZES, "tiny", arch.TINY)  # seconds, where GPT-2's vocabulary takes many
    out = tmp_path / "results" / "parity" / "cpu-here" / "attention.json"
    code = attention_parity.main(["--device", "cpu", "--size", "tiny", "--frameworks", "torchax", "--out", str(out)])
    assert code == 1 and "not causal: torchax fused" in capsys.readouterr().err
    document = json.loads(out.read_text())
    assert (document["size"], document["precision"], document["machine_id"].startswith("cpu-")) == (
        "tiny",
        "fp32",
        True,
    )
    (row,) = document["checks"]
    assert (row["framework"], row["attention"], row["reference"]) == ("torchax", "fused", "written-out")
    # torchax composes scaled_dot_product_attention of the written-out operations: the same numbers
    assert row["logits"] == row["loss"] == row["update"] == 0.0
    assert row["later_token_moves_earlier_logits"] == 1e-3 and row["later_token_moves_its_logits"] > 0
    # generator check takes the file as what it is, and names the field of a bad one
    bad = out.with_name("bad.json")
    bad.write_text(out.read_text().replace('"logits": 0.0', '"logits": -1.0'))
    report = check_paths([tmp_path / "results"], repo=None)
    assert not report.failures.get(out) and "valid attention parity checks" in " ".join(n[1] for n in report.notes)
    assert "field 'checks[0].logits': expected a number ≥ 0" in " ".join(f[1] for f in report.failures[bad])
