"""The training recipe: every hyperparameter the three frameworks share, in one commented table.

docs/design.md ("The training protocol", "Measuring") says why the recipe is what it is; this module holds the
values, each with its unit and its reason, and every framework's model and trainer, the data pipeline, the
learning-rate schedule and the clock read them from here. ``runners.arch`` holds the architecture alone (layers,
widths, strides), ``runners.schedule`` turns the learning-rate values into per-step rates.

The names say whose convention a value is in where the frameworks differ (BatchNorm's momentum): each framework
module converts nothing itself, it takes the constant spelled for it.
"""

from __future__ import annotations

import numpy as np

# --- Optimizer: SGD as PyTorch defines it ------------------------------------------------------------------------
# The update rule: v = momentum·v + (g + weight_decay·p); p -= lr·v. Keras' and optax's own SGD differ (the rate
# folded into the velocity, decoupled decay), so each trainer is written to make exactly this update.
#: dimensionless, per step; the value of He et al. 2016 and of the common PyTorch CIFAR ResNet-18 recipe
#: (kuangliu/pytorch-cifar), which this one follows
SGD_MOMENTUM = 0.9
#: per step, *coupled* (added to the gradient before momentum, as PyTorch's ``weight_decay`` does), the common
#: CIFAR ResNet-18 recipe's value; Keras' own ``weight_decay`` is decoupled, so the TensorFlow trainer does not use it
WEIGHT_DECAY = 5e-4

# --- Learning rate: linear warm-up, then cosine decay (runners.schedule) -----------------------------------------
#: the schedule's name as the record's ``config.lr_schedule.name`` states it
LR_SCHEDULE = "linear-warmup-cosine"
#: the peak rate at ``REFERENCE_BATCH`` images per step: the common CIFAR ResNet-18 recipe's 0.1 at batch 128
BASE_LR = 0.1
#: images per step that ``BASE_LR`` belongs to; other batch sizes scale it linearly (Goyal et al. 2017), so every
#: batch size of the article's range trains with the same rate per image
REFERENCE_BATCH = 128
#: share of all training steps spent warming up linearly to the peak (at least one step): the gradual warm-up of
#: Goyal et al. 2017, which keeps the linearly scaled rates of the large batches stable early in training
WARMUP_FRACTION = 0.1

# --- BatchNorm ---------------------------------------------------------------------------------------------------
#: PyTorch's convention, dimensionless: running = (1 − 0.1)·running + 0.1·batch, PyTorch's default
BN_MOMENTUM_TORCH = 0.1
#: the same rule in Keras' and Flax's convention, which name the complement "momentum" (their 0.9 is PyTorch's 0.1)
BN_DECAY = 1.0 - BN_MOMENTUM_TORCH
#: added to the variance, in squared activation units; PyTorch's default (Keras' own is 1e-3: set explicitly)
BN_EPSILON = 1e-5


# --- Convolution padding -----------------------------------------------------------------------------------------
def conv_padding(kernel: int) -> int:
    """Pixels of zero padding on *every* side of a ``kernel``×``kernel`` convolution: ``kernel // 2``, symmetric
    (1 for 3×3, 0 for 1×1). ``'SAME'`` in TensorFlow and Flax pads (0, 1) at stride 2, unlike PyTorch's (1, 1):
    that would be a different network, so no framework uses it where it is not symmetric (TensorFlow's model uses
    ``"same"`` only where it is: a pad layer in front of a ``"valid"`` convolution cost its step 13 %)."""
    return kernel // 2


# --- Data: augmentation and normalisation (runners.data) ---------------------------------------------------------
#: pixels of zero padding on each side before the random 32×32 crop (the standard CIFAR pad-4 crop)
CROP_PADDING = 4
#: probability, per image and epoch, of a horizontal flip
FLIP_PROBABILITY = 0.5
#: per-channel (R, G, B) mean and standard deviation of the CIFAR-10 training set, on the [0, 1] scale; used for
#: both data sets, so the synthetic set goes through the same arithmetic
MEAN = np.array([0.4914, 0.4822, 0.4465], np.float32)
STD = np.array([0.2470, 0.2435, 0.2616], np.float32)

# --- Precision ---------------------------------------------------------------------------------------------------
#: precision policy (``RunConfig.precision``, the record's ``config.precision``) -> the dtype its convolutions and
#: matmuls compute in (docs/design.md, "Precision"). The trainers apply the policy; the record holds what the
#: framework reports after the trainer is built (``Trainer.precision_flags``), compute dtype included.
#:
#: - ``fp32``: true float32 in all three frameworks, TF32 off everywhere: the parity reference.
#: - ``default``: each framework as installed, no precision setting touched (on Ampere and newer GPUs TF32
#:   convolutions in all three): what the article ran.
#: - ``bf16``: mixed precision as each framework documents it (``torch.autocast``, Keras's ``mixed_bfloat16``
#:   policy, Flax layers with ``dtype=bfloat16``); float32 master weights, optimizer state, BatchNorm statistics
#:   and loss in all three, every other setting as in ``default``.
PRECISION_POLICIES = {"fp32": "float32", "default": "float32", "bf16": "bfloat16"}
#: the policy whose runs are the parity reference and whose record ids are those from before the policy was a field
REFERENCE_PRECISION = "fp32"

# --- The clock (runners.run) -------------------------------------------------------------------------------------
#: the version of the timing protocol (the clock, the compile time, the phases memory is measured in): a record's
#: ``protocol``. Bump it whenever the timing protocol changes, so that records of different protocols never pool.
#: 1: fwbench.run/2 records; 2: the load sampled during the clock, compile caches chosen per run; 3: the
#: compile time measured against the first step run again (never clamped), every window's time kept, the machine's
#: kernel and boot recorded (a new boot starts a new sitting).
TIMING_PROTOCOL = 3
#: timing windows per epoch at most, each closed by a device sync: the step-time median and p90 come from them
#: (a sync per step would time the sync)
TIMING_WINDOWS = 8
#: steps per window at least: a shorter window would time the sync more than the steps
MIN_WINDOW_STEPS = 4
