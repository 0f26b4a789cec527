"""``runners run`` as a user meets it: a failed run says why before the record's path, and ``--dry-run`` previews."""

from __future__ import annotations

import json

import pytest

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from runners.cli import main as runners_main
from runners.measure import provenance


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


def usage_error(argv: list[str], capsys) -> str:
    """``runners`` with ``argv``, which must exit 2 having printed one line and nothing on stdout: that line."""
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(runners_main(argv))
    printed = capsys.readouterr()
    assert exit_info.value.code == EXIT_USAGE and not printed.out
    (line,) = printed.err.splitlines()  # no traceback
    return line


@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["run", "--framework", "torch", "--dataset", "grammar", "--dry-run"],
            "runners run: error: --dataset grammar: the resnet18 workload trains on synthetic, cifar10 only",
        ),
        (
            ["run", "--framework", "torch", "--workload", "gpt", "--dataset", "synthetic"],
            "runners run: error: --dataset synthetic: the gpt workload trains on grammar only",
        ),
        (
            ["matrix", "--profile", "smoke", "--dataset", "grammar", "--dry-run"],
            "runners matrix: error: --dataset grammar: the resnet18 workload trains on synthetic, cifar10 only",
        ),
    ],
)
def test_a_dataset_not_of_the_workload_is_a_usage_error(tmp_path, argv, line, capsys):
    out = tmp_path / "runs"
    assert usage_error([*argv, "--out", str(out)], capsys) == line
    assert not out.exists()


def test_the_dataset_help_says_which_workload_trains_on_which_and_the_default(capsys):
    with pytest.raises(SystemExit):
        runners_main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "resnet18: synthetic (" in shown and "gpt: grammar (" in shown
    assert "(default: the profile's: synthetic for smoke, quick, versions;" in shown


def test_every_directory_flag_is_checked_before_any_is_created(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("not a directory")
    argv = ["run", "--framework", "jax", "--compile-cache", str(blocker), "--out", str(tmp_path / "runs")]
    assert usage_error(argv, capsys) == f"runners run: error: --compile-cache {blocker}: not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("command", [["run", "--framework", "jax"], ["matrix", "--profile", "smoke"]])
def test_a_dry_run_refuses_an_out_the_run_would_refuse(tmp_path, command, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("not a directory")
    line = usage_error([*command, "--dry-run", "--out", str(blocker)], capsys)
    assert line == f"runners {command[0]}: error: --out {blocker}: not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def smoke_config(capsys) -> dict:
    """The configuration ``runners run --dry-run`` prints for torch in the smoke profile."""
    assert runners_main(["run", "--framework", "torch", "--dry-run"]) == EXIT_OK
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("configuration: ")]
    return json.loads(line.removeprefix("configuration: "))


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("profile", "nope", "profile 'nope': unknown; choose from smoke, quick, versions, article, smoke-gpt"),
        ("batch_size", -3, "batch_size: must be at least 1, got '-3'"),  # as --batch-size -3 says it
        ("epochs", 0, "epochs: must be at least 1, got '0'"),
        ("seed", -1, "seed: must be at least 0, got '-1'"),
    ],
)
def test_a_bad_config_json_field_is_named_with_its_value(field, value, said, capsys):
    config = {**smoke_config(capsys), field: value}
    line = usage_error(["run", "--config-json", json.dumps(config), "--dry-run"], capsys)
    assert line.startswith(f"runners run: error: --config-json: {said}")


def test_runs_precision_help_names_no_extra_precisions(capsys):
    """Only a matrix runs a profile's extra precisions; one run runs one."""
    with pytest.raises(SystemExit):
        runners_main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "extra precisions" not in shown and "(default: the profile's; smoke: fp32;" in shown
