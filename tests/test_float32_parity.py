"""benchmarks/float32_parity.py: losses judged against the project's fp32 bound, its configurations, the float64
reference it computes where the file has none, and a real run of JAX and PyTorch via torchax on this CPU."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import float32_parity
from runners.workloads.resnet18 import reference_losses
from runners.workloads.resnet18.reference_losses import Key

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "float32_parity.py"


def test_a_loss_beyond_its_steps_bound_is_outside_even_when_a_later_bound_is_wider():
    expected = [2.0, 2.0]
    within = float32_parity.compare([2.0 + 1e-5, 2.0 + 1e-4], expected, [1e-5, 1e-3, 1e-2])
    assert within["within_bound"] and within["bounds"] == [1e-5, 1e-3]
    assert within["max_absolute"] == pytest.approx(1e-4) and within["max_relative"] == pytest.approx(5e-5)
    outside = float32_parity.compare([2.0 + 1e-4, 2.0], expected, [1e-5, 1e-3])  # 5e-5 at the first step
    assert not outside["within_bound"]


def test_configurations_name_the_workloads_data_set_and_bad_ones_get_one_line(capsys):
    assert float32_parity.config_key("gpt:4096:64") == Key("grammar", 4096, 1, 0, 64)
    assert float32_parity.config_key("resnet18:8192:256") == Key("synthetic", 8192, 1, 0, 256)
    for bad, message in (("bert:64:32", "WORKLOAD one of resnet18, gpt"), ("resnet18:16:32", "no full batch")):
        with pytest.raises(SystemExit):
            float32_parity.parse_args(["--configs", bad, "--out", "x.json"])
        assert message in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.slow
def test_a_reference_missing_from_the_file_is_computed_as_the_files_are():
    stored = reference_losses.read_data()
    key = Key("grammar", 16, 1, 0, 8)
    kept, source = float32_parity.reference(key, stored)
    assert source == "fwbench/reference_losses.json"
    computed, source = float32_parity.reference(key, {**stored, "trajectories": []})
    assert source.startswith("computed here")
    assert computed == pytest.approx(kept, rel=1e-10)


@pytest.mark.slow
def test_jax_and_torchax_first_losses_are_judged_against_the_reference(tmp_path):
    out = tmp_path / "parity.json"
    command = [sys.executable, str(SCRIPT), "--device", "cpu", "--configs", "resnet18:64:32", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    found = json.loads(out.read_text())
    (result,) = found["results"]
    expected = result["reference"]["losses"]
    bounds = reference_losses.read_data()["bounds"]["fp32"]["relative"]
    assert set(result["frameworks"]) == {"jax", "torchax"}
    for name, figures in result["frameworks"].items():
        assert len(figures["losses"]) == len(expected) == 2  # 64 images at batch 32: an epoch of two steps
        relative = [abs(a - b) / abs(b) for a, b in zip(figures["losses"], expected, strict=True)]
        assert figures["max_relative"] == pytest.approx(max(relative)), name
        assert figures["within_bound"] == all(d <= b for d, b in zip(relative, bounds, strict=False))
        assert "synthetic 64 at 32" in done.stdout and name in done.stdout
    assert done.returncode == (0 if found["within_bound"] else 1), done.stderr[-3000:]
    assert found["device_kind"] == "cpu" and found["versions"]["torchax"]
