"""A run's drift between the halves of its timed windows (fwbench.run_figures.drift) and how often they agree per
machine (benchmarks/run_halves.py), on run records made through runners.measure.record."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gen_records
import pytest

from benchmarks import run_halves
from fwbench.records import write_record
from fwbench.run_figures import drift
from runners.measure import run as runner
from runners.measure.profiles import RunConfig, expand
from runners.measure.record import ok_record

QUICK_32 = next(
    c
    for c in expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
    if c.framework == "torch" and c.batch_size == 32 and c.precision == "fp32"
)
#: 32 steps an epoch: eight timing windows of 4 steps
CONFIG = dataclasses.replace(QUICK_32, train_images=32 * 32)
STEPS = CONFIG.epoch_train_images // CONFIG.batch_size


def recorded(config: RunConfig, machine_id: str = gen_records.CPU_MACHINE, **changes) -> dict:
    """The record ``runners run`` writes for ``config`` at 100 images/s on ``machine_id`` (``changes``: Measured's
    fields replaced)."""
    return ok_record(
        config,
        gen_records.hardware(machine_id),
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:01:00.000Z",
        gen_records.one_epoch(config, 100.0, **changes),
        software=gen_records.software(),
        command=["runners", "run"],
    )


def drifting(ratio: float, repeat: int = 0, machine_id: str = gen_records.CPU_MACHINE) -> dict:
    """A run of CONFIG whose second half's windows took ``ratio`` times its first half's seconds per step."""
    windows = runner.window_sizes(STEPS)
    half = len(windows) // 2
    seconds = [0.32] * half + [0.32 * ratio] * half
    return recorded(dataclasses.replace(CONFIG, repeat=repeat), machine_id, window_step_seconds=seconds)


def without_window_times(record: dict) -> dict:
    """``record`` as a timing-protocol-2 runner wrote it: the windows' steps, not their times."""
    del record["timing"]["window_step_seconds"]
    record["protocol"] = 2
    return record


@pytest.mark.parametrize(("ratio", "beyond"), [(1.07, True), (1.03, False), (1 / 1.07, True), (1 / 1.03, False)])
def test_drift_is_the_second_halfs_step_time_over_the_firsts_and_beyond_the_verdicts_band(ratio, beyond):
    found = drift(drifting(ratio))
    assert found.ratio == pytest.approx(ratio)
    assert found.beyond_band is beyond


def test_drift_weights_each_window_by_its_steps_and_leaves_the_middle_of_an_odd_count_out():
    weighted = drift(recorded(CONFIG, window_steps=[12, 4, 8, 8], window_step_seconds=[1.0, 2.0, 1.5, 1.5]))
    assert weighted.ratio == pytest.approx(1.5 / 1.25)  # unweighted, the first half would be 1.5 too: no drift
    odd = drift(recorded(CONFIG, window_steps=[12, 8, 12], window_step_seconds=[1.0, 9.0, 1.1]))
    assert odd.ratio == pytest.approx(1.1)


def test_drift_spans_every_epochs_windows_in_order():
    config = dataclasses.replace(CONFIG, epochs=2)
    windows = runner.window_sizes(STEPS) * 2
    seconds = [0.3] * (len(windows) // 2) + [0.36] * (len(windows) // 2)  # the second epoch slower throughout
    epochs = gen_records.one_epoch(config, 100.0).epochs * 2
    record = recorded(
        config, epoch_seconds=[9.6, 11.52], window_steps=windows, window_step_seconds=seconds, epochs=epochs
    )
    assert drift(record).ratio == pytest.approx(1.2)


def test_no_drift_without_window_times_or_with_one_window():
    assert drift(without_window_times(drifting(1.2))) is None
    one_window = dataclasses.replace(QUICK_32, train_images=4 * 32, min_timed_steps=4)  # 4 steps: one window
    assert drift(recorded(one_window)) is None


def write_runs(root: Path, records: list[dict]) -> Path:
    """``records`` under ``root``/runs/<machine>/, as the matrix files them; returns ``root``."""
    for index, record in enumerate(records):
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"run-{index}.json", record)
    return root


def test_the_script_counts_each_machines_runs_whose_halves_agree_and_names_the_worst(tmp_path, capsys):
    cpu = [drifting(r, repeat) for repeat, r in enumerate((1.0, 1.02, 1 / 1.04, 1.09, 1 / 1.12))]
    gpu = [drifting(1.01, repeat, gen_records.GPU_MACHINE) for repeat in range(3)]
    root = write_runs(tmp_path, [*cpu, *gpu, without_window_times(drifting(1.5, 9))])
    assert run_halves.main(["--results", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    cpu_row = next(line.split() for line in lines if line.startswith(gen_records.CPU_MACHINE))
    gpu_row = next(line.split() for line in lines if line.startswith(gen_records.GPU_MACHINE))
    # machine, device, n, within 5 %, share, ≥ 90 %, worst drift, its record: 1/1.12 is −10.7 %, beyond +9 %
    assert cpu_row == ["cpu-test-cpu-2t-1a2b3c", "cpu", "5", "3", "60", "%", "no", "-10.7", "%", cpu_row[-1]]
    assert cpu_row[-1] == f"runs/{gen_records.CPU_MACHINE}/run-4.json"
    assert gpu_row[1:7] == ["gpu", "3", "3", "100", "%", "yes"]


def test_the_script_says_in_one_line_when_no_record_keeps_window_times(tmp_path, capsys):
    root = write_runs(tmp_path, [without_window_times(drifting(1.2))])
    assert run_halves.main(["--results", str(root)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1
    assert "timing.window_step_seconds" in out.err and str(root) in out.err


def test_the_scripts_help_explains_and_a_missing_folder_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        run_halves.main(["--help"])
    assert done.value.code == 0
    assert "--results" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        run_halves.main(["--results", str(tmp_path / "absent")])
    assert done.value.code == 2
    assert "absent: no such directory" in capsys.readouterr().err
