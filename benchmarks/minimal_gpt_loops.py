"""Minimal GPT training loops written as each framework's own examples write them: the references
``benchmarks/idiomatic_loop.py --workload gpt`` measures fwbench's GPT trainers against (as ``minimal_loops`` does
for ResNet-18).

Their own code, not fwbench's: a nanoGPT-shaped decoder (pre-LayerNorm blocks, one fused q|k|v projection, a GELU
MLP four times as wide, the head tied to the token embedding, no dropout) at the sizes of
``runners.workloads.gpt.arch`` (``GPTConfig``), each framework's fused attention (``jax.nn.dot_product_attention``,
``torch.nn.functional.scaled_dot_product_attention``, ``keras.ops.dot_product_attention``, all causal), the
framework's default initialisation, and nanoGPT's optimizer as each framework spells it: the gradients clipped to a
global norm of 1, then AdamW (β₂ 0.99, decay 0.1 on the dense kernels only). What differs from fwbench's trainers,
and what it costs:

- **Bookkeeping.** fwbench's step also counts the tokens predicted right (an argmax over batch × context × vocab
  logits) and takes its learning rate as an input; here the rate is a constant.
- **Precision.** Under ``bf16`` the PyTorch loop runs its forward pass and loss under ``torch.autocast``, the Keras
  loop builds its model under the ``mixed_bfloat16`` policy with float32 logits, the Flax loop builds its layers with
  ``dtype=bfloat16`` (float32 parameters), as Flax's mixed precision does; the torchax loop runs the forward pass on
  bfloat16 copies of the float32 weights, as ``minimal_loops.minimal_torchax`` does (LayerNorm and softmax then
  compute in bfloat16 where fwbench's autocast keeps them in float32).

Each builder takes (tokens, targets) as NumPy (steps, batch, context) int32, the mode, the precision policy, where
the framework lets it choose the device, and the ``GPTConfig``, and returns (step(i) running the i-th batch, sync),
as ``minimal_loops``' builders do.
"""

from __future__ import annotations

import numpy as np

from benchmarks.minimal_loops import device_loop, nnx_train_step, torchax_loop, training_device

#: nanoGPT's optimizer for a model this size, as ``runners.workloads.gpt.recipe`` takes it: peak rate, Adam's
#: second-moment decay, decoupled weight decay, the largest global gradient norm
LR, BETA2, WEIGHT_DECAY, CLIP_NORM = 1e-3, 0.99, 0.1, 1.0
#: the MLP's hidden width over the model's width, and every LayerNorm's epsilon (GPT-2's)
MLP_RATIO, LN_EPSILON = 4, 1e-5


def nanogpt_optimizer(decayed):
    """optax's AdamW after a global-norm clip, decaying the parameters ``decayed`` (a pytree of bools) names."""
    import optax

    return optax.chain(
        optax.clip_by_global_norm(CLIP_NORM),
        optax.adamw(LR, b2=BETA2, weight_decay=WEIGHT_DECAY, mask=decayed),
    )


