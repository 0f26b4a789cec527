"""The GPT in PyTorch and its trainer: torch.optim.AdamW after a global-norm clip written out.

``torch.nn.utils.clip_grad_norm_`` divides by ‖g‖ + 1e-6, the other two frameworks by ‖g‖ (``recipe``), so the clip
is spelled out with ``get_total_norm``; the AdamW update is PyTorch's own. Compiled mode compiles the model
(``torch.compile(model)``), as the ResNet-18 trainer does; the optimizer step stays eager. The attention is a
configuration's choice (``attention``): written out, the same matmuls, mask and softmax as in the other frameworks,
or ``scaled_dot_product_attention(is_causal=True)``. bf16 is PyTorch's autocast around the forward pass: the dense
layers, the attention and the tied head in bfloat16, embeddings, LayerNorms and the residual stream float32.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from runners.frameworks.torch import resnet18
from runners.workloads.gpt import arch, recipe
from runners.workloads.gpt.arch import GPTConfig
from runners.workloads.gpt.attention import FUSED, WRITTEN_OUT, WRITTEN_OUT_CALL, check, default_path

#: what each attention path calls, as the record's precision flags name it
ATTENTION_CALLS = {
    WRITTEN_OUT: WRITTEN_OUT_CALL,
    FUSED: "torch.nn.functional.scaled_dot_product_attention(is_causal=True)",
}


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig, attention: str):
        super().__init__()
        self.heads = config.heads
        self.attention = attention
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.proj = nn.Linear(config.width, config.width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        # (batch, length, width) → (batch, heads, length, head width), for q, k and v
        q, k, v = (t.reshape(batch, length, self.heads, -1).transpose(1, 2) for t in self.qkv(x).split(width, -1))
        if self.attention == FUSED:
            return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).flatten(2))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        position = torch.arange(length, device=x.device)
        scores = scores.masked_fill(position[None, :] > position[:, None], float("-inf"))  # no later key
        # the softmax in float32 at least (float64 stays); the dtype's own size, since torchax has no promote_types
        upcast = scores.dtype if scores.dtype.itemsize >= 4 else torch.float32
        attention = torch.softmax(scores.to(upcast), -1).to(v.dtype)
        return self.proj((attention @ v).transpose(1, 2).reshape(batch, length, width))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.fc = nn.Linear(config.width, arch.MLP_RATIO * config.width)
        self.proj = nn.Linear(arch.MLP_RATIO * config.width, config.width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, config: GPTConfig, attention: str):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.width, eps=arch.LN_EPSILON)
        self.attn = CausalSelfAttention(config, attention)
        self.ln2 = nn.LayerNorm(config.width, eps=arch.LN_EPSILON)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig, attention: str = WRITTEN_OUT):
        super().__init__()
        check(attention, "torch")
        self.wte = nn.Embedding(config.vocab, config.width)
        self.wpe = nn.Embedding(config.context, config.width)
        self.blocks = nn.Sequential(*(Block(config, attention) for _ in range(config.layers)))
        self.ln_f = nn.LayerNorm(config.width, eps=arch.LN_EPSILON)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        position = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.ln_f(self.blocks(self.wte(tokens) + self.wpe(position)))
        return x @ self.wte.weight.T  # the head tied to the token embedding


# layer kind → canonical field → (torch attribute, canonical → torch); every map is its own inverse
LAYOUT = {
    "embedding": {"embedding": ("weight", None)},
    "ln": {"scale": ("weight", None), "bias": ("bias", None)},
    "dense": {"kernel": ("weight", lambda w: w.T), "bias": ("bias", None)},  # (in, out) ↔ (out, in)
}


def parameter(model: GPT, key: str) -> tuple[nn.Parameter, callable]:
    layer, _, field = key.rpartition(".")
    name, convert = LAYOUT[arch.layer_kind(layer)][field]
    return model.get_submodule(layer).get_parameter(name), convert or (lambda w: w)


def load_weights(model: GPT, weights: dict[str, np.ndarray]) -> None:
    """Copy canonical NumPy weights into the model in place."""
    with torch.no_grad():
        for key, value in weights.items():
            tensor, convert = parameter(model, key)
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(convert(value))))


def export_weights(model: GPT, config: GPTConfig) -> dict[str, np.ndarray]:
    """The model's weights in the canonical layout."""
    weights = {}
    for key in arch.weight_names(config):
        tensor, convert = parameter(model, key)
        weights[key] = np.array(convert(tensor.detach().cpu().numpy()))  # a copy: .numpy() aliases
    return weights


