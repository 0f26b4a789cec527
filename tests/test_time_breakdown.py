"""Where a matrix's wall time went (``fwbench.time_breakdown``), from run records alone."""

from __future__ import annotations

from fwbench.time_breakdown import TIME_PARTS, breakdown_line, repeat_rounds, time_breakdown


def run(start: str, end: str, first: float, compile_s: float, epochs: list[float], waited: float | None = 0.0) -> dict:
    """An ok run record's fields that the breakdown reads; ``waited`` None: a record without a load section."""
    return {
        "status": "ok",
        "started_at": f"2026-11-30T10:{start}Z",
        "finished_at": f"2026-11-30T10:{end}Z",
        "timing": {"first_step_seconds": first, "compile_seconds": compile_s, "epoch_seconds_each": epochs},
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
        "in_run_other_s": 13,
        "between_runs_s": 2,
    }
    assert sum(breakdown[part] for part in TIME_PARTS) == breakdown["span_s"]
    # a framework's share of an interleaved matrix: the time inside its runs, without the gaps between them
    within = breakdown_line(breakdown, within_runs=True)
    assert within == (
        "90 s = compile 23 + warm-up steps 7 + timed epochs 47 + waiting for quiet 0 + "
        "imports, set-up, evaluation, record 13"
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
    assert "waiting for quiet 8 + imports, set-up, evaluation, record 5" in breakdown_line(breakdown)


def test_a_repeat_round_is_set_beside_the_first_runs_of_the_same_configurations():
    def repeat(record_id: str, k: int, seconds: str, cache: str = "warm") -> dict:
        record = run("00:00.000", f"00:{seconds}.000", 1, 1, [1])
        record["timing"]["compile_cache"] = cache
        return {**record, "record_id": record_id + (f"-r{k}" if k else ""), "config": {"repeat": k}}

    records = [
        repeat("torch-a1b2c3d4", 0, "50", "cold"),
        {**repeat("jax-e5f6a7b8", 0, "30", "cold"), "config": {}},  # made before repeats were recorded
        repeat("torch-a1b2c3d4", 1, "20"),
        repeat("jax-e5f6a7b8", 1, "16", "cold"),
        repeat("torch-a1b2c3d4", 2, "15"),
        repeat("tensorflow-0a1b2c3d", 1, "10"),  # its first run is not among the records: left out
    ]
    assert repeat_rounds(records) == {
        1: {"runs": 2, "warm": 1, "seconds": 36.0, "steps_seconds": 4.0, "first_seconds": 80.0},
        2: {"runs": 1, "warm": 1, "seconds": 15.0, "steps_seconds": 2.0, "first_seconds": 50.0},
    }
