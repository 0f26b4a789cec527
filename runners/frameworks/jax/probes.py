"""The four planted bugs in JAX with Flax NNX and optax (compare with torch/probes.py, tensorflow/probes.py).

Each probe builds a tiny two-layer model, runs one training step (forward, loss, gradients) op by op or
through ``jax.jit``, and lets whatever the framework raises propagate. The statement carrying each bug
ends with a ``# PLANTED: <bug>`` marker, which the suite reads to locate it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx

VERSION = jax.__version__
BATCH, FEATURES, HIDDEN, CLASSES, WRONG_CLASSES = 8, 32, 128, 10, 7


class Net(nnx.Module):
    """body: FEATURES -> HIDDEN, head: ``head_in`` -> CLASSES."""

    def __init__(self, head_in: int = HIDDEN):
        rngs = nnx.Rngs(0)
        self.body = nnx.Linear(FEATURES, HIDDEN, rngs=rngs)
        self.head = nnx.Linear(head_in, CLASSES, rngs=rngs)

    def __call__(self, x):
        h = jax.nn.relu(self.body(x))
        return self.head(h)  # PLANTED: dense_shape


def enable_nan_tooling() -> None:
    """JAX's NaN tooling: every primitive's output is checked, and a jitted function re-runs op by op."""
    jax.config.update("jax_debug_nans", True)


def batch():
    x = jax.random.normal(jax.random.key(0), (BATCH, FEATURES))
    return x, jnp.arange(BATCH) % WRONG_CLASSES


def train_step(model, loss_fn, x, y, compiled: bool) -> str:
    """One forward and backward pass; returns what came out, for probes that raise nothing.

    The model goes through JAX's transforms as its state (``nnx.split``), as every Flax NNX release takes it: the
    module itself is a pytree only from Flax 0.10, and the article's JAX 0.4.26 runs Flax 0.8.
    """
    graphdef, state = nnx.split(model)

    def pure(state, x, y):
        return loss_fn(nnx.merge(graphdef, state), x, y)

    step = jax.value_and_grad(pure)
    loss, grads = (jax.jit(step) if compiled else step)(state, x, y)
    finite = all(bool(jnp.isfinite(g).all()) for g in jax.tree.leaves(grads))
    return f"loss={float(loss):.6g} dtype={loss.dtype} gradients_finite={finite}"


def _cross_entropy(model, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()


def _float64_input(model, x, y):
    logits = model(x.astype(jnp.float64))  # PLANTED: dtype
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def _seven_class_targets(model, x, y):
    targets = jax.nn.one_hot(y, WRONG_CLASSES)
    return optax.softmax_cross_entropy(model(x), targets).mean()  # PLANTED: loss_shape


def _sqrt_of_logits(model, x, y):
    logits = jnp.sqrt(model(x))  # PLANTED: nan
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


#: the loss each bug's step runs (dense_shape's bug is in Net itself, built with ``head_in=64``)
LOSSES = {
    "dense_shape": _cross_entropy,
    "dtype": _float64_input,
    "loss_shape": _seven_class_targets,
    "nan": _sqrt_of_logits,
}
