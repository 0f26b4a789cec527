"""Minimal GPT training loops written as each framework's own examples write them: the references
``benchmarks/idiomatic_loop.py --workload gpt`` measures fwbench's GPT trainers against (as ``minimal_loops`` does
for ResNet-18).

Their own code, not fwbench's: a nanoGPT-shaped decoder (pre-LayerNorm blocks, one fused q|k|v projection, a GELU
MLP four times as wide, the head tied to the token embedding, no dropout) at the sizes of
``runners.workloads.gpt.arch`` (``GPTConfig``), each framework's fused attention (``jax.nn.dot_product_attention``,
``torch.nn.functional.scaled_dot_product_attention``, both causal), the framework's default initialisation, and
nanoGPT's optimizer as optax spells it: the gradients clipped to a global norm of 1, then AdamW (β₂ 0.99, decay 0.1
on the dense kernels only). What differs from fwbench's trainers, and what it costs:

- **Bookkeeping.** fwbench's step also counts the tokens predicted right (an argmax over batch × context × vocab
  logits) and takes its learning rate as an input; here the rate is a constant.
- **Precision.** Under ``bf16`` the Flax loop builds its layers with ``dtype=bfloat16`` (float32 parameters), as
  Flax's mixed precision does; the torchax loop runs the forward pass on bfloat16 copies of the float32 weights, as
  ``minimal_loops.minimal_torchax`` does (LayerNorm and softmax then compute in bfloat16 where fwbench's autocast
  keeps them in float32).

Each builder takes (tokens, targets) as NumPy (steps, batch, context) int32, the mode, the precision policy, the
device and the ``GPTConfig``, and returns (step(i) running the i-th batch, sync), as ``minimal_loops``' builders do.
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
