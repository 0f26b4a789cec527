"""Factories for schema-valid fixture records (runs, probes, ecosystem snapshots) for the generator tests.

Run records are ``fwbench.run/3``; ``older=True`` writes the ``fwbench.run/2`` shape, which the reader upgrades
(it then carries ``upgraded_from`` and ``missing``).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fwbench.records import write_record
from runners.measure import machine_load
from runners.measure import run as runner
from runners.measure.profiles import RunConfig
from runners.measure.record import Measured, ok_record

FIXTURES = Path(__file__).parent / "fixtures"
CPU_MACHINE = "cpu-test-cpu-2t-1a2b3c"
GPU_MACHINE = "nvidia-rtx-4090"
#: GPU machine id -> device name (every other machine trains on its CPU)
GPU_NAMES = {GPU_MACHINE: "NVIDIA GeForce RTX 4090", "nvidia-h200": "NVIDIA H200"}
VERSIONS = {"torch": "2.14.1", "tensorflow": "2.21.0", "jax": "0.10.2"}
#: a deliberately hostile probe message: HTML, an ampersand and terminal colour codes
HOSTILE_MESSAGE = (
    "mat1 and mat2 shapes cannot be multiplied (128x64 and 128x128) <script>alert(1)</script> & \x1b[31mred\x1b[0m"
)


def hardware(machine_id: str = CPU_MACHINE) -> dict[str, Any]:
    """A hardware section; a GPU one when the machine id is one of GPU_NAMES."""
    gpu = machine_id in GPU_NAMES
    return {
        "machine_id": machine_id,
        "device_kind": "gpu" if gpu else "cpu",
        "device_name": GPU_NAMES.get(machine_id, "Test CPU @ 2.0GHz"),
        "device_count": 1 if gpu else None,
        "gpu_driver": "535.129.03" if gpu else None,
        "cuda": "12.2" if gpu else None,
        "cudnn": "8.9.7" if gpu else None,
        "cpu_model": "Test CPU @ 2.0GHz",
        "cpu_threads": 2,
        "framework_threads": 2,
        "host_memory_bytes": 8 * 2**30,
        "fingerprint": None if gpu else fingerprint(),
    }


def fingerprint() -> dict[str, Any]:
    """A CPU fingerprint (hardware.fingerprint); its hash is the CPU machine id's suffix."""
    return {
        "vendor": "AuthenticAMD",
        "family": "25",
        "model": "1",
        "stepping": "1",
        "isa": ["avx", "avx2", "fma"],
        "caches": {"L1d": 32768, "L1i": 32768, "L2": 524288, "L3": 33554432},
        "kernel": "6.1.0",
        "hash": "1a2b3c4d",
    }


def load(busy: bool = False) -> dict[str, Any]:
    """The machine-load section: other processes' CPU share at the start and end of the run."""
    other = 80.0 if busy else 3.0

    def sample(percent: float) -> dict[str, Any]:
        return {"load_avg_1m": 1.2, "load_avg_5m": 1.0, "other_cpu_percent": percent, "cpu_count": 2}

    return {
        "start": sample(3.0),
        "end": sample(other),
        "during_clock": {
            "samples": 20,
            "interval_seconds": 0.5,
            "mean_other_cpu_percent": other,
            "peak_other_cpu_percent": other,
        },
        "waited_seconds": 0.0,
        "busy": busy,
        "threshold_cpu_percent": 50.0,
    }


def software() -> dict[str, Any]:
    """A software section."""
    return {
        "python": "3.11.9",
        "os": "Linux 6.1 (x86_64)",
        "packages": {"torch": "2.14.1", "numpy": "2.4.6"},
        "git_commit": "0123456789abcdef0123",
        "git_dirty": False,
        "fwbench_version": "0.3.0",
    }


