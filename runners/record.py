"""Run records (``fwbench.run/2``): the record of a measured run, the parts every record has, and the record of
a failed run.

``ok_record`` is a pure function of its arguments and imports no framework: ``runners run`` builds every ok
record through it, and a test can build one from injected measurements (``software`` and ``command`` are
arguments too, so nothing comes from the machine that runs the test). An article-profile run on an RTX 4090
(``tests/runners/test_records.py::article_record`` does this)::

    (config,) = expand("article", frameworks=["torch"], modes=["compiled"], batch_sizes=[256], seeds=[0])
    steps = config.train_images // config.batch_size            # 195 steps: 49,920 of the 50,000 images
    windows = run.window_sizes(steps) * config.epochs           # [25, 25, 25, 24, 24, 24, 24, 24] per epoch
    quiet = {"load_avg_1m": 0.3, "load_avg_5m": 0.2, "other_cpu_percent": 1.5, "cpu_count": 32}
    measured = Measured(
        first_step_seconds=30.0, epoch_seconds=[11.0] * 5, window_step_seconds=[11.0 / steps] * len(windows),
        window_steps=windows, epochs=[{"epoch": e, "train_loss": 1.0, "train_accuracy": 0.6, "test_loss": 1.1,
                                       "test_accuracy": 0.6} for e in range(1, 6)],
        framework_memory={"allocator_peak_bytes": 3 << 30, "allocator_reserved_bytes": 4 << 30},
        nvml_peak_bytes=5 << 30, host_self_peak_bytes=2 << 30, host_children_peak_bytes=0, data_bytes=630_000_000,
        load=machine_load.load_section(quiet, quiet, waited_seconds=0.0), run_order=run_order(3, 40))
    record = ok_record(config, hardware, "2026-12-01T10:00:00.000Z", "2026-12-01T10:02:00.000Z", measured,
                       software=software, command=["runners", "run", "--profile", "article"])

``hardware`` has ``provenance.hardware_info()``'s shape with the GPU's fields (device_kind "gpu", device_name
"NVIDIA GeForce RTX 4090", …); ``software`` has ``provenance.software_info()``'s.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fwbench.timestamps import utc_now
from runners import arch, provenance, schedule
from runners.host_memory import BASIS as HOST_PEAK_BASIS
from runners.profiles import RunConfig

SCHEMA = "fwbench.run/2"
STDERR_TAIL_CHARS = 4000
PRECISION = "float32 (TF32 off)"
#: how ``runners matrix`` orders its configurations (``config.run_order.scheme``)
RUN_ORDER_SCHEME = "round-robin over frameworks within each batch size, rotated"


@dataclass(frozen=True)
class Measured:
    """The raw measurements of one run, as ``runners.run`` takes them; ``ok_record`` derives the figures."""

    first_step_seconds: float  # the first step alone, synced: trace + compile + autotune + one step
    epoch_seconds: list[float]  # the clock of each timed epoch
    window_step_seconds: list[float]  # per-step seconds of each timed window, all epochs in order
    window_steps: list[int]  # how many steps each of those windows held
    epochs: list[dict]  # per epoch: epoch, train_loss, train_accuracy, test_loss, test_accuracy
    framework_memory: dict  # the trainer's memory(): allocator_peak_bytes, allocator_reserved_bytes
    nvml_peak_bytes: int | None  # None: no NVIDIA GPU, or NVML cannot see this process
    host_self_peak_bytes: int  # this process's peak RSS above the post-import baseline
    host_children_peak_bytes: int  # its child processes' summed RSS peak above the baseline
    data_bytes: int  # the largest resident data: one epoch's batches plus the test set
    load: dict  # machine_load.load_section(...)
    run_order: dict | None = None  # run_order(K, N) in a matrix, None for a lone run


def run_order(position: int, total: int) -> dict:
    """The record's ``config.run_order``: the configuration's 1-based place in the matrix's execution order."""
    return {"position": position, "total": total, "scheme": RUN_ORDER_SCHEME}


def record_path(out: Path, machine_id: str, config: RunConfig) -> Path:
    """Where a configuration's record lives: ``<out>/<machine_id>/<record_id>.json``."""
    return Path(out) / machine_id / f"{config.record_id}.json"


def config_section(config: RunConfig, run_order: dict | None = None) -> dict:
    """The record's ``config``: what was asked for (``train_images``), what the epoch trained after drop-last
    (``images_per_epoch``), the learning-rate schedule, and the place in a matrix's order."""
    steps = config.train_images // config.batch_size
    return {
        "profile": config.profile,
        "dataset": config.dataset,
        "batch_size": config.batch_size,
        "epochs": config.epochs,
        "seed": config.seed,
        "train_images": config.train_images,
        "images_per_epoch": steps * config.batch_size,
        "sized_for": config.sized_for,
        "test_images": config.test_images,
        "steps_per_epoch": max(1, steps),
        "lr_schedule": schedule.describe(config.batch_size, max(1, steps) * config.epochs),
        "device": config.device,
        "precision": PRECISION,
        "tuning_environment": dict(config.tuning),
        "run_order": run_order,
    }


