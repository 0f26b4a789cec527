"""``runners run`` as a user meets it: a failed run says why before the record's path, and ``--dry-run`` previews."""

from __future__ import annotations

import json

import pytest

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK
from runners import provenance
from runners.cli import main as runners_main


@pytest.mark.slow
def test_a_failed_run_prints_its_reason_before_the_record_path(monkeypatch, tmp_path, capsys):
    # NVML "sees" a GPU that PyTorch cannot use (no CUDA build here): the run starts, and fails in the framework
    gpu = {"device_name": "NVIDIA H200", "device_count": 1, "gpu_driver": "580.159.04", "device_memory_bytes": 1 << 37}
    monkeypatch.setattr(provenance, "nvidia_info", lambda: gpu)
    code = runners_main(
        [
            "run",
            "--framework",
            "pytorch",
            "--profile",
            "smoke",
            "--device",
            "gpu",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    assert code == EXIT_FAILURE
    assert "runners run: error: RuntimeError: --device gpu: PyTorch sees no CUDA device" in captured.err
    (path,) = tmp_path.rglob("*.json")
    assert captured.out.strip().splitlines()[-1] == str(path)
    assert json.loads(path.read_text())["failure"]["message"] == "--device gpu: PyTorch sees no CUDA device"


def test_dry_run_prints_the_configuration_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "runs"
    assert runners_main(["run", "--framework", "jax", "--profile", "smoke", "--dry-run", "--out", str(out)]) == EXIT_OK
    printed = capsys.readouterr().out
    assert "nothing runs and nothing is written" in printed and '"framework":"jax"' in printed
    assert f"record: {out}/" in printed and not out.exists()


def test_dry_run_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        runners_main(["run", "--help"])
    assert "--dry-run" in capsys.readouterr().out