def run(
    framework: str = "torch",
    batch_size: int = 32,
    seed: int = 0,
    *,
    seconds: float = 10.0,
    accuracy: float = 0.5,
    status: str = "ok",
    machine_id: str = CPU_MACHINE,
    dataset: str = "synthetic",
    images_per_epoch: int = 512,
    train_images: int | None = None,
    epochs: int = 2,
    mode: str = "compiled",
    nvml: int | None = None,
    epoch_accuracies: list[float] | None = None,
    compile_seconds: float = 3.0,
    busy: bool = False,
    older: bool = False,
) -> dict:
    """One run record; ``status`` other than ``ok`` gives a failed run with null measurement sections.

    ``train_images`` is the requested size (default: ``images_per_epoch``); ``epoch_accuracies`` the test
    accuracy of each epoch (default: rising to ``accuracy``); ``busy`` flags the machine as busy; ``older``
    gives the ``fwbench.run/2`` shape instead.
    """
    record_id = f"{framework}-{mode}-{dataset}-bs{batch_size}-seed{seed}-{machine_id}-{status}"
    record_id += "-busy" if busy else ""
    ok = status == "ok"
    steps = images_per_epoch // batch_size
    accuracies = epoch_accuracies or [accuracy - 0.05 * (epochs - e - 1) for e in range(epochs)]
    record = {
        "schema": "fwbench.run/3",
        "record_id": record_id,
        "status": status,
        "protocol": 2,
        "framework": {"name": framework, "version": VERSIONS[framework], "mode": mode},
        "config": {
            "profile": "quick",
            "dataset": dataset,
            "batch_size": batch_size,
            "epochs": epochs,
            "seed": seed,
            "train_images": train_images or images_per_epoch,
            "images_per_epoch": images_per_epoch,
            "sized_for": "gpu" if machine_id in GPU_NAMES else "cpu",
            "test_images": 256,
            "steps_per_epoch": steps,
            "lr_schedule": {"name": "constant"},
            "device": "auto",
            "precision": "fp32",
            "run_order": {
                "position": 1,
                "total": 1,
                "scheme": "round-robin over frameworks within each batch size, rotated",
            },
        },
        "precision": {
            "policy": "fp32",
            "compute_dtype": "float32",
            "flags": {"jax_default_matmul_precision": "highest"} if ok else None,
        },
        "model": {"name": "resnet18-cifar", "trainable_params": 11173962, "flops_per_image": 1.1108e9} if ok else None,
        "hardware": hardware(machine_id) if ok else None,
        "software": software() if ok else None,
        "timing": {
            "compile_seconds": compile_seconds,
            "epoch_seconds": seconds,
            "epoch_seconds_each": [seconds] * epochs,
            "article_epoch_seconds": seconds + compile_seconds / epochs,
            "images_per_second": images_per_epoch / seconds,
            "step_seconds_median": seconds / 16,
            "step_seconds_p90": seconds / 15,
            "window_steps": [max(1, steps // 4)] * (4 * epochs),
            "timed_windows": 4 * epochs,
        }
        if ok
        else None,
        "memory": {
            "allocator_peak_bytes": None,
            "allocator_reserved_bytes": None,
            "nvml_process_peak_bytes": nvml,
            "host_peak_rss_bytes": 900 * 2**20 + batch_size * 2**20,
            "host_children_peak_rss_bytes": 100 * 2**20,
            "host_peak_basis": "the run's process tree (children included) above the post-import baseline",
            "data_bytes": 2**20,
            "phases": {
                "first_step": {"allocator_peak_bytes": None, "nvml_peak_bytes": nvml},
                "timed": {"allocator_peak_bytes": None, "nvml_peak_bytes": nvml},
            },
        }
        if ok
        else None,
        "accuracy": {
            "epochs": [
                {
                    "epoch": e + 1,
                    "train_loss": 2.0 - e * 0.3,
                    "train_accuracy": accuracies[e] - 0.05,
                    "test_loss": 2.1 - e * 0.3,
                    "test_accuracy": accuracies[e],
                }
                for e in range(epochs)
            ],
            "final_test_accuracy": accuracies[-1],
            "final_train_loss": 1.7,
        }
        if ok
        else None,
        "mfu": {"value": None, "peak_flops_per_second": None, "basis": None} if ok else None,
        "load": load(busy),
        "failure": None
        if ok
        else {
            "exception_type": "torch.OutOfMemoryError",
            "message": "CUDA out of memory. Tried to allocate 2.00 GiB",
            "stderr_tail": "",
            "exit_code": 1,
        },
        "started_at": "2026-11-30T06:00:00.000Z",
        "finished_at": "2026-11-30T06:01:00.000Z",
        "command": ["runners", "run", "--framework", framework, "--batch-size", str(batch_size)],
    }
    return as_v2(record) if older else record


#: a quiet 2-core machine's load at a run's start and end, as ``runners.measure.machine_load`` samples it
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.8, "cpu_count": 2}


def one_epoch(config: RunConfig, rate: float, **changes: Any) -> Measured:
    """What ``runners run`` measures for one epoch of ``config`` at ``rate`` images/s on a quiet CPU (``changes``:
    Measured's fields replaced), for records built through ``runners.measure.record.ok_record``."""
    steps = config.epoch_train_images // config.batch_size
    seconds = steps * config.batch_size / rate
    measured = Measured(
        first_step_seconds=seconds / steps + 5.0,
        rerun_step_seconds=seconds / steps,
        epoch_seconds=[seconds],
        window_step_seconds=[seconds / steps] * len(windows := runner.window_sizes(steps)),
        window_steps=windows,
        epochs=[{"epoch": 1, "train_loss": 2.3, "train_accuracy": 0.1, "test_loss": 2.3, "test_accuracy": 0.1}],
        framework_memory={"allocator_peak_bytes": None, "allocator_reserved_bytes": None},
        nvml_peak_bytes=None,
        host_self_peak_bytes=600 << 20,
        host_children_peak_bytes=0,
        data_bytes=5_000_000,
        load=machine_load.load_section(QUIET, QUIET, waited_seconds=0.0),
    )
    return dataclasses.replace(measured, **changes)


def as_recorded(
    config: RunConfig,
    measured: Measured,
    command: list[str],
    software_section: dict | None = None,
    finished_at: str = "2026-12-01T10:01:00.000Z",
    boot_id: str | None = None,
) -> dict:
    """The record ``runners run`` writes for ``config`` and ``measured`` on the test CPU (``ok_record``), started a
    minute before ``finished_at``, with ``software()`` unless ``software_section`` is given, on the boot ``boot_id``
    (None: not recorded, as before boots were)."""
    started_at = (datetime.fromisoformat(finished_at) - timedelta(minutes=1)).isoformat(timespec="milliseconds")
    return ok_record(
        config,
        {**hardware(), "boot_id": boot_id},
        started_at.replace("+00:00", "Z"),
        finished_at,
        measured,
        software=software_section or software(),
        command=command,
    )


def as_v2(record: dict) -> dict:
    """The ``fwbench.run/2`` shape of a run record: what an older runner wrote (no timing protocol, precision
    section, memory phases or load during the clock; the precision as a string)."""
    old = copy.deepcopy(record)
    old["schema"] = "fwbench.run/2"
    old["record_id"] += "-v2"
    for name in ("protocol", "precision", "harness"):
        old.pop(name, None)  # a hand-made record (``run``) has no harness
    old["config"]["precision"] = "float32 (TF32 off)"
    for section, names in (
        ("hardware", ("boot_id",)),
        ("memory", ("phases",)),
        ("load", ("during_clock",)),
        (
            "timing",
            (
                "article_epoch_seconds",
                "window_step_seconds",
                "rerun_step_seconds",
                "setup_seconds",
                "evaluation_seconds",
            ),
        ),
    ):
        for name in names if old[section] else ():
            old[section].pop(name, None)
    return old


def probe(
    framework: str = "torch",
    bug: str = "dense_shape",
    *,
    message: str | None = HOSTILE_MESSAGE,
    outcome: str = "error",
    tooling: bool | None = None,
    machine_id: str = CPU_MACHINE,
) -> dict:
    """One probe record; the default message contains HTML and ANSI codes that the site must neutralise."""
    clean = message.replace("\x1b[31m", "").replace("\x1b[0m", "") if message else None
    return {
        "schema": "fwbench.probe/1",
        "record_id": f"{bug}-{framework}-compiled-{str(tooling).lower()}",
        "bug": bug,
        "tooling": tooling,
        "framework": {"name": framework, "version": VERSIONS[framework], "mode": "compiled"},
        "outcome": outcome,
        "exception_type": "RuntimeError" if message else None,
        "message": message,
        "message_clean": clean,
        "traceback": 'Traceback (most recent call last):\n  File "m.py", line 3',
        "traceback_clean": 'Traceback (most recent call last):\n  File "m.py", line 3',
        "traceback_lines": 2,
        "traceback_frames": 1,
        "expected_tokens": ["128x64"],
        "names_shapes": bool(message),
        "planted": {"file": "m.py", "line": 3},
        "points_to_file": True,
        "points_to_line": False,
        "layer_name": "fc",
        "names_layer": False,
        "seconds_to_error": 0.5,
        "score": {
            "total": 3 if message else 0,
            "max": 5,
            "parts": {"names_shapes": 1 if message else 0},
            "rubric": "1 point each: names the shapes, points to the file, the line, the layer",
        },
        "machine_id": machine_id,
        "software": software(),
        "started_at": "2026-11-30T06:00:00Z",
        "finished_at": "2026-11-30T06:00:01Z",
    }


def _metric(value: Any, *, window: int | None = 365, sample: int | None = None, status: str = "ok") -> dict:
    return {
        "value": value if status == "ok" else None,
        "status": status,
        "reason": None if status == "ok" else "rate limited",
        "collected_at": "2026-11-30T05:00:00Z",
        "method": {"endpoint": "/2.3/questions", "window_days": window, "sample_size": sample},
    }


def snapshot(date: str = "2026-11-30", stars: int = 90000, window: int = 365) -> dict:
    """An ecosystem snapshot with Stack Overflow and GitHub figures (one of them not collected)."""
    tags = {"pytorch": (25000, 9000, 30.0), "tensorflow": (90000, 4000, 60.0), "jax": (1500, 500, 300.0)}
    repos = {"pytorch/pytorch": 1.0, "tensorflow/tensorflow": 2.0, "jax-ml/jax": 0.4}
    return {
        "schema": "fwbench.ecosystem/1",
        "collected_at": f"{date}T05:00:00Z",
        "date": date,
        "window_days": window,
        "complete": False,
        "authenticated": {"github": False},
        "sources": {
            "stackoverflow": {
                tag: {
                    "total_questions": _metric(total, window=None),
                    "questions_in_window": _metric(in_window, window=window),
                    "first_answer_median_minutes": _metric(minutes, sample=200),
                    "answered_within_1h_share": _metric(0.4, sample=200),
                }
                for tag, (total, in_window, minutes) in tags.items()
            },
            "github": {
                repo: {
                    "stars": _metric(int(stars * scale), window=None),
                    "star_growth_percent_in_window": _metric(10.0 * scale, window=window),
                    "releases_in_window": _metric(None, status="failed"),
                }
                for repo, scale in repos.items()
            },
        },
        "failures": [{"source": "github", "subject": None, "metric": "releases_in_window", "reason": "rate limited"}],
    }


def write_results(root: Path) -> Path:
    """A results tree of every record kind: seeds, a failed run, probes, two snapshots, one invalid file."""
    runs = root / "runs" / CPU_MACHINE
    for fw, base in (("torch", 10.0), ("tensorflow", 12.0), ("jax", 9.0)):
        for bs in (32, 64):
            for seed in range(3):
                record = run(fw, bs, seed, seconds=base * 32 / bs + 0.1 * seed, accuracy=0.40 + 0.01 * seed)
                write_record(runs / f"{record['record_id']}.json", record)
    failed = run("torch", 128, 0, status="oom")
    write_record(runs / f"{failed['record_id']}.json", failed)
    for fw, bug in (("torch", "dense_shape"), ("tensorflow", "dense_shape"), ("jax", "dense_shape")):
        record = probe(fw, bug)
        write_record(root / "probes" / CPU_MACHINE / f"{record['record_id']}.json", record)
    silent = probe("tensorflow", "nan", message=None, outcome="no_error", tooling=False)
    write_record(root / "probes" / CPU_MACHINE / f"{silent['record_id']}.json", silent)
    write_record(root / "ecosystem" / "2026-11-01.json", snapshot("2026-11-01", stars=88000))
    write_record(root / "ecosystem" / "2026-11-30.json", snapshot("2026-11-30"))
    shutil.copy(FIXTURES / "invalid_run.json", runs / "invalid_run.json")
    return root


def invalid_run() -> dict:
    """The fixture's invalid record, parsed."""
    return json.loads((FIXTURES / "invalid_run.json").read_text())


def with_changes(record: dict, **changes: Any) -> dict:
    """A deep copy of ``record`` with top-level keys replaced."""
    changed = copy.deepcopy(record)
    changed.update(changes)
    return changed


def quick_at_32(framework: str) -> RunConfig:
    """The quick profile's fp32 configuration of ``framework`` at batch 32 on the test CPU."""
    from runners.measure.profiles import expand

    quick = expand("quick", device="cpu", version_of=VERSIONS.get)
    return next(c for c in quick if c.batch_size == 32 and c.precision == "fp32" and c.framework == framework)


def matrix_runs(
    framework: str,
    rates: list[float],
    day: int = 1,
    first_repeat: int = 0,
    boot: str | None = None,
    plan: list[RunConfig] | None = None,
) -> list[dict]:
    """``framework``'s runs at batch 32 on 2026-12-``day``, one per repeat from ``first_repeat``, at ``rates``
    images/s, a few minutes apart as the matrix interleaves them (TensorFlow's a minute after PyTorch's), on the
    boot ``boot`` (default: one of that day's own); made by the matrix of ``plan`` (its record says what it planned,
    as the driver writes it), or by ``runners run`` alone."""
    from runners.matrix.order import matrix_plan

    made = []
    for offset, rate in enumerate(rates):
        repeat = first_repeat + offset
        config = dataclasses.replace(quick_at_32(framework), repeat=repeat)
        finished = f"2026-12-{day:02d}T10:{2 * repeat + 1 + (framework == 'tensorflow'):02d}:00.000Z"
        record = as_recorded(
            config,
            one_epoch(config, rate),
            ["runners", "matrix"],
            finished_at=finished,
            boot_id=boot or f"boot-of-day-{day}",
        )
        made.append({**record, "matrix": matrix_plan(plan)} if plan else record)
    return made