def model_section() -> dict:
    return {
        "name": "resnet18-cifar",
        "trainable_params": arch.trainable_param_count(),
        "flops_per_image": arch.flops_per_image(),
        "macs_per_image": arch.macs_per_image(),
    }


def peak_flops(device_name: str | None, precision: str = "float32") -> float | None:
    """The device's peak FLOP/s from device_peaks.json, or None when unknown (MFU is then null)."""
    table = json.loads(Path(__file__).with_name("device_peaks.json").read_text())[precision]
    return table.get(device_name) if device_name else None


def base_record(
    config: RunConfig,
    hardware: dict,
    software: dict,
    started_at: str,
    finished_at: str,
    command: list[str],
    run_order: dict | None = None,
) -> dict:
    """A record with provenance filled and every measurement section empty."""
    return {
        "schema": SCHEMA,
        "record_id": config.record_id,
        "status": "error",
        "framework": {"name": config.framework, "version": config.framework_version, "mode": config.mode},
        "config": config_section(config, run_order),
        "model": model_section(),
        "hardware": hardware,
        "software": software,
        "timing": None,
        "memory": None,
        "accuracy": None,
        "mfu": None,
        "load": None,
        "failure": None,
        "started_at": started_at,
        "finished_at": finished_at,
        "command": list(command),
    }


def ok_record(
    config: RunConfig,
    hardware: dict,
    started_at: str,
    finished_at: str,
    measured: Measured,
    *,
    software: dict,
    command: list[str],
) -> dict:
    """The record of a run that finished (status ok), computed from its raw measurements alone.

    Derived figures: seconds per epoch and images/s from the median epoch; step time median and p90 over the
    timed windows' per-step times; compile time as the first step's excess over the median step; MFU from
    device_peaks.json for a GPU whose peak is known, else null. ValueError when the windows do not add up to the
    configuration's steps.
    """
    record = base_record(config, hardware, software, started_at, finished_at, command, measured.run_order)
    steps = record["config"]["steps_per_epoch"]
    if len(measured.window_steps) != len(measured.window_step_seconds) or sum(measured.window_steps) != steps * len(
        measured.epoch_seconds
    ):
        raise ValueError(
            f"measured.window_steps {measured.window_steps}: does not split "
            f"{len(measured.epoch_seconds)} epochs of {steps} steps into the "
            f"{len(measured.window_step_seconds)} timed windows"
        )
    epoch_median = float(np.median(measured.epoch_seconds))
    images_per_second = steps * config.batch_size / epoch_median
    step_median = float(np.median(measured.window_step_seconds))
    peak = peak_flops(hardware["device_name"]) if hardware["device_kind"] == "gpu" else None
    host_children = measured.host_children_peak_bytes
    record.update(
        status="ok",
        # compile time: the first step's excess over a steady step (its own run time is not compilation)
        timing={
            "compile_seconds": max(0.0, measured.first_step_seconds - step_median),
            "first_step_seconds": measured.first_step_seconds,
            "compile_cache": "cold",
            "epoch_seconds": epoch_median,
            "epoch_seconds_each": list(measured.epoch_seconds),
            "images_per_second": images_per_second,
            "step_seconds_median": step_median,
            "step_seconds_p90": float(np.percentile(measured.window_step_seconds, 90)),
            "window_steps": list(measured.window_steps),
            "timed_windows": len(measured.window_steps),
        },
        memory={
            **measured.framework_memory,
            "nvml_process_peak_bytes": measured.nvml_peak_bytes,
            "host_peak_rss_bytes": measured.host_self_peak_bytes + host_children,
            "host_children_peak_rss_bytes": host_children,
            "host_peak_basis": HOST_PEAK_BASIS,
            "data_bytes": int(measured.data_bytes),
        },
        accuracy={
            "epochs": measured.epochs,
            "final_test_accuracy": measured.epochs[-1]["test_accuracy"],
            "final_train_loss": measured.epochs[-1]["train_loss"],
        },
        mfu={
            "value": 3 * arch.flops_per_image() * images_per_second / peak if peak else None,
            "peak_flops_per_second": peak,
            "basis": "3 × forward FLOPs per image × images/s ÷ the device's peak float32 FLOP/s" if peak else None,
        },
        load=measured.load,
    )
    return record


def failed_record(
    config: RunConfig,
    hardware: dict,
    started_at: str,
    status: str,
    exception_type: str | None,
    message: str | None,
    stderr_tail: str | None = None,
    exit_code: int | None = None,
    *,
    run_order: dict | None = None,
    load: dict | None = None,
) -> dict:
    """The record of a run that ended in ``status`` (oom, error or timeout), finishing now: failures are data.

    ``load`` is the machine's load as far as the run sampled it (None when it died before sampling).
    """
    record = base_record(config, hardware, provenance.software_info(), started_at, utc_now(), sys.argv, run_order)
    tail = stderr_tail[-STDERR_TAIL_CHARS:] if stderr_tail else stderr_tail
    record.update(
        status=status,
        load=load,
        failure={"exception_type": exception_type, "message": message, "stderr_tail": tail, "exit_code": exit_code},
    )
    return record
