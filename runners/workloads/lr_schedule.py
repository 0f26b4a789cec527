"""The learning-rate schedule every framework follows: one table of per-step rates, computed once in NumPy.

Each framework's training step takes the step's rate as an input, so the three cannot drift apart. The values
(base rate, reference batch, warm-up share) are ``runners.workloads.resnet18.recipe``'s.
"""

from __future__ import annotations

import math

import numpy as np

from runners.workloads.resnet18.recipe import BASE_LR, LR_SCHEDULE, REFERENCE_BATCH, WARMUP_FRACTION


def describe(batch_size: int, total_steps: int) -> dict:
    """The schedule's parameters as stored in a run record's ``config.lr_schedule``."""
    return {
        "name": LR_SCHEDULE,
        "base_lr": BASE_LR,
        "reference_batch": REFERENCE_BATCH,
        "peak_lr": peak_lr(batch_size),
        "warmup_steps": warmup_steps(total_steps),
        "total_steps": total_steps,
    }


def peak_lr(batch_size: int) -> float:
    """Linear scaling rule: ``BASE_LR × batch / REFERENCE_BATCH``."""
    return BASE_LR * batch_size / REFERENCE_BATCH


def warmup_steps(total_steps: int) -> int:
    return max(1, math.ceil(WARMUP_FRACTION * total_steps))


def learning_rates(batch_size: int, total_steps: int) -> np.ndarray:
    """Per-step rates: linear warm-up to the peak, then cosine decay towards zero (float32)."""
    if total_steps < 1:
        raise ValueError(f"total_steps must be at least 1, got {total_steps}")
    peak, warm = peak_lr(batch_size), warmup_steps(total_steps)
    steps = np.arange(total_steps, dtype=np.float64)
    warmup = peak * (steps + 1) / warm
    progress = (steps - warm) / max(1, total_steps - warm)
    cosine = 0.5 * peak * (1.0 + np.cos(np.pi * np.clip(progress, 0.0, 1.0)))
    return np.where(steps < warm, warmup, cosine).astype(np.float32)
