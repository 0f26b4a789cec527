"""The GPT in Keras 3 on TensorFlow and its trainer: AdamW and the global-norm clip written out.

Keras' ``AdamW`` puts ε where PyTorch's and optax's do not (``recipe``), so the step spells out the shared update
after ``tf.clip_by_global_norm``, as ResNet-18's TensorFlow trainer spells out its SGD. Compiled mode is
``tf.function(jit_compile=True)``; eager runs the same step op by op. The attention is a configuration's choice
(``attention``): written out, the same matmuls, mask and softmax as in the other frameworks, or
``keras.ops.dot_product_attention(is_causal=True)``. bf16 is Keras' ``mixed_bfloat16`` policy on the dense layers
(bfloat16 compute, float32 variables), the tied head computed in bfloat16 too; embeddings, LayerNorms and the residual
stream stay float32, as PyTorch's autocast leaves them (a global policy would make them bfloat16).
"""

from __future__ import annotations

import math

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

from runners.frameworks.tensorflow import resnet18
from runners.workloads.gpt import arch, recipe
from runners.workloads.gpt.arch import GPTConfig
from runners.workloads.gpt.attention import FUSED, WRITTEN_OUT, WRITTEN_OUT_CALL, check, default_path

#: what each attention path calls, as the record's precision flags name it
ATTENTION_CALLS = {WRITTEN_OUT: WRITTEN_OUT_CALL, FUSED: "keras.ops.dot_product_attention(is_causal=True)"}
#: the dense layers' dtype policy under bf16 (Keras' mixed precision); None: the global policy's
MIXED_POLICY = "mixed_bfloat16"