def minimal_jax_gpt(tokens, targets, mode, precision="fp32", device="auto", config=None):
    """Flax NNX: ``nnx.Embed`` (its ``attend`` the tied head), ``nnx.LayerNorm`` and ``nnx.Linear`` layers,
    ``jax.nn.dot_product_attention(is_causal=True)``, and the step of Flax's performance guide: ``nnx.split`` once,
    one ``jax.jit`` of a pure function of the state, donated."""
    import jax
    import jax.numpy as jnp
    from flax import nnx

    target = training_device(device, precision)
    dtype = jnp.bfloat16 if precision == "bf16" else None  # Flax's mixed precision: float32 parameters
    width, heads = config.width, config.heads

    def dense(n_in, n_out, rngs):
        return nnx.Linear(n_in, n_out, dtype=dtype, rngs=rngs)

    def layer_norm(rngs):
        return nnx.LayerNorm(width, epsilon=LN_EPSILON, dtype=dtype, rngs=rngs)

    class Block(nnx.Module):
        def __init__(self, rngs):
            self.ln1, self.qkv, self.proj = layer_norm(rngs), dense(width, 3 * width, rngs), dense(width, width, rngs)
            self.ln2 = layer_norm(rngs)
            self.fc, self.out = dense(width, MLP_RATIO * width, rngs), dense(MLP_RATIO * width, width, rngs)

        def __call__(self, x):
            batch, context, _ = x.shape
            q, k, v = (t.reshape(batch, context, heads, -1) for t in jnp.split(self.qkv(self.ln1(x)), 3, axis=-1))
            x = x + self.proj(jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(batch, context, width))
            return x + self.out(nnx.gelu(self.fc(self.ln2(x)), approximate=True))

    class GPT(nnx.Module):
        def __init__(self, rngs):
            self.wte = nnx.Embed(config.vocab, width, dtype=dtype, rngs=rngs)
            self.wpe = nnx.Embed(config.context, width, dtype=dtype, rngs=rngs)
            self.blocks = nnx.List([Block(rngs) for _ in range(config.layers)])
            self.ln_f = layer_norm(rngs)

        def __call__(self, tokens):
            x = self.wte(tokens) + self.wpe(jnp.arange(tokens.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.wte.attend(self.ln_f(x))

    def kernels(params):
        return jax.tree_util.tree_map_with_path(lambda path, _: "kernel" in jax.tree_util.keystr(path), params)

    with jax.default_device(target):
        model = GPT(nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, nanogpt_optimizer(kernels), wrt=nnx.Param)
    graphdef, state = nnx.split((model, optimizer))

    return device_loop(nnx_train_step(graphdef), state, tokens, targets, target)


def torch_gpt(config):
    """nanoGPT's model as ``torch.nn`` modules (``F.scaled_dot_product_attention(is_causal=True)``, the head tied
    to the token embedding), without dropout."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    width, heads = config.width, config.heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width, eps=LN_EPSILON), nn.LayerNorm(width, eps=LN_EPSILON)
            self.c_attn, self.c_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.c_fc, self.mlp_proj = nn.Linear(width, MLP_RATIO * width), nn.Linear(MLP_RATIO * width, width)

        def forward(self, x):
            batch, context, _ = x.shape
            q, k, v = (
                t.view(batch, context, heads, -1).transpose(1, 2) for t in self.c_attn(self.ln_1(x)).split(width, 2)
            )
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(batch, context, width))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(config.vocab, width), nn.Embedding(config.context, width)
            self.h = nn.ModuleList([Block() for _ in range(config.layers)])
            self.ln_f = nn.LayerNorm(width, eps=LN_EPSILON)

        def forward(self, tokens):
            x = self.wte(tokens) + self.wpe(torch.arange(tokens.shape[1], device=tokens.device))
            for block in self.h:
                x = block(x)
            return F.linear(self.ln_f(x), self.wte.weight)  # the tied head

    return GPT()


def minimal_torch_gpt(tokens, targets, mode, precision="fp32", config=None):
    """PyTorch, as nanoGPT's ``train.py`` trains: its model (``torch_gpt``), ``torch.optim.AdamW`` decaying the
    linear layers' weights, ``clip_grad_norm_``, ``torch.compile(model)``; under ``bf16`` the forward pass and the
    loss under ``torch.autocast``."""
    import torch
    import torch.nn.functional as F

    if precision == "fp32":  # true float32, as fwbench's policy
        torch.backends.cuda.matmul.allow_tf32 = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch_gpt(config).to(device)
    kernels = {layer.weight for layer in model.modules() if isinstance(layer, torch.nn.Linear)}
    groups = [
        {"params": [p for p in model.parameters() if p in kernels], "weight_decay": WEIGHT_DECAY},
        {"params": [p for p in model.parameters() if p not in kernels], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=LR, betas=(0.9, BETA2))
    forward = torch.compile(model) if mode == "compiled" else model
    xs, ys = torch.from_numpy(tokens).long().to(device), torch.from_numpy(targets).long().to(device)

    def step(i):
        with torch.autocast(device, dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = F.cross_entropy(forward(xs[i]).flatten(0, 1), ys[i].flatten())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    return step, (torch.cuda.synchronize if device == "cuda" else lambda: None)


def minimal_keras_gpt(tokens, targets, mode, precision="fp32", config=None):
    """Keras 3: nanoGPT's model as Keras layers (``keras.ops.dot_product_attention(is_causal=True)``, the head tied
    to the token embedding), ``keras.optimizers.AdamW`` with ``global_clipnorm``, decaying the dense kernels, and the
    custom step of Keras' "training loop from scratch" guide under ``tf.function(jit_compile=True)``; under ``bf16``
    the model built under the ``mixed_bfloat16`` policy, its logits float32, as Keras' mixed precision guide does."""
    import keras
    import tensorflow as tf
    from keras import layers, ops

    if precision == "fp32":  # true float32, as fwbench's policy
        tf.config.experimental.enable_tensor_float_32_execution(False)
    keras.mixed_precision.set_global_policy("mixed_bfloat16" if precision == "bf16" else "float32")
    width, heads = config.width, config.heads

    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = (
                layers.LayerNormalization(epsilon=LN_EPSILON),
                layers.LayerNormalization(epsilon=LN_EPSILON),
            )
            self.c_attn, self.c_proj = layers.Dense(3 * width), layers.Dense(width)
            self.c_fc, self.mlp_proj = layers.Dense(MLP_RATIO * width), layers.Dense(width)

        def call(self, x):
            batch, context = ops.shape(x)[0], ops.shape(x)[1]
            q, k, v = (ops.reshape(t, (batch, context, heads, -1)) for t in ops.split(self.c_attn(self.ln_1(x)), 3, -1))
            y = ops.dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(ops.reshape(y, (batch, context, width)))
            return x + self.mlp_proj(keras.activations.gelu(self.c_fc(self.ln_2(x)), approximate=True))

    class GPT(keras.Model):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = layers.Embedding(config.vocab, width), layers.Embedding(config.context, width)
            self.h = [Block() for _ in range(config.layers)]
            self.ln_f = layers.LayerNormalization(epsilon=LN_EPSILON)

        def call(self, tokens):
            x = self.wte(tokens) + self.wpe(ops.arange(ops.shape(tokens)[1]))
            for block in self.h:
                x = block(x)
            x = self.ln_f(x)
            head = ops.cast(self.wte.embeddings, x.dtype)  # the tied head
            return ops.cast(ops.matmul(x, ops.transpose(head)), "float32")  # the guide's float32 output

    model = GPT()
    model(tokens[0])  # builds the variables
    keras.mixed_precision.set_global_policy("float32")  # the layers keep the policy they were built under
    optimizer = keras.optimizers.AdamW(LR, beta_2=BETA2, weight_decay=WEIGHT_DECAY, global_clipnorm=CLIP_NORM)
    optimizer.exclude_from_weight_decay(var_names=["bias", "gamma", "beta", "embeddings"])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(jit_compile=mode == "compiled")
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    batches = [(tf.constant(x), tf.constant(y)) for x, y in zip(tokens, targets, strict=True)]
    return (lambda i: train_step(*batches[i])), lambda: model.trainable_variables[-1].numpy()


def minimal_torchax_gpt(tokens, targets, mode, precision="fp32", device="auto", config=None):
    """PyTorch via torchax, as torchax's README trains a module: nanoGPT's model (``torch_gpt``), its weights as JAX
    arrays, torchax's ``train.make_train_step`` over optax's clipped AdamW, one ``jax.jit`` with the state donated;
    under ``bf16`` the forward pass runs on bfloat16 copies of the float32 weights."""
    import jax
    import torch
    import torch.nn.functional as F

    from runners.frameworks.torchax.shim import torchax_environment

    env = torchax_environment()  # imports torchax, through the shim where this PyTorch lacks an operator it names
    from torchax.interop import JittableModule

    target = training_device(device, precision)
    model = torch_gpt(config)
    module = JittableModule(model)
    weights = {k: jax.device_put(v.detach().numpy(), target) for k, v in module.params.items()}
    kernels = {f"{name}.weight" for name, layer in model.named_modules() if isinstance(layer, torch.nn.Linear)}
    decayed = {name: name in kernels for name in weights}

    def model_fn(weights, buffers, x):
        low = {k: w.to(torch.bfloat16) for k, w in weights.items()} if precision == "bf16" else weights
        return module.functional_call("forward", low, buffers, x)

    def loss_fn(logits, y):
        return F.cross_entropy(logits.float().flatten(0, 1), y.flatten())

    loop = (weights, dict(module.buffers))
    return torchax_loop(env, loop, model_fn, loss_fn, nanogpt_optimizer(decayed), (tokens, targets), target)


def token_batches(config, batch_size: int, steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` batches of random token sequences and their next tokens, (steps, batch, context) int32: speed does
    not depend on which tokens they are."""
    stream = np.random.default_rng(seed).integers(0, config.vocab, (steps, batch_size, config.context + 1))
    stream = stream.astype(np.int32)
    return stream[..., :-1], stream[..., 1:]
