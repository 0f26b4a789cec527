"""Run records on several machines whose leaders the test chooses, for the tests of what sets machines side by
side (the home page's answer and chart, the machines page's chart)."""

from __future__ import annotations

from pathlib import Path

import gen_records

from fwbench.records import write_record

SECOND = "cpu-second-cpu-2t-2b3c4d"
THIRD = "cpu-third-cpu-2t-3c4d5e"
#: an epoch's seconds for the machine's leader and for every other framework: far enough apart to decide the lead
LEADER_SECONDS, OTHER_SECONDS = 10.0, 14.0


def write_runs(root: Path, leaders: dict[str, str], frameworks: tuple[str, ...] = ("torch", "jax")) -> None:
    """Three runs (seeds 0–2, 0.05 s apart) of each framework at batch 32 on each machine of ``leaders`` (machine
    id -> the framework that trains fastest there) under ``root``/runs."""
    for machine, leader in leaders.items():
        for framework in frameworks:
            for seed in range(3):
                seconds = (LEADER_SECONDS if framework == leader else OTHER_SECONDS) + 0.05 * seed
                record = gen_records.run(framework, 32, seed, seconds=seconds, machine_id=machine)
                write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