class CausalSelfAttention(keras.layers.Layer):
    def __init__(self, config: GPTConfig, attention: str, dense_dtype: str | None):
        super().__init__()
        self.heads = config.heads
        self.attention = attention
        self.qkv = layers.Dense(3 * config.width, dtype=dense_dtype)
        self.proj = layers.Dense(config.width, dtype=dense_dtype)

    def call(self, x):
        batch, length, width = ops.shape(x)
        # (batch, length, heads, head width) for q, k and v, the layout the fused kernel takes; the written-out path's
        # einsums take it too: transposed to (batch, heads, …) first, XLA's CPU step at fp32 ran about 10 % slower
        q, k, v = (ops.reshape(t, (batch, length, self.heads, -1)) for t in ops.split(self.qkv(x), 3, axis=-1))
        if self.attention == FUSED:
            return self.proj(ops.reshape(ops.dot_product_attention(q, k, v, is_causal=True), (batch, length, width)))
        scores = ops.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(width // self.heads)
        position = ops.arange(length)
        scores = ops.where(position[None, :] > position[:, None], float("-inf"), scores)  # no later key
        softmax_dtype = keras.backend.result_type(scores.dtype, "float32")
        attention = ops.cast(ops.softmax(ops.cast(scores, softmax_dtype), axis=-1), v.dtype)
        return self.proj(ops.reshape(ops.einsum("bhqk,bkhd->bqhd", attention, v), (batch, length, width)))


def gelu(x):
    """GELU's tanh approximation, GPT-2's, as ``F.gelu(approximate="tanh")`` and ``jax.nn.gelu`` compute it.

    ``tf.nn.gelu`` (``ops.gelu``) makes its 0.044715 a float32 tensor before casting it to the input's dtype
    (0.04471500218 in float64): in the float64 parity run that alone moved GELU by 9e-10. Written out it is the
    same ops, which ``tf.nn.gelu`` also runs one by one.
    """
    return 0.5 * x * (1.0 + ops.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


class MLP(keras.layers.Layer):
    def __init__(self, config: GPTConfig, dense_dtype: str | None):
        super().__init__()
        self.fc = layers.Dense(arch.MLP_RATIO * config.width, dtype=dense_dtype)
        self.proj = layers.Dense(config.width, dtype=dense_dtype)

    def call(self, x):
        return self.proj(gelu(self.fc(x)))


class Block(keras.layers.Layer):
    def __init__(self, config: GPTConfig, attention: str, dense_dtype: str | None):
        super().__init__()
        self.ln1 = layers.LayerNormalization(epsilon=arch.LN_EPSILON)
        self.attn = CausalSelfAttention(config, attention, dense_dtype)
        self.ln2 = layers.LayerNormalization(epsilon=arch.LN_EPSILON)
        self.mlp = MLP(config, dense_dtype)

    def call(self, x):
        # ops.add promotes a bf16 branch into the float32 residual stream (TensorFlow's + would refuse the mix)
        x = ops.add(x, self.attn(self.ln1(x)))
        return ops.add(x, self.mlp(self.ln2(x)))


class GPT(keras.Model):
    """``attention`` is the path (``runners.workloads.gpt.attention``); ``dense_dtype`` the dense layers' dtype policy
    (None: the global one; ``MIXED_POLICY`` for bf16), which the tied head follows."""

    def __init__(self, config: GPTConfig, attention: str = WRITTEN_OUT, dense_dtype: str | None = None):
        super().__init__()
        check(attention, "tensorflow")
        self.wte = layers.Embedding(config.vocab, config.width)
        self.wpe = layers.Embedding(config.context, config.width)
        self.blocks = [Block(config, attention, dense_dtype) for _ in range(config.layers)]
        self.ln_f = layers.LayerNormalization(epsilon=arch.LN_EPSILON)

    def call(self, tokens):
        x = self.wte(tokens) + self.wpe(ops.arange(ops.shape(tokens)[1]))
        for block in self.blocks:
            x = block(x)
        h, table = self.ln_f(x), self.wte.embeddings
        compute = self.blocks[0].attn.qkv.compute_dtype
        if compute != keras.backend.standardize_dtype(h.dtype):  # the head in the dense layers' dtype, as autocast
            h, table = ops.cast(h, compute), ops.cast(table, compute)
        return ops.matmul(h, ops.transpose(table))  # the head tied to the token embedding


# layer kind → canonical field → Keras variable attribute (Keras already keeps dense kernels as (in, out))
LAYOUT = {
    "embedding": {"embedding": "embeddings"},
    "ln": {"scale": "gamma", "bias": "beta"},
    "dense": {"kernel": "kernel", "bias": "bias"},
}


def build(model: GPT, config: GPTConfig) -> GPT:
    """Create the variables by tracing one dummy sequence."""
    model(np.zeros((1, config.context), np.int32))
    return model


def _variable(model: GPT, key: str) -> keras.Variable:
    layer, _, field = key.rpartition(".")
    module = model
    for part in layer.split("."):
        module = module[int(part)] if part.isdigit() else getattr(module, part)
    return getattr(module, LAYOUT[arch.layer_kind(layer)][field])


def load_weights(model: GPT, weights: dict[str, np.ndarray]) -> None:
    """Assign canonical NumPy weights to the (built) model's variables."""
    for key, value in weights.items():
        variable = _variable(model, key)
        variable.assign(value.astype(variable.dtype))


def export_weights(model: GPT, config: GPTConfig) -> dict[str, np.ndarray]:
    """The model's weights in the canonical layout."""
    return {key: np.asarray(_variable(model, key).numpy()) for key in arch.weight_names(config)}


class Trainer(resnet18.Trainer):
    """One GPT and its AdamW on one device (the protocol: ``runners.frameworks.trainer.Trainer``; ``x`` and ``y``
    are token sequences, ``correct`` counts the tokens predicted right). ``memory``, ``reset_memory_peaks`` and
    ``device_info`` are ResNet-18's trainer's: they read ``self.device`` alone. ``attention`` is the path (None: the
    precision's, ``attention.default_path``)."""

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        mode: str,
        device: str = "auto",
        dtype: str = "float32",
        precision: str = "fp32",
        config: GPTConfig = arch.DEFAULT,
        attention: str | None = None,
    ):
        self.device = resnet18.training_device(device, precision)
        self.dtype = dtype  # float64 only for parity tests
        self.config = config
        keras.config.set_floatx(dtype)
        keras.config.set_dtype_policy(dtype)  # set again: a trainer built before in this process may have changed it
        self.attention = attention or default_path(precision)
        names = arch.weight_names(config)
        with tf.device(self.device):
            dense_dtype = MIXED_POLICY if precision == "bf16" else None
            self.model = build(GPT(config, self.attention, dense_dtype), config)
            self.params = [_variable(self.model, key) for key in names]
            self.decayed = [arch.is_decayed(key) for key in names]
            # the optimizer's state (AdamW, written out in ``_step``): the step count, two moments per parameter
            self.step_count = tf.Variable(0, trainable=False, dtype=tf.int64)
            self.moments = [
                (tf.Variable(tf.zeros_like(p), trainable=False), tf.Variable(tf.zeros_like(p), trainable=False))
                for p in self.params
            ]
        self.restore(weights)
        self.step_fn = tf.function(self._step, jit_compile=True) if mode == "compiled" else self._step
        self.logits_fn = tf.function(self._logits)  # evaluation is outside the clock: plain graph mode

    def _reset_optimizer(self) -> None:
        self.step_count.assign(0)
        for first, second in self.moments:
            first.assign(tf.zeros_like(first))
            second.assign(tf.zeros_like(second))

    def _step(self, x: tf.Tensor, y: tf.Tensor, lr: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.GradientTape() as tape:
            logits = tf.cast(self.model(x), self.dtype)  # the loss in float32 (bf16: the tied head's bf16 logits)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads, _ = tf.clip_by_global_norm(tape.gradient(loss, self.params), recipe.CLIP_NORM)
        self.step_count.assign_add(1)
        t = tf.cast(self.step_count, self.dtype)
        beta1, beta2 = recipe.ADAM_BETA1, recipe.ADAM_BETA2
        correction1, correction2 = 1 - beta1**t, 1 - beta2**t
        for param, grad, (first, second), decayed in zip(self.params, grads, self.moments, self.decayed, strict=True):
            grad = tf.convert_to_tensor(grad)  # the position embedding's gradient comes as IndexedSlices
            first.assign(beta1 * first + (1 - beta1) * grad)
            second.assign(beta2 * second + (1 - beta2) * tf.square(grad))
            update = (first / correction1) / (tf.sqrt(second / correction2) + recipe.ADAM_EPSILON)
            if decayed:
                update += recipe.WEIGHT_DECAY * param.value  # decoupled: outside the moments
            param.assign_sub(lr * update)
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=-1, output_type=y.dtype), y), tf.int32))
        return loss, correct

    def _logits(self, x: tf.Tensor) -> tf.Tensor:
        return tf.cast(self.model(x), self.dtype)

    def to_device(self, tokens: np.ndarray, targets: np.ndarray) -> list[tuple[tf.Tensor, tf.Tensor]]:
        """Per-step (tokens, targets) resident on the device, from arrays of shape (steps, batch, context)."""
        with tf.device(self.device):
            return [(tf.identity(x), tf.identity(y)) for x, y in zip(tokens, targets, strict=True)]

    def train_step(self, x: tf.Tensor, y: tf.Tensor, lr: float) -> tuple[tf.Tensor, tf.Tensor]:
        """One clipped AdamW step at learning rate ``lr``; returns (loss, correct tokens) without syncing."""
        return self.step_fn(x, y, tf.constant(lr, self.dtype))  # a tensor, so a new rate never retraces

    def logits(self, x: tf.Tensor, training: bool = False) -> np.ndarray:
        """Forward pass only, in graph mode; ``training`` changes nothing (no dropout, no statistics)."""
        return self.logits_fn(x).numpy()

    def sync(self) -> None:
        """Wait for the device's queue to drain: reading the step count back waits for the step that wrote it."""
        self.step_count.numpy()

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights."""
        return export_weights(self.model, self.config)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, weights)
        self._reset_optimizer()

    def precision_flags(self) -> dict:
        """TF32 execution as TensorFlow reports it, the model's Keras dtype policy, the dtypes its first dense layer
        computes in and keeps its variables in, Keras's float type, and what the attention calls."""
        dense = self.model.blocks[0].attn.qkv.dtype_policy
        return {
            "tf.config.experimental.tensor_float_32_execution_enabled": (
                tf.config.experimental.tensor_float_32_execution_enabled()
            ),
            "keras.Model.dtype_policy": self.model.dtype_policy.name,
            "keras.layers.Dense.dtype_policy.compute_dtype": dense.compute_dtype,
            "keras.layers.Dense.dtype_policy.variable_dtype": dense.variable_dtype,
            "keras.config.floatx": keras.config.floatx(),
            "attention": ATTENTION_CALLS[self.attention],
        }
