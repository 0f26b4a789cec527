"""What a framework's ``Trainer`` does (the protocol the runners and benchmarks rely on) and how one is made.

Each framework's trainer modules (``runners/frameworks/<framework>/resnet18.py``, ``gpt.py``) define
``Trainer(weights, mode, device, dtype, precision)`` with these methods, in this order. Callers build one through
``make_trainer``, which checks the mode against the framework registry, and use nothing but the protocol.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

import numpy as np

from fwbench.frameworks import framework
from runners.frameworks.precision import PRECISION_POLICIES


class Trainer(Protocol):
    """One ResNet-18 and its SGD optimizer (momentum, coupled weight decay) on one device.

    Tensors (``x``, ``y``, the returned loss and count) are the framework's own, resident on the device.
    """

    def to_device(self, images: np.ndarray, labels: np.ndarray) -> list[tuple[Any, Any]]:
        """Per-step (images, labels) pairs resident on the device, from NHWC ``images`` of shape (steps, batch,
        H, W, C) and ``labels`` of shape (steps, batch); images in the framework's layout and dtype."""

    def train_step(self, x: Any, y: Any, lr: float) -> tuple[Any, Any]:
        """One SGD step at learning rate ``lr``; returns (loss, correct predictions) without syncing."""

    def logits(self, x: Any, training: bool = False) -> np.ndarray:
        """The forward pass alone, on the host; ``training`` uses batch statistics (and updates the running ones,
        as training does). Evaluation, outside the clock."""

    def sync(self) -> None:
        """Wait until every operation queued on the device has finished."""

    def weights(self) -> dict[str, np.ndarray]:
        """The model's weights and BatchNorm statistics in the canonical layout of
        ``runners.workloads.resnet18.arch``."""

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load canonical ``weights`` and start the optimizer afresh (undoes the compile warm-up step)."""

    def memory(self) -> dict[str, int | None]:
        """The framework allocator's peak and reserved bytes (``allocator_peak_bytes``,
        ``allocator_reserved_bytes``) since the last ``reset_memory_peaks`` (else since the start); None where the
        framework does not say or nothing was measured (on a CPU, always), never 0 for unknown."""

    def reset_memory_peaks(self) -> bool:
        """Start the allocator's peak figures afresh, so that ``memory`` counts from now; False where the
        framework cannot (its peaks then keep counting from the start)."""

    def device_info(self) -> dict[str, Any]:
        """What the framework says about its device: ``device_kind`` (cpu, gpu or tpu), ``device_name``, ``cuda``,
        ``cudnn`` and ``framework_threads``, and on a TPU ``device_count``, ``tpu_topology``,
        ``device_memory_bytes`` and ``libtpu``; None where it does not say."""

    def precision_flags(self) -> dict[str, Any]:
        """The framework's precision settings as it reports them now (read back, never restated from what was
        asked), keyed by the name of the framework's own API that reports each: its TF32 switches, and the dtype
        the model computes in and keeps its variables in (``runners.frameworks.precision.PRECISION_POLICIES``)."""


def check_mode(name: str, mode: str) -> None:
    """ValueError unless framework ``name`` trains in ``mode`` (its ``training_modes`` in the registry)."""
    modes = framework(name).training_modes
    if mode not in modes:
        raise ValueError(f"{name} trains only in mode {' or '.join(modes)}, not {mode!r}")


def check_precision(policy: str) -> None:
    """ValueError unless ``policy`` is a precision policy the trainers apply (``precision.PRECISION_POLICIES``)."""
    if policy not in PRECISION_POLICIES:
        raise ValueError(f"precision {policy!r}: choose from {', '.join(PRECISION_POLICIES)}")


def make_trainer(
    name: str,
    weights: dict[str, np.ndarray],
    mode: str,
    device: str = "auto",
    dtype: str = "float32",
    precision: str = "fp32",
    module: str | None = None,
    **options: Any,
) -> Trainer:
    """A trainer of framework ``name`` holding ``weights``: ``mode`` compiled or eager (checked by
    ``check_mode``), ``device`` auto, cpu, gpu or tpu (RuntimeError where the framework has none there), ``dtype``
    float32 (float64 only for the parity tests), ``precision`` the policy it applies (checked by
    ``check_precision``); ``module`` the module holding the ``Trainer`` (default the framework's ResNet-18 one;
    ``runners.workloads`` names another workload's) and ``options`` that trainer's own arguments. Checked before the
    framework is imported."""
    check_mode(name, mode)
    check_precision(precision)
    trainer = importlib.import_module(module or framework(name).trainer_module).Trainer
    return trainer(weights, mode=mode, device=device, dtype=dtype, precision=precision, **options)
