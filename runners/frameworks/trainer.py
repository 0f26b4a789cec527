"""What a framework's ``Trainer`` does (the protocol the runners and benchmarks rely on) and how one is made.

Each ``runners/frameworks/<framework>_train.py`` defines ``Trainer(weights, mode, device, dtype)`` with these
methods, in this order. Callers build one through ``make_trainer``, which checks the mode against the framework
registry, and use nothing but the protocol.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

import numpy as np

from fwbench.frameworks import framework


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
        """The model's weights and BatchNorm statistics in the canonical layout of ``runners.arch``."""

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load canonical ``weights`` and start the optimizer afresh (undoes the compile warm-up step)."""

    def memory(self) -> dict[str, int | None]:
        """The framework allocator's peak and reserved bytes (``allocator_peak_bytes``,
        ``allocator_reserved_bytes``); None where the framework does not say (on a CPU, always)."""

    def device_info(self) -> dict[str, Any]:
        """What the framework says about its device: ``device_kind`` (cpu or gpu), ``device_name``, ``cuda``,
        ``cudnn`` and ``framework_threads``; None where it does not say."""


def check_mode(name: str, mode: str) -> None:
    """ValueError unless framework ``name`` trains in ``mode`` (its ``training_modes`` in the registry)."""
    modes = framework(name).training_modes
    if mode not in modes:
        raise ValueError(f"{name} trains only in mode {' or '.join(modes)}, not {mode!r}")


def trainer_class(name: str) -> type[Trainer]:
    """The ``Trainer`` class of framework ``name``; imports that framework."""
    return importlib.import_module(framework(name).trainer_module).Trainer


def make_trainer(
    name: str, weights: dict[str, np.ndarray], mode: str, device: str = "auto", dtype: str = "float32"
) -> Trainer:
    """A trainer of framework ``name`` holding ``weights``: ``mode`` compiled or eager (checked by
    ``check_mode``), ``device`` auto, cpu or gpu, ``dtype`` float32 (float64 only for the parity tests)."""
    check_mode(name, mode)
    return trainer_class(name)(weights, mode=mode, device=device, dtype=dtype)
