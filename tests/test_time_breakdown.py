"""Where a matrix's wall time went (``fwbench.time_breakdown``), from run records alone."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest

from fwbench.time_breakdown import TIME_PARTS, breakdown_line, repeat_rounds, time_breakdown
from runners.measure import machine_load, profiles, provenance
from runners.measure import run as run_module
from runners.measure.record import Measured, ok_record

QUIET = {"load_avg_1m": 0.1, "load_avg_5m": 0.1, "other_cpu_percent": 1.0, "cpu_count": 2}


def run(
    start: str, end: str, first: float, compile_s: float, epochs: list[float], waited: float | None = 0.0, **timed
) -> dict:
    """An ok run record's fields that the breakdown reads; ``waited`` None: a record without a load section;
    ``timed``: its ``setup_seconds`` and ``evaluation_seconds`` (absent: a record made before they were timed)."""
    return {
        "status": "ok",
        "started_at": f"2026-11-30T10:{start}Z",
        "finished_at": f"2026-11-30T10:{end}Z",
        "timing": {"first_step_seconds": first, "compile_seconds": compile_s, "epoch_seconds_each": epochs, **timed},
        "load": None if waited is None else {"waited_seconds": waited},
    }


def test_the_span_of_sequential_runs_splits_into_its_parts():
    records = [
        run("00:00.000", "01:00.000", 20, 15, [30]),
        run("01:02.000", "01:32.000", 10, 8, [12, 5]),
        {"status": "error", "started_at": "2026-11-30T11:00:00.000Z", "timing": None},
    ]
    breakdown = time_breakdown(records)
    assert breakdown == {
        "span_s": 92,
        "run_s": 90,
        "compile_s": 23,
        "warm_up_s": 7,
        "timed_s": 47,
        "quiet_wait_s": 0,
        "setup_s": 0,
        "evaluation_s": 0,
        "in_run_other_s": 13,
        "between_runs_s": 2,
    }
    assert sum(breakdown[part] for part in TIME_PARTS) == breakdown["span_s"]
    # a framework's share of an interleaved matrix: the time inside its runs, without the gaps between them
    within = breakdown_line(breakdown, within_runs=True)
    assert within == (
        "90 s = compile 23 + warm-up steps 7 + timed epochs 47 + waiting for quiet 0 + "
        "set-up (data, framework import, model) 0 + evaluation 0 + the rest of the run 13"
    )
    assert breakdown_line(breakdown).startswith("92 s = compile 23 + warm-up steps 7 + timed epochs 47 + ")
    assert time_breakdown(records[2:]) == {} and breakdown_line({}) == "no ok runs to account for"


def test_the_wait_for_quiet_is_its_own_part_not_set_up():
    records = [
        run("00:00.000", "01:00.000", 20, 15, [30], waited=8.0),
        run("01:02.000", "01:32.000", 10, 8, [12, 5], waited=None),
    ]
    breakdown = time_breakdown(records)
    assert breakdown["quiet_wait_s"] == 8 and breakdown["in_run_other_s"] == 5  # 13 s in all, 8 of them waiting
    assert "waiting for quiet 8 + set-up (data, framework import, model) 0 + evaluation 0 + the rest of the run 5" in (
        breakdown_line(breakdown)
    )


def test_a_record_that_times_its_set_up_and_evaluation_splits_them_from_the_rest():
    records = [run("00:00.000", "01:00.000", 20, 15, [30], setup_seconds=6.0, evaluation_seconds=2.5)]
    breakdown = time_breakdown(records)
    assert (breakdown["setup_s"], breakdown["evaluation_s"], breakdown["in_run_other_s"]) == (6.0, 2.5, 1.5)


def written(config, start: str, seconds: float, compile_s: float, epoch_s: float, cache: str) -> dict:
    """The ok record of ``config`` as ``runners run`` writes it: started at ``start`` (minutes:seconds past 10:00 on
    one day), ``seconds`` long, its first step ``compile_s`` longer than a step, one timed epoch of ``epoch_s``."""
    steps = config.epoch_train_images // config.batch_size
    windows = run_module.window_sizes(steps)
    measured = Measured(
        first_step_seconds=compile_s + epoch_s / steps,
        epoch_seconds=[epoch_s],
        window_step_seconds=[epoch_s / steps] * len(windows),
        window_steps=windows,
        epochs=[{"epoch": 1, "train_loss": 2.0, "train_accuracy": 0.1, "test_loss": 2.0, "test_accuracy": 0.1}],
        framework_memory={"allocator_peak_bytes": None, "allocator_reserved_bytes": None},
        nvml_peak_bytes=None,
        host_self_peak_bytes=1 << 30,
        host_children_peak_bytes=0,
        data_bytes=1 << 20,
        load=machine_load.load_section(QUIET, QUIET, 0.0),
        compile_cache=cache,
    )
    started = datetime.fromisoformat(f"2026-11-30T10:{start}")
    finished = started + timedelta(seconds=seconds)
    return ok_record(
        config,
        {**provenance.hardware_for("cpu"), "machine_id": "m"},
        f"{started.isoformat()}.000Z",
        f"{finished.isoformat()}.000Z",
        measured,
        software=provenance.software_info(),
        command=["runners/cli.py", "run", "--config-json", config.to_json()],
    )


def test_a_repeat_round_is_set_beside_the_first_runs_of_the_same_configurations_with_the_floor_no_harness_passes():
    configs = profiles.expand(
        "smoke", version_of={"torch": "2.4.1", "tensorflow": "2.17.0", "jax": "0.4.31"}.get, batch_sizes=[32]
    )
    torch, jax, tensorflow = ({c.framework: c for c in configs}[name] for name in ("torch", "jax", "tensorflow"))
    again = dataclasses.replace
    records = [
        written(torch, "00:00", 50, 30, 10, "cold"),
        written(jax, "01:00", 30, 5, 20, "cold"),
        written(again(torch, repeat=1), "02:00", 20, 2, 10, "warm"),
        written(again(jax, repeat=1), "03:00", 16, 5, 8, "cold"),  # its cache was gone: compiled cold again
        written(again(torch, repeat=2), "04:00", 15, 1, 9, "warm"),
        written(again(tensorflow, repeat=1), "05:00", 10, 1, 5, "warm"),  # its first run is not among them: left out
    ]
    step = {config.framework: 1 / (config.epoch_train_images // config.batch_size) for config in (torch, jax)}
    rounds = repeat_rounds(records)
    assert rounds.keys() == {1, 2}
    assert {key: rounds[1][key] for key in ("runs", "warm", "seconds", "first_seconds")} == {
        "runs": 2,
        "warm": 1,
        "seconds": 36.0,
        "first_seconds": 80.0,
    }
    # the training steps: first step (compile + a step) and the epoch; less the compile for the floor
    assert rounds[1]["steps_seconds"] == pytest.approx(2 + 10 * step["torch"] + 10 + 5 + 8 * step["jax"] + 8)
    assert rounds[1]["uncompiled_seconds"] == pytest.approx(10 * step["torch"] + 10 + 8 * step["jax"] + 8)
    assert rounds[1]["first_steps_seconds"] == pytest.approx(30 + 10 * step["torch"] + 10 + 5 + 20 * step["jax"] + 20)
    assert rounds[2]["runs"] == 1 and rounds[2]["first_seconds"] == 50.0
    assert rounds[2]["uncompiled_seconds"] == pytest.approx(9 * step["torch"] + 9)
