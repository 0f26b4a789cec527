"""One configuration, measured in this process as DESIGN.md's training protocol defines it.

Per epoch: the batches are made (NumPy) and placed on the device *before* the clock starts; the clock
covers the training steps only, with a device sync at both ends and at the end of each timing window
(never per step). The first step — trace, compile, autotune — is timed on its own and then undone,
so every timed epoch trains from the same state in every framework. Evaluation follows each epoch,
outside the clock.
"""

from __future__ import annotations

import json
import math
import os
import resource
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import psutil

from runners import arch, data, provenance, schedule
from runners.gpu_memory import NvmlPeakSampler
from runners.profiles import RunConfig
from runners.record import base_record, failed_record

TIMING_WINDOWS = 8  # step-time percentiles come from this many synced windows per epoch


def framework_environment(device: str, compile_cache: str) -> dict[str, str]:
    """Environment set before a framework is imported: no preallocation, quiet logs, the chosen device,
    and empty compiler caches in ``compile_cache`` — TF and JAX keep no compiled code between processes
    by default, PyTorch's Inductor does; a fresh cache makes every compile time a cold one."""
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "TF_FORCE_GPU_ALLOW_GROWTH": "true",
           "TF_CPP_MIN_LOG_LEVEL": "2", "KERAS_BACKEND": "tensorflow",
           "TORCHINDUCTOR_CACHE_DIR": os.path.join(compile_cache, "inductor"),
           "TRITON_CACHE_DIR": os.path.join(compile_cache, "triton")}
    if device == "cpu":
        env.update({"JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""})
    return env


def peak_flops(device_name: str | None, precision: str = "float32") -> float | None:
    """The device's peak FLOP/s from device_peaks.json, or None when unknown (MFU is then null)."""
    table = json.loads(Path(__file__).with_name("device_peaks.json").read_text())[precision]
    return table.get(device_name) if device_name else None


def is_out_of_memory(exc: BaseException) -> bool:
    """Each framework's out-of-memory error, recognised by type name or its allocator's message."""
    text = f"{type(exc).__name__}: {exc}"
    return isinstance(exc, MemoryError) or any(
        marker in text for marker in ("OutOfMemoryError", "ResourceExhaustedError", "RESOURCE_EXHAUSTED",
                                      "out of memory", "Out of memory"))


def timed_epoch(trainer, batches: list, rates: np.ndarray) -> tuple[float, list[float], list]:
    """Run one epoch of steps; return (seconds, per-step seconds of each window, step outputs)."""
    window = max(1, math.ceil(len(batches) / TIMING_WINDOWS))
    outputs, step_times, synced_steps = [], [], 0
    trainer.sync()
    start = last = time.perf_counter()
    for i, ((x, y), lr) in enumerate(zip(batches, rates, strict=True)):
        outputs.append(trainer.train_step(x, y, float(lr)))
        if (i + 1) % window == 0 or i + 1 == len(batches):
            trainer.sync()
            now = time.perf_counter()
            step_times.append((now - last) / (i + 1 - synced_steps))
            last, synced_steps = now, i + 1
    return last - start, step_times, outputs


def evaluate(trainer, test_batches: list, labels: np.ndarray) -> tuple[float, float]:
    """Test loss and accuracy over the real (unpadded) test images."""
    logits = np.concatenate([trainer.logits(x) for x, _ in test_batches])[: len(labels)]
    return data.loss_and_accuracy(logits, labels)


def measure(config: RunConfig, data_dir: Path | None = None, progress: bool = True) -> dict:
    """Train ``config`` in this process and return its run record (status ok)."""
    with tempfile.TemporaryDirectory(prefix="fwbench-compile-cache-") as compile_cache:
        os.environ.update(framework_environment(config.device, compile_cache))
        return _measure(config, data_dir, progress)


def _measure(config: RunConfig, data_dir: Path | None, progress: bool) -> dict:
    started_at = provenance.utc_now()
    dataset = data.load(config.dataset, data_dir, config.train_images, config.test_images, progress=progress)
    from runners.frameworks import trainer_class  # imports the framework: after the environment is set

    trainer_cls = trainer_class(config.framework)
    baseline_rss = psutil.Process().memory_info().rss  # post-import baseline
    weights = arch.init_weights(config.seed)
    with NvmlPeakSampler() as nvml:
        trainer = trainer_cls(weights, mode=config.mode, device=config.device)
        steps = len(dataset.train_images) // config.batch_size
        rates = schedule.learning_rates(config.batch_size, steps * config.epochs)
        # evaluation batches no larger than the test set: padding a 128-image test set to 256 wastes time
        test_x, n_test = data.eval_batches(dataset.test_images, min(config.batch_size, len(dataset.test_images)))
        test_batches = trainer.to_device(test_x, np.zeros(test_x.shape[:2], np.int32))
        data_bytes = test_x.nbytes

        epochs, epoch_seconds, window_times = [], [], []
        first_step_seconds = None
        for epoch in range(config.epochs):
            images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, config.seed, epoch,
                                                config.batch_size)
            batches = trainer.to_device(images, labels)
            data_bytes = max(data_bytes, test_x.nbytes + images.nbytes + labels.nbytes)
            if first_step_seconds is None:  # first step: trace + compile + run, timed alone, then undone
                start = time.perf_counter()
                trainer.train_step(*batches[0], float(rates[0]))
                trainer.sync()
                first_step_seconds = time.perf_counter() - start
                trainer.restore(weights)
            seconds, windows, outputs = timed_epoch(trainer, batches, rates[epoch * steps:(epoch + 1) * steps])
            epoch_seconds.append(seconds)
            window_times += windows
            del batches  # free this epoch's device copy before the next one is placed
            train_loss = float(np.mean([float(loss) for loss, _ in outputs]))
            train_accuracy = sum(int(correct) for _, correct in outputs) / (steps * config.batch_size)
            test_loss, test_accuracy = evaluate(trainer, test_batches, dataset.test_labels[:n_test])
            epochs.append({"epoch": epoch + 1, "train_loss": train_loss, "train_accuracy": train_accuracy,
                           "test_loss": test_loss, "test_accuracy": test_accuracy})
        trainer.sync()
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux

    hardware = provenance.hardware_info()
    device = trainer.device_info()
    hardware.update({k: v for k, v in device.items() if v is not None})
    hardware["device_kind"] = device["device_kind"]
    hardware["machine_id"] = provenance.machine_id(hardware)
    record = base_record(config, hardware, started_at, provenance.framework_version(config.framework))
    epoch_median = float(np.median(epoch_seconds))
    images_per_second = steps * config.batch_size / epoch_median
    step_median = float(np.median(window_times))
    peak = peak_flops(hardware["device_name"]) if hardware["device_kind"] == "gpu" else None
    record.update(
        status="ok",
        # compile time: the first step's excess over a steady step (its own run time is not compilation)
        timing={"compile_seconds": max(0.0, first_step_seconds - step_median),
                "first_step_seconds": first_step_seconds, "compile_cache": "cold", "epoch_seconds": epoch_median,
                "epoch_seconds_each": epoch_seconds, "images_per_second": images_per_second,
                "step_seconds_median": step_median,
                "step_seconds_p90": float(np.percentile(window_times, 90)),
                "window_steps": max(1, math.ceil(steps / TIMING_WINDOWS)), "timed_windows": len(window_times)},
        memory={**trainer.memory(), "nvml_process_peak_bytes": nvml.peak_bytes,
                "host_peak_rss_bytes": max(0, peak_rss - baseline_rss), "data_bytes": int(data_bytes)},
        accuracy={"epochs": epochs, "final_test_accuracy": epochs[-1]["test_accuracy"],
                  "final_train_loss": epochs[-1]["train_loss"]},
        mfu={"value": 3 * arch.flops_per_image() * images_per_second / peak if peak else None,
             "peak_flops_per_second": peak,
             "basis": "3 × forward FLOPs per image × images/s ÷ the device's peak float32 FLOP/s" if peak else None},
        finished_at=provenance.utc_now())
    return record


def measure_or_fail(config: RunConfig, data_dir: Path | None = None, progress: bool = True) -> dict:
    """``measure``, turning an exception into a failed record (status oom or error) instead of a crash."""
    started_at = provenance.utc_now()
    try:
        return measure(config, data_dir, progress)
    except (KeyboardInterrupt, data.DataError):
        raise
    except Exception as exc:  # any framework error is a result: record it
        return failed_record(config, provenance.hardware_info(), started_at,
                             "oom" if is_out_of_memory(exc) else "error", type(exc).__name__, str(exc)[:2000],
                             stderr_tail=traceback.format_exc(),
                             version=provenance.framework_version(config.framework))
