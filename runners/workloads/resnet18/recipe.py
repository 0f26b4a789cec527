"""ResNet-18's training recipe: every hyperparameter the three frameworks share, in one commented table.

docs/design.md ("The training protocol", "Measuring") says why the recipe is what it is; this module holds the
values, each with its unit and its reason, and every framework's model and trainer, the data pipeline and the
learning-rate schedule read them from here. ``runners.workloads.resnet18.arch`` holds the architecture alone
(layers, widths, strides), ``runners.workloads.lr_schedule`` turns the learning-rate values into per-step rates; the
precision policies every workload shares are ``runners.frameworks.precision``'s, the clock's constants
``runners.measure.protocol``'s.

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

# --- Learning rate: linear warm-up, then cosine decay (runners.workloads.lr_schedule)
# -----------------------------------------
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


# --- Data: augmentation and normalisation (runners.workloads.resnet18.dataset)
# ---------------------------------------------------------
#: pixels of zero padding on each side before the random 32×32 crop (the standard CIFAR pad-4 crop)
CROP_PADDING = 4
#: probability, per image and epoch, of a horizontal flip
FLIP_PROBABILITY = 0.5
#: per-channel (R, G, B) mean and standard deviation of the CIFAR-10 training set, on the [0, 1] scale; used for
#: both data sets, so the synthetic set goes through the same arithmetic
MEAN = np.array([0.4914, 0.4822, 0.4465], np.float32)
STD = np.array([0.2470, 0.2435, 0.2616], np.float32)
