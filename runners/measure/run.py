"""One configuration, measured in this process as docs/design.md ("The training protocol", "Measuring") defines it.

Per epoch: the batches are made (NumPy) and placed on the device *before* the clock starts; the clock
covers the training steps only, with a device sync at both ends and at the end of each timing window
(never per step). An epoch is split into at most 8 windows of at least 4 steps each (``window_sizes``; both
limits are ``runners.measure.protocol``'s): an epoch of 1–7 steps is one window, fewer windows rather than
one-step windows, whose per-step time would be mostly the sync. The first step — trace, compile, autotune — is timed on
its own and then undone, so every timed epoch trains from the same state in every framework; the same step is then
timed again from the same state, compiled by now, and undone: the first step's excess over it is the compile time.
Evaluation follows each epoch, outside the clock.

Around the run: the machine's load is sampled over its set-up (the data, the framework's import; then a bounded wait
for other work to leave the CPUs), across the timed region (from the first timed epoch's clock to the last one's
end) and over the last evaluation (``machine_load``); GPU memory is sampled through NVML and host memory over the
whole process tree (``host_memory``). Memory is measured in two phases, each by the framework's allocator and by
NVML: up to the end of the first step (model, data, trace, compile, autotune), and from there to the end of
training. The precision flags are read back from the framework once the trainer is built. The raw measurements
become the record in ``record.ok_record``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

from fwbench.frameworks import framework
from fwbench.timestamps import utc_now
from runners.frameworks.trainer import Trainer
from runners.measure import machine_load, provenance
from runners.measure.compile_cache import cache_environment, cache_state, temporary_folder
from runners.measure.gpu_memory import NvmlPeakSampler
from runners.measure.host_memory import HostPeakSampler
from runners.measure.math_backend import math_backend
from runners.measure.profile_devices import resolve_device
from runners.measure.profiles import RunConfig
from runners.measure.protocol import FIRST_LOSSES, MIN_WINDOW_STEPS, TIMING_WINDOWS
from runners.measure.record import Measured, failed_record, ok_record
from runners.workloads import make_trainer
from runners.workloads.resnet18.dataset import DataError


def framework_environment(device: str, compile_cache: str, persistent: bool = False) -> dict[str, str]:
    """Environment set before a framework is imported: no preallocation, quiet logs, the chosen device, and the
    compiler caches in ``compile_cache`` (``runners.measure.compile_cache``; ``persistent``: a directory that runs
    share, else a fresh one, which makes every compile time a cold one)."""
    env = {
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
        "TF_FORCE_GPU_ALLOW_GROWTH": "true",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "KERAS_BACKEND": "tensorflow",
        **cache_environment(compile_cache, persistent),
    }
    if device == "cpu":
        env.update({"JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""})
    return env


def is_out_of_memory(name: str, exc: BaseException) -> bool:
    """Whether ``exc`` is framework ``name``'s out-of-memory error (its registry entry's ``out_of_memory``, by type
    name or its allocator's message) or Python's own."""
    text = f"{type(exc).__name__}: {exc}"
    return isinstance(exc, MemoryError) or any(marker in text for marker in framework(name).out_of_memory)


def window_sizes(steps: int) -> list[int]:
    """How many steps each timing window of an epoch of ``steps`` holds: up to ``TIMING_WINDOWS`` windows of at
    least ``MIN_WINDOW_STEPS`` steps (one window when the epoch is shorter than two such), sizes differing by at
    most one step, the longer ones first."""
    count = max(1, min(TIMING_WINDOWS, steps // MIN_WINDOW_STEPS))
    size, longer = divmod(steps, count)
    return [size + 1] * longer + [size] * (count - longer)


def timed_epoch(trainer: Trainer, batches: list, rates: np.ndarray) -> tuple[float, list[float], list]:
    """Run one epoch of steps; return (seconds, per-step seconds of each window of ``window_sizes``, step
    outputs)."""
    window_ends = set(np.cumsum(window_sizes(len(batches))).tolist())
    outputs, step_times, synced_steps = [], [], 0
    trainer.sync()
    start = last = time.perf_counter()
    for i, ((x, y), lr) in enumerate(zip(batches, rates, strict=True)):
        outputs.append(trainer.train_step(x, y, float(lr)))
        if i + 1 in window_ends:
            trainer.sync()
            now = time.perf_counter()
            step_times.append((now - last) / (i + 1 - synced_steps))
            last, synced_steps = now, i + 1
    return last - start, step_times, outputs


def timed_first_step(trainer: Trainer, batch: tuple, rate: float, weights: dict[str, np.ndarray]) -> float:
    """Seconds of one synced training step on ``batch``, which is then undone (the weights restored)."""
    start = time.perf_counter()
    trainer.train_step(*batch, rate)
    trainer.sync()
    seconds = time.perf_counter() - start
    trainer.restore(weights)
    return seconds


def evaluate(trainer: Trainer, test_batches: list, dataset) -> tuple[float, float]:
    """Test loss and accuracy over the real (unpadded) test samples (the data set's ``score``)."""
    return dataset.score(np.concatenate([trainer.logits(x) for x, _ in test_batches]))


class _LoadWatch:
    """The machine's load at the start of a run (over its set-up, then the bounded wait for quiet), across its timed
    region and at its end (over its last evaluation)."""

    def __init__(self, quiet_wait_s: float):
        self.quiet_wait_s = quiet_wait_s
        self.start: dict | None = None
        self.waited_seconds = 0.0
        self.during_clock: dict | None = None
        self._clock: machine_load.ClockLoad | None = None
        self._since = machine_load.counters()  # the start sample's interval opens with the run
        self._end_since: tuple[float, float, float] | None = None

    def settle(self) -> None:
        """Close the start sample (over the set-up so far) and wait, within the bound, for other work to leave."""
        self.start, self.waited_seconds = machine_load.wait_for_quiet(
            self.quiet_wait_s, first=machine_load.sample_since(self._since)
        )

    def start_clock(self) -> None:
        """Start sampling other work in the background: just before the first timed epoch's clock."""
        self._clock = machine_load.ClockLoad()
        self._clock.start()

    def stop_clock(self) -> None:
        """Stop the background sampling (once): after the last timed epoch, or when a run fails inside the timed
        region, which keeps what was sampled. The end sample's interval opens here."""
        if self._clock is not None and self.during_clock is None:
            self.during_clock = self._clock.stop()
        if self._end_since is None:
            self._end_since = machine_load.counters()

    def section(self) -> dict:
        """The record's ``load``, its end sample closed now (a run that failed in its set-up closes its start sample
        here too, without waiting)."""
        if self.start is None:
            self.start = machine_load.sample_since(self._since)
        self.stop_clock()
        end = machine_load.sample_since(self._end_since)
        return machine_load.load_section(self.start, end, self.waited_seconds, self.during_clock)


def _measure(
    config: RunConfig,
    data_dir: Path | None,
    progress: bool,
    run_order: dict | None,
    load: _LoadWatch,
    compile_cache: str,
) -> dict:
    started_at, clock_start = utc_now(), time.perf_counter()
    spec = config.spec  # the workload at the configuration's size: its data, weights and model are that size's
    dataset = spec.module("data").load(
        config.dataset, data_dir, config.epoch_train_images, config.test_images, progress, **spec.model_options()
    )
    bytecode = provenance.bytecode_state(framework(config.framework).import_name)  # before the import below
    spec.trainer_class(config.framework)  # imports the framework: after the environment is set, before the baseline
    if "jax" in sys.modules and resolve_device(config.device) == "tpu":
        # JAX opens its devices lazily, and a TPU runtime then maps gigabytes of device memory into the process, which
        # are not the run's host memory: open the TPU before the baseline (elsewhere the baseline stays as it was)
        sys.modules["jax"].devices()
    load.settle()
    weights = spec.module("arch").init_weights(config.seed, **spec.model_options())
    with NvmlPeakSampler() as nvml, HostPeakSampler() as host:  # host: baseline after the framework's import
        trainer = make_trainer(
            config.workload,
            config.framework,
            weights,
            config.mode,
            config.device,
            precision=config.precision,
            **spec.trainer_options(config.attention, config.precision),
        )
        precision_flags = trainer.precision_flags()  # read back: what the framework will compute with
        backend = math_backend()  # the libraries the trainer computes with, loaded by now
        steps = config.epoch_train_images // config.batch_size
        rates = spec.module("lr_schedule").learning_rates(config.batch_size, steps * config.epochs)
        # evaluation batches no larger than the test set: padding a 128-image test set to 256 wastes time
        test_x, test_y, _ = dataset.test_batches(min(config.batch_size, config.test_images))
        test_batches = trainer.to_device(test_x, test_y)
        data_bytes = test_x.nbytes + test_y.nbytes

        epochs, epoch_seconds, window_times, per_item = [], [], [], spec.samples_per()
        evaluation_seconds = 0.0
        for epoch in range(config.epochs):
            inputs, targets = dataset.train_batches(config.seed, epoch, config.batch_size)
            batches = trainer.to_device(inputs, targets)
            data_bytes = max(data_bytes, test_x.nbytes + test_y.nbytes + inputs.nbytes + targets.nbytes)
            if epoch == 0:
                setup_seconds = time.perf_counter() - clock_start - load.waited_seconds
                # the first step (trace + compile + run), then the same step again from the same state, compiled by
                # now, each timed alone and undone: their difference is the compile time, measured
                first_step_seconds = timed_first_step(trainer, batches[0], float(rates[0]), weights)
                rerun_step_seconds = timed_first_step(trainer, batches[0], float(rates[0]), weights)
                # memory's first phase ends here (model, data, the first step); the timed phase starts afresh
                first_step_memory, nvml_first_step = trainer.memory(), nvml.mark()
                peaks_reset = trainer.reset_memory_peaks()
                load.start_clock()
            seconds, windows, outputs = timed_epoch(trainer, batches, rates[epoch * steps : (epoch + 1) * steps])
            if epoch == config.epochs - 1:
                load.stop_clock()
            if epoch == 0:  # read after the clock stopped: no sync inside it
                first_losses = [float(loss) for loss, _ in outputs[:FIRST_LOSSES]]
            epoch_seconds.append(seconds)
            window_times += windows
            del batches  # free this epoch's device copy before the next one is placed
            train_loss = float(np.mean([float(loss) for loss, _ in outputs]))
            # the share of samples right: images, or tokens (each sequence holds ``samples_per`` of them)
            train_accuracy = sum(int(correct) for _, correct in outputs) / (steps * config.batch_size * per_item)
            evaluation_start = time.perf_counter()
            test_loss, test_accuracy = evaluate(trainer, test_batches, dataset)
            evaluation_seconds += time.perf_counter() - evaluation_start
            epochs.append(
                {
                    "epoch": epoch + 1,
                    "train_loss": train_loss,
                    "train_accuracy": train_accuracy,
                    "test_loss": test_loss,
                    "test_accuracy": test_accuracy,
                }
            )
        trainer.sync()
        nvml_timed = nvml.mark()

    hardware = run_hardware(trainer.device_info())
    measured = Measured(
        first_step_seconds=first_step_seconds,
        rerun_step_seconds=rerun_step_seconds,
        setup_seconds=setup_seconds,
        evaluation_seconds=evaluation_seconds,
        epoch_seconds=epoch_seconds,
        window_step_seconds=window_times,
        window_steps=window_sizes(steps) * config.epochs,
        epochs=epochs,
        framework_memory=trainer.memory(),
        nvml_peak_bytes=nvml.peak_bytes,
        host_self_peak_bytes=host.self_peak_bytes,
        host_children_peak_bytes=host.children_peak_bytes,
        data_bytes=data_bytes,
        load=load.section(),
        run_order=run_order,
        first_step_memory=first_step_memory,
        memory_peaks_reset=peaks_reset,
        nvml_first_step_peak_bytes=nvml_first_step,
        nvml_timed_peak_bytes=nvml_timed,
        host_peak_basis=host.basis_text,
        precision_flags=precision_flags,
        compile_cache=compile_cache,
        first_losses=first_losses,
    )
    return ok_record(
        config,
        hardware,
        started_at,
        utc_now(),
        measured,
        software={**provenance.software_info(), "bytecode": bytecode, "math_backend": backend},
        command=sys.argv,
    )


def run_hardware(device: dict) -> dict:
    """The record's hardware: this machine's, with what the framework says about the device it trained on
    (``Trainer.device_info``). A CPU run on an accelerator's machine keeps none of the accelerator's fields."""
    hardware = provenance.hardware_info()
    if device["device_kind"] == "cpu":
        hardware = provenance.as_cpu_run(hardware)
    hardware.update({k: v for k, v in device.items() if v is not None})
    hardware["device_kind"] = device["device_kind"]
    hardware["machine_id"] = provenance.machine_id(hardware)
    return hardware


def measure_or_fail(
    config: RunConfig,
    data_dir: Path | None = None,
    progress: bool = True,
    run_order: dict | None = None,
    quiet_wait_s: float = 0.0,
    compile_cache: Path | None = None,
) -> dict:
    """Train ``config`` in this process and return its run record: status ok, or oom or error when it raised
    (a failed record instead of a crash).

    ``run_order`` is ``record.run_order(K, N)`` when a matrix runs this configuration; ``quiet_wait_s`` bounds
    the wait for other processes to leave the CPUs before starting (0: never wait); ``compile_cache`` is the
    directory the framework's compiler caches live in, shared by the runs given it (``runners.measure.compile_cache``;
    None: a fresh temporary one, a cold compile).
    """
    started_at = utc_now()
    load = _LoadWatch(quiet_wait_s)
    try:
        with _cache_directory(compile_cache) as directory:
            state = cache_state(config.framework, directory)  # before this run writes there
            os.environ.update(framework_environment(config.device, directory, persistent=compile_cache is not None))
            with temporary_folder(directory):
                return _measure(config, data_dir, progress, run_order, load, state)
    except (KeyboardInterrupt, DataError):
        raise
    except Exception as exc:  # any framework error is a result: record it
        return failed_record(
            config,
            provenance.hardware_info(),
            started_at,
            "oom" if is_out_of_memory(config.framework, exc) else "error",
            type(exc).__name__,
            str(exc)[:2000],
            stderr_tail=traceback.format_exc(),
            run_order=run_order,
            load=load.section(),
        )


def _cache_directory(given: Path | None) -> contextlib.AbstractContextManager[str]:
    """The compile-cache directory: ``given``, or a fresh temporary one, removed afterwards."""
    if given is None:
        return tempfile.TemporaryDirectory(prefix="fwbench-compile-cache-")
    return contextlib.nullcontext(str(given))
