"""The GPT in Flax NNX and its trainer: optax's ``clip_by_global_norm`` and ``adamw``.

Both are the shared update as they stand (``recipe``), ``adamw``'s decay masked to ``arch.is_decayed``. The step is
a pure function of (params, optimizer state) compiled with ``jax.jit``, as ResNet-18's JAX trainer does. The attention
is a configuration's choice (``attention``): written out, the same matmuls, mask and softmax as in the other
frameworks; ``jax.nn.dot_product_attention``; or JAX's Pallas flash-attention kernel for TPUs. bf16 is Flax's mixed
precision as its examples set it, ``dtype=jnp.bfloat16`` on every layer (the embeddings, LayerNorms, dense layers and
the tied head; parameters float32), so the residual stream is bfloat16 where PyTorch's autocast keeps it float32: on
a TPU v5e at GPT-2 small a float32 stream cost the step 1.8 % against the minimal Flax loop, which runs it in bfloat16
(``benchmarks/idiomatic_loop.py``). LayerNorm's statistics and the loss stay float32.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from runners.frameworks.jax import resnet18
from runners.frameworks.jax.resnet18 import pure
from runners.frameworks.jax.resnet18_model import ModuleList
from runners.workloads.gpt import arch, recipe
from runners.workloads.gpt.arch import GPTConfig
from runners.workloads.gpt.attention import FUSED, PALLAS_FLASH, WRITTEN_OUT, WRITTEN_OUT_CALL, check, default_path

#: what each attention path calls, as the record's precision flags name it
ATTENTION_CALLS = {
    WRITTEN_OUT: WRITTEN_OUT_CALL,
    FUSED: "jax.nn.dot_product_attention(is_causal=True, implementation=None)",
    PALLAS_FLASH: "jax.experimental.pallas.ops.tpu.flash_attention.flash_attention(causal=True)",
}


def written_out_attention(q, k, v):
    """Causal attention of (batch, heads, length, head width) arrays: q·kᵀ/√d, no later key, softmax in at least
    float32, the weights cast back to v's dtype."""
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    position = jnp.arange(q.shape[2])
    scores = jnp.where(position[None, :] > position[:, None], -jnp.inf, scores)  # no later key
    attention = jax.nn.softmax(scores.astype(jnp.promote_types(scores.dtype, jnp.float32)), axis=-1)
    return attention.astype(v.dtype) @ v


def pallas_flash_attention(q, k, v):
    """Causal attention of (batch, heads, length, head width) arrays by JAX's Pallas flash-attention kernel for TPUs,
    its default block sizes (keys in blocks of 128 tokens). ``jax.nn.dot_product_attention`` has no TPU kernel of its
    own (``implementation`` takes ``xla`` or ``cudnn``; None falls back to XLA's); JAX ships its TPU attention kernels
    as Pallas programs under ``jax.experimental.pallas.ops.tpu`` (``flash_attention``, ``splash_attention``), the
    kernel PyTorch/XLA's ``flash_attention`` wraps. Imported only where chosen: it is a TPU program (a CPU runs it in
    Pallas' TPU interpreter, the tests)."""
    from jax.experimental.pallas.ops.tpu import flash_attention

    return flash_attention.flash_attention(q, k, v, causal=True, sm_scale=1 / math.sqrt(q.shape[-1]))


class CausalSelfAttention(nnx.Module):
    def __init__(self, config: GPTConfig, rngs: nnx.Rngs, param_dtype, dtype, attention: str):
        self.heads = config.heads
        self.attention = attention  # a static attribute: part of the graph the step is compiled from
        self.qkv = nnx.Linear(config.width, 3 * config.width, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.proj = nnx.Linear(config.width, config.width, dtype=dtype, param_dtype=param_dtype, rngs=rngs)

    def __call__(self, x):
        batch, length, width = x.shape
        # (batch, length, width) → (batch, length, heads, head width), for q, k and v
        q, k, v = (t.reshape(batch, length, self.heads, -1) for t in jnp.split(self.qkv(x), 3, axis=-1))
        if self.attention == FUSED:  # the layout it takes; implementation=None: JAX chooses (XLA's on a TPU or CPU)
            out = jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation=None)
        else:  # heads before length, the layout of the written-out matmuls and of the Pallas kernel
            attend = pallas_flash_attention if self.attention == PALLAS_FLASH else written_out_attention
            out = attend(*(t.transpose(0, 2, 1, 3) for t in (q, k, v))).transpose(0, 2, 1, 3)
        return self.proj(out.reshape(batch, length, width))


