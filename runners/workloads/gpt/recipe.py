"""The GPT's training recipe: every hyperparameter the three frameworks share, in one commented table.

The values follow nanoGPT's character-level Shakespeare configuration (``config/train_shakespeare_char.py``: the same
6 × 384 model), without its dropout. ``arch`` holds the architecture; the per-step learning rates come from
``learning_rates`` below, so that every framework's step takes its rate as an input, as ResNet-18's does.

The update rule, AdamW with decoupled weight decay as Loshchilov & Hutter and PyTorch define it, after the gradients
are clipped to a global norm of at most ``CLIP_NORM`` (g ← g · min(1, CLIP_NORM / ‖g‖)):

    m ← β₁·m + (1 − β₁)·g        v ← β₂·v + (1 − β₂)·g²        m̂ = m / (1 − β₁ᵗ)        v̂ = v / (1 − β₂ᵗ)
    p ← p − lr·(m̂ / (√v̂ + ε) + wd·p)      (wd only where ``arch.is_decayed``)

``torch.optim.AdamW`` and ``optax.adamw`` make exactly this update. Keras' ``AdamW`` adds ε to √v before the bias
correction (p ← p − lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ) · m / (√v + ε)), which is the rule above with ε/√(1 − β₂ᵗ) in place of
ε: ten times ε at the first step (β₂ = 0.99), a different ε at every step; the TensorFlow trainer therefore writes
the update out (its decay, p ← p − lr·wd·p before the step, is the same). ``torch.nn.utils.clip_grad_norm_``
divides by ‖g‖ + 1e-6, where optax's and TensorFlow's ``clip_by_global_norm`` divide by ‖g‖; the PyTorch trainer
writes the clip out.
"""

from __future__ import annotations

import numpy as np

from runners.workloads import lr_schedule

# --- Optimizer: AdamW ---------------------------------------------------------------------------------------------
#: the peak rate, per step, for every batch size: Adam's rate is not scaled linearly with the batch (nanoGPT's 1e-3
#: at 64 × 256 tokens per step, the value for this model size)
PEAK_LR = 1e-3
#: first-moment decay, dimensionless (PyTorch's and optax's default)
ADAM_BETA1 = 0.9
#: second-moment decay; nanoGPT's 0.99 for a model this small, where a step sees few tokens
ADAM_BETA2 = 0.99
#: added to √v̂ (PyTorch's and optax's placement and default)
ADAM_EPSILON = 1e-8
#: decoupled, multiplied by the learning rate (p ← p − lr·wd·p); nanoGPT's 0.1, on ``arch.is_decayed`` parameters
WEIGHT_DECAY = 0.1
#: the largest global L2 norm of the gradients before the update; nanoGPT's 1.0
CLIP_NORM = 1.0

# --- Learning rate: linear warm-up, then cosine decay ------------------------------------------------------------
#: the schedule's name as a record's ``config.lr_schedule.name`` states it: ResNet-18's shape and warm-up share
LR_SCHEDULE = lr_schedule.LR_SCHEDULE


def learning_rates(batch_size: int, total_steps: int) -> np.ndarray:
    """Per-step rates (float32): ResNet-18's curve (``runners.workloads.lr_schedule``: linear warm-up over the same
    share of the steps, then cosine decay towards zero), peaking at ``PEAK_LR`` whatever the batch size
    (``runners.workloads.lr_schedule``'s signature, so that ``runners.measure.run`` asks every workload alike)."""
    reference = lr_schedule.peak_lr(lr_schedule.REFERENCE_BATCH)  # the curve at the batch whose peak is BASE_LR
    rates = lr_schedule.learning_rates(lr_schedule.REFERENCE_BATCH, total_steps) * (PEAK_LR / reference)
    return rates.astype(np.float32)


def describe(batch_size: int, total_steps: int) -> dict:
    """The schedule's parameters as a run record's ``config.lr_schedule`` states them."""
    return {
        "name": LR_SCHEDULE,
        "peak_lr": PEAK_LR,
        "warmup_steps": lr_schedule.warmup_steps(total_steps),
        "total_steps": total_steps,
    }
