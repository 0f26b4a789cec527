"""The four planted bugs in PyTorch (compare with tensorflow/probes.py and jax/probes.py).

Each probe builds a tiny two-layer model, runs one training step (forward, loss, backward) eagerly or
through ``torch.compile``, and lets whatever the framework raises propagate. The statement carrying
each bug ends with a ``# PLANTED: <bug>`` marker, which the suite reads to locate it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

VERSION = torch.__version__
BATCH, FEATURES, HIDDEN, CLASSES, WRONG_CLASSES = 8, 32, 128, 10, 7


class Net(nn.Module):
    """body: FEATURES -> HIDDEN, head: ``head_in`` -> CLASSES."""

    def __init__(self, head_in: int = HIDDEN):
        super().__init__()
        torch.manual_seed(0)
        self.body = nn.Linear(FEATURES, HIDDEN)
        self.head = nn.Linear(head_in, CLASSES)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h)  # PLANTED: dense_shape


def enable_nan_tooling() -> None:
    """PyTorch's NaN tooling: anomaly detection checks every backward function's output."""
    torch.autograd.set_detect_anomaly(True)


def batch():
    return torch.randn(BATCH, FEATURES), torch.arange(BATCH) % WRONG_CLASSES


def train_step(model, loss_fn, x, y, compiled: bool) -> str:
    """One forward and backward pass; returns what came out, for probes that raise nothing."""
    step = torch.compile(loss_fn) if compiled else loss_fn
    loss = step(model, x, y)
    loss.backward()
    finite = all(bool(torch.isfinite(p.grad).all()) for p in model.parameters())
    return f"loss={loss.item():.6g} dtype={loss.dtype} gradients_finite={finite}"


def _cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


def _float64_input(model, x, y):
    logits = model(x.to(torch.float64))  # PLANTED: dtype
    return F.cross_entropy(logits, y)


def _seven_class_targets(model, x, y):
    targets = F.one_hot(y, WRONG_CLASSES).float()
    return F.cross_entropy(model(x), targets)  # PLANTED: loss_shape


def _sqrt_of_logits(model, x, y):
    logits = torch.sqrt(model(x))  # PLANTED: nan
    return F.cross_entropy(logits, y)


#: the loss each bug's step runs (dense_shape's bug is in Net itself, built with ``head_in=64``)
LOSSES = {
    "dense_shape": _cross_entropy,
    "dtype": _float64_input,
    "loss_shape": _seven_class_targets,
    "nan": _sqrt_of_logits,
}