class Trainer(resnet18.Trainer):
    """One GPT and its AdamW on one device (the protocol: ``runners.frameworks.trainer.Trainer``; ``x`` and ``y``
    are token sequences, ``correct`` counts the tokens predicted right). ``sync``, ``memory``, ``reset_memory_peaks``
    and ``device_info`` are ResNet-18's trainer's: they read ``self.device``, ``self.autocast`` and ``self.model``
    alone. ``attention`` is the path (None: the precision's, ``attention.default_path``)."""

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
        self.dtype = getattr(torch, dtype)  # float64 only for parity tests
        self.config = config
        # disabled but still entered outside bf16: one code path, and the state it reports is the one that ran
        self.autocast = torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=precision == "bf16")
        self.attention = attention or default_path(precision)
        self.model = GPT(config, self.attention).to(self.device, self.dtype)
        self.model.train()
        decayed = {key: arch.is_decayed(key) for key in arch.weight_names(config)}
        groups = [
            {"params": [parameter(self.model, k)[0] for k, d in decayed.items() if d == decay], "weight_decay": wd}
            for decay, wd in ((True, recipe.WEIGHT_DECAY), (False, 0.0))
        ]
        self.optimizer = torch.optim.AdamW(
            groups, lr=0.0, betas=(recipe.ADAM_BETA1, recipe.ADAM_BETA2), eps=recipe.ADAM_EPSILON
        )
        self.restore(weights)
        self.train_forward = torch.compile(self.model) if mode == "compiled" else self.model

    def _reset_optimizer(self) -> None:
        self.optimizer.state.clear()  # no moments, step count 0: the next step starts them from its gradients

    def to_device(self, tokens: np.ndarray, targets: np.ndarray) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per-step (tokens, targets) resident on the device, from arrays of shape (steps, batch, context)."""
        x = torch.from_numpy(tokens).long().to(self.device)
        y = torch.from_numpy(targets).long().to(self.device)
        return list(zip(x.unbind(0), y.unbind(0), strict=True))

    def train_step(self, x: torch.Tensor, y: torch.Tensor, lr: float) -> tuple[torch.Tensor, torch.Tensor]:
        """One clipped AdamW step at learning rate ``lr``; returns (loss, correct tokens) without syncing."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.optimizer.zero_grad(set_to_none=True)
        with self.autocast:
            logits = self.train_forward(x)
            # the loss in float32 (bf16: the tied head's logits come in bf16)
            loss = F.cross_entropy(logits.flatten(0, 1).to(self.dtype), y.flatten())
        loss.backward()
        grads = [p.grad for p in self.model.parameters()]
        scale = (recipe.CLIP_NORM / torch.nn.utils.get_total_norm(grads)).clamp(max=1.0)
        for grad in grads:
            grad.mul_(scale)
        self.optimizer.step()
        return loss.detach(), (logits.argmax(dim=-1) == y).sum()

    def logits(self, x: torch.Tensor, training: bool = False) -> np.ndarray:
        """Forward pass only, through the eager model; ``training`` changes nothing (no dropout, no statistics)."""
        with torch.no_grad(), self.autocast:
            return self.model(x).to(self.dtype).cpu().numpy()

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights."""
        return export_weights(self.model, self.config)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, weights)
        self._reset_optimizer()

    def precision_flags(self) -> dict:
        """ResNet-18's trainer's flags (TF32, matmul precision, autocast, the parameters' dtype) and what the
        attention calls."""
        return {**super().precision_flags(), "attention": ATTENTION_CALLS[self.attention]}
