"""Run records (``fwbench.run/1``): the parts every record has, and the record of a failed run."""

from __future__ import annotations

import sys
from pathlib import Path

from runners import arch, provenance, schedule
from runners.profiles import RunConfig

SCHEMA = "fwbench.run/1"
STDERR_TAIL_CHARS = 4000
PRECISION = "float32 (TF32 off)"


def record_path(out: Path, machine_id: str, config: RunConfig) -> Path:
    """Where a configuration's record lives: ``<out>/<machine_id>/<record_id>.json``."""
    return Path(out) / machine_id / f"{config.record_id}.json"


def config_section(config: RunConfig) -> dict:
    """The record's ``config``: what was asked for, including the learning-rate schedule."""
    steps = config.train_images // config.batch_size
    return {"profile": config.profile, "dataset": config.dataset, "batch_size": config.batch_size,
            "epochs": config.epochs, "seed": config.seed, "images_per_epoch": steps * config.batch_size,
            "test_images": config.test_images, "steps_per_epoch": max(1, steps),
            "lr_schedule": schedule.describe(config.batch_size, max(1, steps) * config.epochs),
            "device": config.device, "precision": PRECISION, "tuning_environment": dict(config.tuning)}


def model_section() -> dict:
    return {"name": "resnet18-cifar", "trainable_params": arch.trainable_param_count(),
            "flops_per_image": arch.flops_per_image(), "macs_per_image": arch.macs_per_image()}


def base_record(config: RunConfig, hardware: dict, started_at: str, version: str | None) -> dict:
    """A record with provenance filled and every measurement section empty."""
    return {"schema": SCHEMA, "record_id": config.record_id, "status": "error",
            "framework": {"name": config.framework, "version": version, "mode": config.mode},
            "config": config_section(config), "model": model_section(), "hardware": hardware,
            "software": provenance.software_info(), "timing": None, "memory": None, "accuracy": None,
            "mfu": None, "failure": None, "started_at": started_at, "finished_at": provenance.utc_now(),
            "command": list(sys.argv)}


def failed_record(config: RunConfig, hardware: dict, started_at: str, status: str, exception_type: str | None,
                  message: str | None, stderr_tail: str | None = None, exit_code: int | None = None,
                  version: str | None = None) -> dict:
    """The record of a run that ended in ``status`` (oom, error or timeout): failures are data."""
    record = base_record(config, hardware, started_at, version)
    tail = stderr_tail[-STDERR_TAIL_CHARS:] if stderr_tail else stderr_tail
    record.update(status=status, failure={"exception_type": exception_type, "message": message,
                                          "stderr_tail": tail, "exit_code": exit_code})
    return record
