"""A release bisect as runners bisect leaves it in a results tree: its report (hand-written in the
shape of fwbench/schemas/bisect.schema.json) and the run records behind it, made by an older runner."""

from __future__ import annotations

from pathlib import Path

import gen_records

from fwbench.records import write_record

ISSUE_FLAGS = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}
REPORT_NAME = "jax-images_per_second-bs32.json"


def bisect_report(machine_id: str = gen_records.CPU_MACHINE) -> dict:
    """A release bisect of JAX's images/s at batch 32 on ``machine_id``; one failed sample's message holds HTML."""
    jax = {"jaxlib": None, "flax": "0.10.2", "optax": "0.2.4", "numpy": "2.1.3"}

    def sample(release, value, status="ok", message=None):
        return {
            "value": value,
            "record_id": f"jax-compiled-synthetic-bs32-seed0-{release}",
            "status": status,
            "message": message,
            "packages": {**jax, "jax": release, "jaxlib": release},
        }

    return {
        "schema": "fwbench.bisect/1",
        "framework": "jax",
        "metric": "images_per_second",
        "higher_is_better": True,
        "config": {
            "profile": "versions",
            "mode": "compiled",
            "batch_size": 32,
            "dataset": "synthetic",
            "train_images": 256,
            "test_images": 128,
            "epochs": 1,
            "device": "cpu",
        },
        "machine_id": machine_id,
        "hardware": gen_records.hardware(machine_id),
        "releases": ["0.4.26", "0.4.33", "0.4.35", "0.4.36", "0.10.2"],
        "threshold": 0.2,
        "repeats": 3,
        "samples": {
            "0.4.26": [sample("0.4.26", 31.0)],
            "0.4.33": [sample("0.4.33", None, "error", "<b>pip</b> could not resolve jaxlib")],
            "0.4.35": [sample("0.4.35", v) for v in (30.0, 30.4, 29.8)],
            "0.4.36": [sample("0.4.36", v) for v in (10.2, 10.0, 10.5)],
            "0.10.2": [sample("0.10.2", 9.0)],
        },
        "result": {
            "status": "found",
            "message": "images_per_second fell 66 % from jax 0.4.35 to 0.4.36",
            "last_good": "0.4.35",
            "first_bad": "0.4.36",
            "good_median": 30.0,
            "bad_median": 10.2,
            "drop": 0.66,
            "skipped": ["0.4.33"],
        },
        "reproduce": "runners envs build jax=0.4.35,0.4.36\n"
        "runners matrix --profile quick --frameworks jax --versions jax=0.4.35,0.4.36 --batch-sizes 32 --seeds 0,1,2",
        "workaround": ISSUE_FLAGS,
        "workaround_samples": [sample("0.4.36", v) for v in (29.0, 29.5, 28.8)],
        "started_at": "2026-12-01T11:00:00Z",
        "finished_at": "2026-12-01T12:00:00Z",
        "command": ["runners", "bisect", "--framework", "jax"],
    }


def write_bisect(root: Path, machine_id: str = gen_records.CPU_MACHINE) -> None:
    """``bisect_report`` under ``root/bisect/<machine_id>/``, with one ``fwbench.run/2`` record (timing protocol 1)
    per release it measured in its ``runs/``."""
    folder = root / "bisect" / machine_id
    report = bisect_report(machine_id)
    write_record(folder / REPORT_NAME, report)
    for release, samples in report["samples"].items():
        if samples[0]["status"] != "ok":
            continue
        run = gen_records.run("jax", 32, machine_id=machine_id, older=True)
        run["record_id"] = samples[0]["record_id"]
        run["framework"]["version"] = release
        write_record(folder / "runs" / f"{run['record_id']}.json", run)
