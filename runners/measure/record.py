"""Run records (``fwbench.run/3``): the record of a measured run, the parts every record has, and the record of
a failed run.

``ok_record`` is a pure function of its arguments and imports no framework: ``runners run`` builds every ok
record through it, and a test can build one from injected measurements (``software`` and ``command`` are
arguments too, so nothing comes from the machine that runs the test). An article-profile run on an RTX 4090
(``tests/runners/test_records.py::article_record`` does this)::

    (config,) = expand("article", frameworks=["torch"], modes=["compiled"], batch_sizes=[256], seeds=[0])
    steps = config.epoch_train_images // config.batch_size      # 195 steps: 49,920 of the 50,000 images
    windows = run.window_sizes(steps) * config.epochs           # [25, 25, 25, 24, 24, 24, 24, 24] per epoch
    quiet = {"load_avg_1m": 0.3, "load_avg_5m": 0.2, "other_cpu_percent": 0.5, "cpu_count": 32}
    during = {"samples": 110, "interval_seconds": 0.5, "mean_other_cpu_percent": 0.4, "peak_other_cpu_percent": 0.7}
    measured = Measured(
        first_step_seconds=30.0, epoch_seconds=[11.0] * 5, window_step_seconds=[11.0 / steps] * len(windows),
        window_steps=windows, epochs=[{"epoch": e, "train_loss": 1.0, "train_accuracy": 0.6, "test_loss": 1.1,
                                       "test_accuracy": 0.6} for e in range(1, 6)],
        framework_memory={"allocator_peak_bytes": 3 << 30, "allocator_reserved_bytes": 4 << 30},
        nvml_peak_bytes=5 << 30, host_self_peak_bytes=2 << 30, host_children_peak_bytes=0, data_bytes=630_000_000,
        load=machine_load.load_section(quiet, quiet, waited_seconds=0.0, during_clock=during),
        run_order=run_order(3, 40),
        first_step_memory={"allocator_peak_bytes": 4 << 30, "allocator_reserved_bytes": 4 << 30},
        memory_peaks_reset=True, nvml_first_step_peak_bytes=5 << 30, nvml_timed_peak_bytes=5 << 30,
        host_peak_basis=host_memory.basis_text("pss"), compile_cache="cold",
        precision_flags={"torch.backends.cudnn.allow_tf32": False, "torch.backends.cuda.matmul.allow_tf32": False,
                         "torch.get_float32_matmul_precision": "highest"})
    record = ok_record(config, hardware, "2026-12-01T10:00:00.000Z", "2026-12-01T10:02:00.000Z", measured,
                       software=software, command=["runners", "run", "--profile", "article"])

``hardware`` has ``provenance.hardware_info()``'s shape with the GPU's fields (device_kind "gpu", device_name
"NVIDIA GeForce RTX 4090", …); ``software`` has ``provenance.software_info()``'s.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fwbench.timestamps import utc_now
from runners.frameworks.precision import PRECISION_POLICIES
from runners.measure import host_memory, provenance
from runners.measure.harness import harness
from runners.measure.mfu import mfu_section
from runners.measure.profiles import RunConfig
from runners.measure.protocol import RECORD_RULES, TIMING_PROTOCOL
from runners.workloads import Workload

SCHEMA = "fwbench.run/3"
STDERR_TAIL_CHARS = 4000
#: how ``runners matrix`` orders its configurations (``config.run_order.scheme``)
RUN_ORDER_SCHEME = "Latin square over frameworks: the first shifted by one per batch size and per round"


@dataclass(frozen=True)
class Measured:
    """The raw measurements of one run, as ``runners.measure.run`` takes them; ``ok_record`` derives the figures.

    The fields after ``run_order`` came with ``fwbench.run/3``; their defaults say "not measured" (null in the
    record), so that a test or a benchmark builds a record from the figures it cares about.
    """

    first_step_seconds: float  # the first step alone, synced: trace + compile + autotune + one step
    epoch_seconds: list[float]  # the clock of each timed epoch
    window_step_seconds: list[float]  # per-step seconds of each timed window, all epochs in order
    window_steps: list[int]  # how many steps each of those windows held
    epochs: list[dict]  # per epoch: epoch, train_loss, train_accuracy, test_loss, test_accuracy
    framework_memory: dict  # the trainer's memory() at the end: allocator_peak_bytes, allocator_reserved_bytes
    nvml_peak_bytes: int | None  # the whole run's; None: no NVIDIA GPU, or NVML cannot see this process
    host_self_peak_bytes: int  # this process's peak RSS above the post-import baseline
    host_children_peak_bytes: int  # its child processes' summed memory peak above the baseline (host_peak_basis)
    data_bytes: int  # the largest resident data: one epoch's batches plus the test set
    load: dict  # machine_load.load_section(...)
    run_order: dict | None = None  # run_order(K, N) in a matrix, None for a lone run
    first_step_memory: dict | None = None  # the trainer's memory() right after the first step
    memory_peaks_reset: bool = False  # reset_memory_peaks() after it: framework_memory then counts from there
    nvml_first_step_peak_bytes: int | None = None  # NVML's peak up to the end of the first step
    nvml_timed_peak_bytes: int | None = None  # NVML's peak from there to the end of training
    host_peak_basis: str = host_memory.basis_text(host_memory.BASES[0])  # the HostPeakSampler's basis_text
    precision_flags: dict | None = None  # the trainer's precision_flags(), read back after it was built
    compile_cache: str = "cold"  # compile_cache.cache_state() before the run: warm or cold
    first_losses: list[float] | None = None  # the first timed epoch's first steps' losses (reference_losses)
    rerun_step_seconds: float | None = None  # the first step again from the same state, compiled by now (protocol 3)
    setup_seconds: float | None = None  # the run's start to its first step (data, framework import, model, trainer)
    evaluation_seconds: float | None = None  # every epoch's evaluation, outside the clock


def run_order(position: int, total: int) -> dict:
    """The record's ``config.run_order``: the configuration's 1-based place in the matrix's execution order."""
    return {"position": position, "total": total, "scheme": RUN_ORDER_SCHEME}


