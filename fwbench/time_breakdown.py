"""Where the wall time of a benchmark matrix went, from its run records alone: its parts, and what a repeat round
cost beside the first runs of the same configurations."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from fwbench.records import config_id_of

#: the parts of a matrix's span, in the order they are printed
TIME_PARTS = {
    "compile_s": "compile",
    "warm_up_s": "warm-up steps",
    "timed_s": "timed epochs",
    "quiet_wait_s": "waiting for quiet",
    "setup_s": "set-up (data, framework import, model)",
    "evaluation_s": "evaluation",
    "in_run_other_s": "the rest of the run",
    "between_runs_s": "between runs",
}


def wall_seconds(record: dict) -> float:
    """How long one run took, from its start to its finish."""
    started, finished = (datetime.fromisoformat(record[key]) for key in ("started_at", "finished_at"))
    return (finished - started).total_seconds()


def repeat_rounds(records: list[dict]) -> dict[int, dict]:
    """Repeat index (``config.repeat``, 0 for records made before repeats) → that round's ``runs``, their ``warm``
    compile caches (``timing.compile_cache``), their ``seconds``, the ``steps_seconds`` of their training steps alone
    (the first step, compile included, and the timed epochs: what no cache or quicker start-up removes), and the
    ``first_seconds`` of the first runs of the same configurations (repeats of the same record id, without its
    ``-r<k>``), for the rounds after the first; from ``ok`` records only, and only for configurations whose first run
    is among them.

    Beside them, the floor no harness can go under: ``uncompiled_seconds``, the round's training steps less their
    (warm) compile, against ``first_steps_seconds``, the first runs' training steps with their cold compile: the
    ratio a round would cost if imports, set-up, evaluation and the record took no time in either round and a warm
    compile none at all. Where it is above a target, only faster training steps could meet it."""
    ok = [r for r in records if r["status"] == "ok"]
    first = {r["record_id"]: r for r in ok if not r["config"].get("repeat")}
    rounds: dict[int, dict] = defaultdict(
        lambda: dict.fromkeys(
            ("runs", "warm", "seconds", "steps_seconds", "uncompiled_seconds", "first_seconds", "first_steps_seconds"),
            0,
        )
    )
    for record in ok:
        repeat, config_id = record["config"].get("repeat") or 0, config_id_of(record["record_id"])
        if repeat and config_id in first:
            round_ = rounds[repeat]
            round_["runs"] += 1
            round_["warm"] += (record.get("timing") or {}).get("compile_cache") == "warm"
            round_["seconds"] += wall_seconds(record)
            round_["steps_seconds"] += steps_seconds(record)
            round_["uncompiled_seconds"] += steps_seconds(record) - record["timing"]["compile_seconds"]
            round_["first_seconds"] += wall_seconds(first[config_id])
            round_["first_steps_seconds"] += steps_seconds(first[config_id])
    return dict(sorted(rounds.items()))


def steps_seconds(record: dict) -> float:
    """A run's training steps: its first step (its compile included) and its timed epochs."""
    return record["timing"]["first_step_seconds"] + sum(record["timing"]["epoch_seconds_each"])


def time_breakdown(records: list[dict]) -> dict[str, float]:
    """Where the wall time of ``ok`` run records went, summed (seconds): ``span_s`` from the first start to
    the last finish, split into the parts of ``TIME_PARTS``.

    ``quiet_wait_s`` is the runs' wait for other processes to leave the CPUs (``load.waited_seconds``, inside
    each run's start and finish: the machine's, not the framework's time); ``between_runs_s`` is the span not
    covered by any run (process start-up, the matrix's own work), meaningful for records of one sequential
    matrix.
    """
    ok = [r for r in records if r["status"] == "ok"]
    if not ok:
        return {}
    starts = [datetime.fromisoformat(r["started_at"]) for r in ok]
    ends = [datetime.fromisoformat(r["finished_at"]) for r in ok]
    run_s = sum(wall_seconds(r) for r in ok)
    span_s = (max(ends) - min(starts)).total_seconds()
    compile_s = sum(r["timing"]["compile_seconds"] for r in ok)
    first_s = sum(r["timing"]["first_step_seconds"] for r in ok)
    timed_s = sum(sum(r["timing"]["epoch_seconds_each"]) for r in ok)
    quiet_wait_s = sum((r.get("load") or {}).get("waited_seconds") or 0.0 for r in ok)  # no load: an older record
    setup_s, evaluation_s = (
        sum(r["timing"].get(name) or 0.0 for r in ok) for name in ("setup_seconds", "evaluation_seconds")
    )
    return {
        "span_s": span_s,
        "run_s": run_s,
        "compile_s": compile_s,
        "warm_up_s": first_s - compile_s,
        "timed_s": timed_s,
        "quiet_wait_s": quiet_wait_s,
        "setup_s": setup_s,
        "evaluation_s": evaluation_s,
        "in_run_other_s": run_s - first_s - timed_s - quiet_wait_s - setup_s - evaluation_s,
        "between_runs_s": span_s - run_s,
    }


def breakdown_line(breakdown: dict[str, float], within_runs: bool = False) -> str:
    """``time_breakdown`` as one line: the span and its parts, in seconds; ``within_runs``: only the time inside
    the runs (``run_s``), for a subset of an interleaved matrix, whose span also holds the other runs."""
    if not breakdown:
        return "no ok runs to account for"
    keys = [key for key in TIME_PARTS if not (within_runs and key == "between_runs_s")]
    parts = " + ".join(f"{TIME_PARTS[key]} {breakdown[key]:.0f}" for key in keys)
    return f"{breakdown['run_s' if within_runs else 'span_s']:.0f} s = {parts}"
