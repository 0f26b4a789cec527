"""benchmarks/idiomatic_loop.py's one-process JAX check (``--device``): the figures it computes from the rounds, its
refusals, and a real run of both loops on this CPU with a few steps."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from runners.workloads.resnet18 import arch

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "idiomatic_loop.py"
_spec = importlib.util.spec_from_file_location("idiomatic_loop", SCRIPT)
idiomatic_loop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(idiomatic_loop)

V5E = {"device_kind": "tpu", "device_name": "TPU v5 lite"}
ROUNDS = {"trainer": [990.0, 1000.0, 1010.0, 1000.0], "minimal": [1000.0, 1000.0, 1000.0, 1020.0]}


def figures(precision: str, hardware: dict, rates: dict = ROUNDS) -> dict:
    args = argparse.Namespace(precision=precision, batch_size=256, steps=100, pairs=len(rates["trainer"]))
    ratios = [a / b for a, b in zip(rates["trainer"], rates["minimal"], strict=True)]
    result = {"rates": rates, "ratios": ratios, "setup": {"trainer": 25.0, "minimal": 24.0}}
    return idiomatic_loop.summary(args, result, hardware)


def test_mfu_on_a_tpu_divides_by_the_peak_of_the_precision_that_ran():
    bf16, fp32 = figures("bf16", V5E), figures("fp32", V5E)
    trainer_rate = statistics.median(ROUNDS["trainer"])
    assert bf16["images_per_second"]["trainer"] == trainer_rate
    assert bf16["mfu"]["trainer"]["value"] == pytest.approx(3 * arch.flops_per_image() * trainer_rate / 197e12)
    # strict fp32 is six bf16 passes on a TPU: its peak is a sixth, so the same speed is six times the MFU
    assert fp32["mfu"]["trainer"]["value"] == pytest.approx(6 * bf16["mfu"]["trainer"]["value"], rel=1e-3)
    assert "n/a" not in idiomatic_loop.printed(bf16)


def test_the_ratio_is_trainer_over_minimal_with_the_pairs_interval():
    found = figures("default", V5E)
    assert found["ratio"] == pytest.approx(statistics.median([0.99, 1.0, 1.01, 1000 / 1020]))
    low, high = found["ratio_interval"]
    mean = math.exp(statistics.fmean(math.log(r) for r in found["ratios"]))
    assert low < mean < high and high - low < 0.05
    assert "ratio Trainer ÷ minimal: median 0.995, 95 % interval of the mean" in idiomatic_loop.printed(found)
    # two pairs give no interval, and the line says none
    two = figures("default", V5E, {v: r[:2] for v, r in ROUNDS.items()})
    assert two["ratio_interval"] is None and "interval" not in idiomatic_loop.printed(two)


def test_no_mfu_on_a_cpu_and_the_reason_is_printed():
    found = figures("fp32", {"device_kind": "cpu", "device_name": None})
    assert found["mfu"]["trainer"]["value"] is None
    assert "MFU n/a: no known peak float32 FLOP/s for a CPU" in idiomatic_loop.printed(found)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--precision", "bf16"], "--precision and --out need --device"),
        (["--device", "tpu", "--configs", "torch:eager"], "--device checks jax:compiled alone, not torch:eager"),
    ],
)
def test_flags_that_do_not_go_together_are_refused_in_one_line(argv, message, capsys):
    with pytest.raises(SystemExit):
        idiomatic_loop.parse_args(argv)
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_both_loops_run_in_one_process_and_the_figures_come_from_their_rounds(tmp_path):
    out = tmp_path / "figures.json"
    command = [sys.executable, str(SCRIPT), "--device", "cpu", "--precision", "default", "--batch-size", "4"]
    command += ["--steps", "2", "--pairs", "3", "--min-ratio", "0.01", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(out.read_text())
    assert (found["device_kind"], found["precision"], found["batch_size"]) == ("cpu", "default", 4)
    assert all(len(found["rounds"][v]) == 3 and min(found["rounds"][v]) > 0 for v in ("trainer", "minimal"))
    ratios = [a / b for a, b in zip(found["rounds"]["trainer"], found["rounds"]["minimal"], strict=True)]
    assert found["ratios"] == pytest.approx(ratios)
    assert found["ratio"] == pytest.approx(statistics.median(ratios))
    assert found["ratio_interval"][0] < found["ratio_interval"][1]
    assert found["setup_seconds"]["trainer"] > 0 and found["setup_seconds"]["minimal"] > 0
    assert "ratio Trainer ÷ minimal: median" in done.stdout and done.stdout.rstrip().endswith("at least 0.01")