def record_path(out: Path, machine_id: str, config: RunConfig) -> Path:
    """Where a configuration's record lives: ``<out>/<machine_id>/<record_id>.json``."""
    return Path(out) / machine_id / f"{config.record_id}.json"


def config_section(config: RunConfig, run_order: dict | None = None) -> dict:
    """The record's ``config``: what was asked for (``train_images``, ``min_timed_steps``), what the epoch trained
    after drop-last (``images_per_epoch``), the learning-rate schedule, and the place in a matrix's order."""
    steps = config.epoch_train_images // config.batch_size
    return {
        "profile": config.profile,
        "dataset": config.dataset,
        "batch_size": config.batch_size,
        "epochs": config.epochs,
        "seed": config.seed,
        "repeat": config.repeat,
        "train_images": config.train_images,
        "min_timed_steps": config.min_timed_steps,
        "images_per_epoch": steps * config.batch_size,
        "sized_for": config.sized_for,
        "test_images": config.test_images,
        "steps_per_epoch": max(1, steps),
        "lr_schedule": config.spec.module("lr_schedule").describe(config.batch_size, max(1, steps) * config.epochs),
        "device": config.device,
        "precision": config.precision,
        "size": config.size,
        "attention": config.spec.attention_path(config.attention, config.precision),
        "tuning_environment": dict(config.tuning),
        "run_order": run_order,
    }


def precision_section(policy: str, flags: dict | None) -> dict:
    """The record's ``precision``: the policy asked for, the dtype it computes in (``precision.PRECISION_POLICIES``),
    and the framework's flags as read back (None where they were not), the compute dtype the framework reports
    among them."""
    return {"policy": policy, "compute_dtype": PRECISION_POLICIES[policy], "flags": flags}


