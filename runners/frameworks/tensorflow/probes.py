"""The four planted bugs in TensorFlow with Keras (compare with torch/probes.py and jax/probes.py).

Each probe builds a tiny two-layer model, runs one training step (forward, loss, gradients) eagerly or
through ``tf.function(jit_compile=True)``, and lets whatever the framework raises propagate. The
statement carrying each bug ends with a ``# PLANTED: <bug>`` marker, which the suite reads to locate it.
It runs on Keras 3 (today's TensorFlow) and on Keras 2.15, which ``pip install tensorflow==2.15`` brings and the
article's messages came from: hence ``tf.reduce_mean``, not Keras 3's ``keras.ops``.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

VERSION = tf.__version__
BATCH, FEATURES, HIDDEN, CLASSES, WRONG_CLASSES = 8, 32, 128, 10, 7


class Net(keras.Model):
    """body: FEATURES -> HIDDEN, head: ``head_in`` -> CLASSES (built for ``head_in`` input features)."""

    def __init__(self, head_in: int = HIDDEN):
        super().__init__()
        keras.utils.set_random_seed(0)
        self.body = keras.layers.Dense(HIDDEN, activation="relu", name="body")
        self.body.build((None, FEATURES))
        self.head = keras.layers.Dense(CLASSES, name="head")
        self.head.build((None, head_in))

    def call(self, x):
        h = self.body(x)
        return self.head(h)  # PLANTED: dense_shape


def enable_nan_tooling() -> None:
    """TensorFlow's NaN tooling: every op's output is checked for Inf and NaN."""
    tf.debugging.enable_check_numerics()


def batch():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((BATCH, FEATURES)), dtype=tf.float32)
    return x, tf.constant(np.arange(BATCH) % WRONG_CLASSES)


def train_step(model, loss_fn, x, y, compiled: bool) -> str:
    """One forward and backward pass; returns what came out, for probes that raise nothing."""

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, x, y)
        return loss, tape.gradient(loss, model.trainable_variables)

    loss, grads = (tf.function(step, jit_compile=True) if compiled else step)(x, y)
    finite = all(bool(tf.reduce_all(tf.math.is_finite(g))) for g in grads)
    return f"loss={float(loss):.6g} dtype={loss.dtype.name} gradients_finite={finite}"


def _cross_entropy(model, x, y):
    return tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))


def _float64_input(model, x, y):
    logits = model(tf.cast(x, tf.float64))  # PLANTED: dtype
    return tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))


def _seven_class_targets(model, x, y):
    targets = tf.one_hot(y, WRONG_CLASSES)
    losses = keras.losses.categorical_crossentropy(targets, model(x), from_logits=True)  # PLANTED: loss_shape
    return tf.reduce_mean(losses)


def _sqrt_of_logits(model, x, y):
    logits = tf.sqrt(model(x))  # PLANTED: nan
    return tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))


#: the loss each bug's step runs (dense_shape's bug is in Net itself, built with ``head_in=64``)
LOSSES = {
    "dense_shape": _cross_entropy,
    "dtype": _float64_input,
    "loss_shape": _seven_class_targets,
    "nan": _sqrt_of_logits,
}