class MLP(nnx.Module):
    def __init__(self, config: GPTConfig, rngs: nnx.Rngs, param_dtype, dtype):
        hidden = arch.MLP_RATIO * config.width
        self.fc = nnx.Linear(config.width, hidden, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.proj = nnx.Linear(hidden, config.width, dtype=dtype, param_dtype=param_dtype, rngs=rngs)

    def __call__(self, x):
        return self.proj(nnx.gelu(self.fc(x), approximate=True))


def layer_norm(config: GPTConfig, rngs: nnx.Rngs, param_dtype, dtype=None) -> nnx.LayerNorm:
    # Flax's default one-pass variance (E[x²] − E[x]²), what its users get: within the parity bounds of PyTorch's and
    # Keras' two-pass one, and the two-pass form cost the whole step 15 % on a CPU (idiomatic_loop --workload gpt)
    return nnx.LayerNorm(config.width, epsilon=arch.LN_EPSILON, dtype=dtype, param_dtype=param_dtype, rngs=rngs)


class Block(nnx.Module):
    def __init__(self, config: GPTConfig, rngs: nnx.Rngs, param_dtype, dtype, attention: str):
        self.ln1 = layer_norm(config, rngs, param_dtype, dtype)
        self.attn = CausalSelfAttention(config, rngs, param_dtype, dtype, attention)
        self.ln2 = layer_norm(config, rngs, param_dtype, dtype)
        self.mlp = MLP(config, rngs, param_dtype, dtype)

    def __call__(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nnx.Module):
    """``param_dtype`` is the dtype the parameters are kept in: float32, float64 for parity (Flax's ``Embed``
    computes in its ``param_dtype`` whatever the weights loaded into it hold); ``dtype`` the one every layer computes
    in (None: their inputs' and parameters'; bfloat16 for mixed precision); ``attention`` the path
    (``runners.workloads.gpt.attention``)."""

    def __init__(
        self, config: GPTConfig, rngs: nnx.Rngs, param_dtype=jnp.float32, dtype=None, attention: str = WRITTEN_OUT
    ):
        check(attention, "jax")
        self.wte = nnx.Embed(config.vocab, config.width, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.wpe = nnx.Embed(config.context, config.width, dtype=dtype, param_dtype=param_dtype, rngs=rngs)
        self.blocks = ModuleList([Block(config, rngs, param_dtype, dtype, attention) for _ in range(config.layers)])
        self.ln_f = layer_norm(config, rngs, param_dtype, dtype)

    def __call__(self, tokens):
        x = self.wte(tokens) + self.wpe(jnp.arange(tokens.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.wte.attend(self.ln_f(x))  # the head tied to the token embedding


def _variable(model: GPT, key: str) -> nnx.Variable:
    """Flax's names are the canonical ones (``embedding``, ``scale``, ``bias``, ``kernel`` as (in, out))."""
    module = model
    for part in key.split("."):
        module = module[int(part)] if part.isdigit() else getattr(module, part)
    return module


def load_weights(model: GPT, weights: dict[str, np.ndarray]) -> None:
    """Set the model's variables from canonical NumPy weights."""
    for key, value in weights.items():
        _variable(model, key).set_value(jnp.asarray(value))


def export_weights(model: GPT, config: GPTConfig) -> dict[str, np.ndarray]:
    """The model's weights in the canonical layout."""
    return {key: np.asarray(_variable(model, key).get_value()) for key in arch.weight_names(config)}


def decay_mask(params) -> object:
    """The params' tree with True where AdamW decays (``arch.is_decayed``), read from each leaf's canonical name."""
    return jax.tree_util.tree_map_with_path(
        lambda path, _: arch.is_decayed(jax.tree_util.keystr(path, simple=True, separator=".")), params
    )


def loss_and_correct(logits: jax.Array, labels: jax.Array) -> tuple[jax.Array, jax.Array]:
    """optax's ``softmax_cross_entropy_with_integer_labels`` averaged, and how many rows' ``jnp.argmax`` is the
    label: two reductions over the vocabulary, which XLA schedules as it likes (one variadic reduction for both read
    the float32 logits once, yet cost the step 1.8 % on a TPU v5e at GPT-2 small)."""
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    return loss, jnp.sum(jnp.argmax(logits, axis=-1) == labels)


def clipped_adamw(mask) -> optax.GradientTransformation:
    """The recipe's optimizer: a global-norm clip, then AdamW decaying the parameters ``mask`` marks (a function of
    the parameters' tree); its learning rate an input of each step (``inject_hyperparams``), not a constant."""
    return optax.inject_hyperparams(
        lambda learning_rate: optax.chain(
            optax.clip_by_global_norm(recipe.CLIP_NORM),
            optax.adamw(
                learning_rate,
                b1=recipe.ADAM_BETA1,
                b2=recipe.ADAM_BETA2,
                eps=recipe.ADAM_EPSILON,
                weight_decay=recipe.WEIGHT_DECAY,
                mask=mask,
            ),
        )
    )(learning_rate=0.0)


class Trainer(resnet18.Trainer):
    """One GPT and its AdamW on one device (the protocol: ``runners.frameworks.trainer.Trainer``; ``x`` and ``y``
    are token sequences, ``correct`` counts the tokens predicted right). ``memory``, ``reset_memory_peaks`` and
    ``device_info`` are ResNet-18's trainer's: they read ``self.device`` alone.

    ``mode`` is always ``compiled`` (the workload's ``make_trainer`` checks it): JAX trains only through ``jax.jit``.
    ``attention`` is the path (None: the precision's, ``attention.default_path``).
    """

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
        self.dtype = np.dtype(dtype)  # float64 only for parity tests
        self.config = config
        self.attention = attention or default_path(precision)
        self.device = resnet18.training_device(device, precision, self.dtype)
        compute = jnp.bfloat16 if precision == "bf16" else None  # None: the inputs' and parameters' dtype
        # shapes only: every variable is overwritten by ``restore`` (as in ResNet-18's trainer)
        self.model = nnx.eval_shape(lambda: GPT(config, nnx.Rngs(0), self.dtype, compute, self.attention))
        self.graph = nnx.graphdef(self.model)
        self.optimizer = clipped_adamw(decay_mask)
        self.restore(weights)
        interpret = self.attention == PALLAS_FLASH and self.device.platform == "cpu"
        self.step_fn = in_tpu_interpreter(jax.jit(self._step, donate_argnums=(0, 1)), interpret)
        self.logits_fn = in_tpu_interpreter(jax.jit(self._logits), interpret)

    def _reset_optimizer(self) -> None:
        self.opt_state = jax.device_put(self.optimizer.init(self.params), self.device)

    def _step(self, params, opt_state, x, y, lr):
        def loss_fn(params):
            logits = nnx.merge(self.graph, params)(x).astype(self.dtype)  # the loss in float32 (bf16: bf16 logits)
            return loss_and_correct(logits, y)

        (loss, correct), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
        opt_state.hyperparams["learning_rate"] = lr
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss, correct

    def _logits(self, params, x):
        return nnx.merge(self.graph, params)(x).astype(self.dtype)

    def to_device(self, tokens: np.ndarray, targets: np.ndarray) -> list[tuple[jax.Array, jax.Array]]:
        """Per-step (tokens, targets) resident on the device, from arrays of shape (steps, batch, context)."""
        return [
            (jax.device_put(x, self.device), jax.device_put(y, self.device))
            for x, y in zip(tokens, targets, strict=True)
        ]

    def train_step(self, x: jax.Array, y: jax.Array, lr: float) -> tuple[jax.Array, jax.Array]:
        """One clipped AdamW step at learning rate ``lr``; returns (loss, correct tokens) without syncing."""
        self.params, self.opt_state, loss, correct = self.step_fn(
            self.params, self.opt_state, x, y, self.dtype.type(lr)
        )
        return loss, correct

    def logits(self, x: jax.Array, training: bool = False) -> np.ndarray:
        """Forward pass only, jitted; ``training`` changes nothing (no dropout, no statistics)."""
        return np.asarray(self.logits_fn(self.params, x))

    def sync(self) -> None:
        """Wait until the training state is computed."""
        jax.block_until_ready((self.params, self.opt_state))

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights."""
        nnx.update(self.model, self.params)
        return export_weights(self.model, self.config)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, {k: v.astype(self.dtype) for k, v in weights.items()})
        # plain arrays, not Variables: the step merges them into a fresh module inside its own trace
        self.params = jax.device_put(pure(nnx.state(self.model, nnx.Param)), self.device)
        self._reset_optimizer()

    def precision_flags(self) -> dict:
        """The default precision of matmuls, as JAX's configuration holds it, the dtype the layers compute in (the
        first dense layer's; None: its inputs' dtype), the parameters' dtype and what the attention calls."""
        attn = self.model.blocks[0].attn
        return {
            "jax_default_matmul_precision": jax.config.jax_default_matmul_precision,
            "flax.nnx.Linear.dtype": None if attn.qkv.dtype is None else jnp.dtype(attn.qkv.dtype).name,
            "flax.nnx.Param.dtype": jax.tree.leaves(self.params)[0].dtype.name,
            "attention": ATTENTION_CALLS[attn.attention],
        }


def in_tpu_interpreter(step, interpret: bool):
    """``step``, called inside Pallas' TPU interpreter where ``interpret`` (the Pallas kernel on a CPU: the tests);
    else ``step`` itself, nothing added to a timed step."""
    if not interpret:
        return step
    from jax.experimental.pallas import tpu as pltpu

    def interpreted(*args):
        with pltpu.force_tpu_interpret_mode():
            return step(*args)

    return interpreted