def model_section(spec: Workload) -> dict:
    """The record's ``model``: which workload trained, its parameters and forward FLOPs per sample (ResNet-18's per
    image, with its multiply-accumulates; the GPT's per token, with the sizes of its blocks)."""
    model = spec.module("arch")
    section = {"name": spec.model_name, "workload": spec.name, "trainable_params": spec.trainable_params()}
    if spec.sample == "image":
        return {**section, "flops_per_image": model.flops_per_image(), "macs_per_image": model.macs_per_image()}
    sizes = spec.arch_config()
    return {
        **section,
        "flops_per_token": spec.flops_per_sample(),
        "sizes": {f: getattr(sizes, f) for f in ("layers", "width", "heads", "context", "vocab")},
    }


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
        "protocol": TIMING_PROTOCOL,
        "rules": RECORD_RULES,
        "harness": harness(config.spec.trainer_module(config.framework)),
        "framework": {"name": config.framework, "version": config.framework_version, "mode": config.mode},
        "config": config_section(config, run_order),
        "precision": precision_section(config.precision, None),
        "model": model_section(config.spec),
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
    timed windows' per-step times (each window's kept); compile time as the first step's excess over its rerun
    (``compile_time``); the article's seconds per epoch, which count the compile time in (it timed epoch 1 from
    before training began); the whole run's allocator peaks from its two phases; MFU against the peak of the
    precision that ran where device_peaks.json knows it (``mfu_section``), else null with the reason. ValueError
    when the windows do not add up to the configuration's steps.
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
    spec = config.spec
    samples_per_second = steps * config.batch_size * spec.samples_per() / epoch_median
    # ResNet-18's throughput in images/s; the GPT's in tokens/s, its images/s null
    rates = {"images_per_second": None, spec.rate_field: samples_per_second}
    step_median = float(np.median(measured.window_step_seconds))
    compile_seconds = compile_time(measured, step_median)
    host_children = measured.host_children_peak_bytes
    record.update(
        status="ok",
        precision=precision_section(config.precision, measured.precision_flags),
        timing={
            "compile_seconds": compile_seconds,
            "first_step_seconds": measured.first_step_seconds,
            "compile_cache": measured.compile_cache,
            "epoch_seconds": epoch_median,
            "epoch_seconds_each": list(measured.epoch_seconds),
            "article_epoch_seconds": (sum(measured.epoch_seconds) + compile_seconds) / len(measured.epoch_seconds),
            **rates,
            "step_seconds_median": step_median,
            "step_seconds_p90": float(np.percentile(measured.window_step_seconds, 90)),
            "window_steps": list(measured.window_steps),
            "window_step_seconds": list(measured.window_step_seconds),
            "timed_windows": len(measured.window_steps),
            "rerun_step_seconds": measured.rerun_step_seconds,
            "setup_seconds": measured.setup_seconds,
            "evaluation_seconds": measured.evaluation_seconds,
        },
        memory={
            **whole_run_memory(measured),
            "nvml_process_peak_bytes": measured.nvml_peak_bytes,
            "host_peak_rss_bytes": measured.host_self_peak_bytes + host_children,
            "host_children_peak_rss_bytes": host_children,
            "host_peak_basis": measured.host_peak_basis,
            "data_bytes": int(measured.data_bytes),
            "phases": memory_phases(measured),
        },
        accuracy={
            "epochs": measured.epochs,
            "final_test_accuracy": measured.epochs[-1]["test_accuracy"],
            "final_train_loss": measured.epochs[-1]["train_loss"],
        },
        mfu=mfu_section(config.precision, hardware, samples_per_second, spec),
        load=measured.load,
        training={"first_losses": list(measured.first_losses)} if measured.first_losses is not None else None,
    )
    return record


def compile_time(measured: Measured, step_median: float) -> float:
    """The first step's excess over the same step run again from the same state (its own run time is not
    compilation), as measured: a negative excess is the steps' noise and is kept, for the site to judge. Records of
    protocol 2 and earlier lack the rerun: their first step's excess over the median steady step, clamped at 0."""
    if measured.rerun_step_seconds is None:
        return max(0.0, measured.first_step_seconds - step_median)
    return measured.first_step_seconds - measured.rerun_step_seconds


def _larger(a: int | None, b: int | None) -> int | None:
    """The larger of two figures, either of which may be unknown (None)."""
    known = [x for x in (a, b) if x is not None]
    return max(known) if known else None


def whole_run_memory(measured: Measured) -> dict:
    """The allocator's whole-run peaks: the larger of its two phases' where the peaks were reset between them,
    else its figures at the end, which count from the start."""
    first, last = measured.first_step_memory, measured.framework_memory
    if not (measured.memory_peaks_reset and first):
        return dict(last)
    return {key: _larger(first.get(key), value) for key, value in last.items()}


def memory_phases(measured: Measured) -> dict:
    """The record's ``memory.phases``: the allocator's and NVML's peak up to the end of the first step, and from
    there to the end of training (null where not measured: on a CPU, and the allocator's timed peak where it
    could not be reset)."""
    first = measured.first_step_memory or {}
    timed = measured.framework_memory if measured.memory_peaks_reset else {}
    return {
        "first_step": {
            "allocator_peak_bytes": first.get("allocator_peak_bytes"),
            "nvml_peak_bytes": measured.nvml_first_step_peak_bytes,
        },
        "timed": {
            "allocator_peak_bytes": timed.get("allocator_peak_bytes"),
            "nvml_peak_bytes": measured.nvml_timed_peak_bytes,
        },
    }


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
