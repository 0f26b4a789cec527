"""The GPT-style decoder-only language model as framework-neutral data: sizes, parameters, FLOPs, initial weights.

The architecture only; how it is trained (AdamW, schedule, clipping, batch) is ``recipe``. The network: learned token
and position embeddings, ``layers`` pre-LayerNorm blocks (x + attn(ln1(x)), then x + mlp(ln2(x))) with causal
multi-head self-attention (written out, softmax in at least float32, or each framework's own attention: ``attention``)
and a GELU MLP of four times the width, a final LayerNorm, and a head tied to the token embedding (logits = h · wteᵀ,
no bias). No dropout: a step is a deterministic function of the weights and the batch in every framework.

Named sizes (``SIZES``; a profile's ``size``): the benchmark's byte model (vocabulary 256, no tokenizer), and GPT-2
small's shape, whose 50,257-entry vocabulary is kept (a synthetic token stream: ``data``) since its embedding and
tied softmax are 31 % of the parameters and 27 % of the forward FLOPs, and its logits the largest activation.

FLOPs per token, forward (``flops_per_token``): 2·N + 4·L·T·d, with N the parameters but the position embedding (a
lookup), L the layers, T the context and d the width; 4·L·T·d is attention's two matmuls (q·kᵀ and the weighted sum
of v) over the full context, causal mask or not, as PaLM's MFU counts them (Chowdhery et al. 2022, appendix B). A
training step is three times that: 6·N + 12·L·T·d per token; MFU = that × tokens/s ÷ the device's peak. GPT-2 small:
2 × 123,653,376 + 4 × 12 × 1,024 × 768 = 285,055,488 FLOPs per token forward, attention's share 13 %.

Every framework loads the same NumPy weights, stored under canonical names in one layout:

* embeddings ``wte.embedding`` (vocab, width) and ``wpe.embedding`` (context, width);
* LayerNorms ``<name>.scale``, ``<name>.bias`` (width);
* dense layers ``<name>.kernel`` as (in, out) and ``<name>.bias`` (out). ``attn.qkv`` holds the query, key and
  value projections side by side along its output axis (q | k | v), each split into heads as consecutive
  slices of ``width // heads``: GPT-2's ``c_attn`` layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: bytes: every token is one byte of the text, so no tokenizer is needed
VOCAB = 256
#: GPT-2's BPE vocabulary (Radford et al. 2019): GPT-2 small's size keeps its embedding and softmax at full width
GPT2_VOCAB = 50_257
#: added to the variance in every LayerNorm; PyTorch's default (Keras' is 1e-3 and Flax's 1e-6: set explicitly)
LN_EPSILON = 1e-5
#: GPT-2's init: every embedding and dense kernel from N(0, 0.02²), biases zero, LayerNorms the identity
INIT_STD = 0.02


@dataclass(frozen=True)
class GPTConfig:
    """The sizes of one GPT: ``layers`` blocks of ``width`` channels in ``heads`` heads, ``context`` tokens."""

    layers: int = 6
    width: int = 384
    heads: int = 6
    context: int = 256
    vocab: int = VOCAB

    def __post_init__(self):
        if self.width % self.heads:
            raise ValueError(f"width {self.width} does not split into {self.heads} heads")

    @property
    def head_width(self) -> int:
        return self.width // self.heads


#: the benchmark's model: nanoGPT's character-level Shakespeare configuration (6 layers, 384 wide, 6 heads,
#: 256 tokens of context), small enough for a CPU quick run and a GPU run alike
DEFAULT = GPTConfig()
#: GPT-2 small's shape: 12 layers, 768 wide, 12 heads, 1,024 tokens of context, GPT-2's vocabulary; 124,439,808
#: parameters with the head tied (GPT-2's "124M")
GPT2_SMALL = GPTConfig(layers=12, width=768, heads=12, context=1024, vocab=GPT2_VOCAB)
#: the parity tests' and smoke tests' model: every part of the default one, small enough for seconds on 2 cores
TINY = GPTConfig(layers=2, width=64, heads=4, context=32)
#: GPT-2 small's vocabulary in a model a CPU trains in seconds, its context the shortest the Pallas flash kernel
#: takes (its key blocks are multiples of 128 tokens): the tests' stand-in for GPT-2 small
GPT2_TINY = GPTConfig(layers=2, width=64, heads=4, context=128, vocab=GPT2_VOCAB)
#: the sizes a configuration may name (``RunConfig.size``): the record's ``model.name`` is ``gpt-<name>``
SIZES = {"bytes-6x384": DEFAULT, "gpt2-small": GPT2_SMALL, "gpt2-tiny": GPT2_TINY}


def block_prefix(block: int) -> str:
    """Canonical prefix of one transformer block, e.g. ``blocks.1``."""
    return f"blocks.{block}"


#: the MLP's hidden width over the model's width (GPT-2's)
MLP_RATIO = 4
#: the dense layers whose output is added to the residual stream: GPT-2 scales their init by 1/√(2·layers)
RESIDUAL_PROJECTIONS = ("attn.proj", "mlp.proj")


def param_shapes(config: GPTConfig = DEFAULT) -> dict[str, tuple[int, ...]]:
    """Every trainable parameter's canonical name and shape, in forward order."""
    d, hidden = config.width, MLP_RATIO * config.width
    shapes: dict[str, tuple[int, ...]] = {"wte.embedding": (config.vocab, d), "wpe.embedding": (config.context, d)}
    for b in range(config.layers):
        p = block_prefix(b)
        shapes.update(
            {
                f"{p}.ln1.scale": (d,),
                f"{p}.ln1.bias": (d,),
                f"{p}.attn.qkv.kernel": (d, 3 * d),  # q | k | v
                f"{p}.attn.qkv.bias": (3 * d,),
                f"{p}.attn.proj.kernel": (d, d),
                f"{p}.attn.proj.bias": (d,),
                f"{p}.ln2.scale": (d,),
                f"{p}.ln2.bias": (d,),
                f"{p}.mlp.fc.kernel": (d, hidden),
                f"{p}.mlp.fc.bias": (hidden,),
                f"{p}.mlp.proj.kernel": (hidden, d),
                f"{p}.mlp.proj.bias": (d,),
            }
        )
    shapes.update({"ln_f.scale": (d,), "ln_f.bias": (d,)})
    return shapes


def weight_names(config: GPTConfig = DEFAULT) -> list[str]:
    """Canonical names of all weights, in forward order (all are trainable: the model keeps no statistics)."""
    return list(param_shapes(config))


def layer_kind(layer: str) -> str:
    """``embedding``, ``ln`` or ``dense`` for a canonical layer name such as ``blocks.0.ln2``."""
    last = layer.rpartition(".")[2]
    return "embedding" if layer in ("wte", "wpe") else "ln" if last.startswith("ln") else "dense"


def is_decayed(name: str) -> bool:
    """Whether AdamW's weight decay applies to a parameter: the dense kernels only, not biases, LayerNorms or
    embeddings (minGPT's ``configure_optimizers`` rule). The tied embedding is also the head, but decaying it
    would shrink the input lookup too; the same rule in all three frameworks."""
    return name.endswith(".kernel")


def trainable_param_count(config: GPTConfig = DEFAULT) -> int:
    """Trainable parameters from the parameter list; the head is the token embedding, counted once."""
    return sum(math.prod(shape) for shape in param_shapes(config).values())


def flops_params(config: GPTConfig = DEFAULT) -> int:
    """The N of the 6·N rule: every parameter but the position embedding, a lookup that costs no multiply (nanoGPT's
    ``estimate_mfu``). The token embedding stays in: it is the tied head's (width × vocab) matmul."""
    return trainable_param_count(config) - config.context * config.width


def flops_per_token(config: GPTConfig = DEFAULT) -> int:
    """Forward FLOPs per token: 2·N (a multiply-add per parameter) plus attention's two matmuls, q·kᵀ and the
    weighted sum of v, 2·2·context·width per layer. Counted over the full context, causal mask or not, as PaLM's
    MFU (Chowdhery et al. 2022, appendix B) counts it. A training step costs three times this: 6·N + 12·L·T·d."""
    return 2 * flops_params(config) + 4 * config.layers * config.context * config.width


def init_weights(seed: int, config: GPTConfig = DEFAULT, random_affine: bool = False) -> dict[str, np.ndarray]:
    """Initial weights in the canonical layout, GPT-2's init: N(0, 0.02²) embeddings and kernels, the residual
    projections' kernels scaled by 1/√(2·layers), zero biases, identity LayerNorms (float32).

    ``random_affine`` also randomises every bias and LayerNorm, which makes parity tests sensitive to each of them
    instead of the zero and identity defaults.
    """
    rng = np.random.default_rng(seed)
    weights: dict[str, np.ndarray] = {}
    for name, shape in param_shapes(config).items():
        field = name.rpartition(".")[2]
        if field in ("embedding", "kernel"):
            std = INIT_STD / math.sqrt(2 * config.layers) if name.endswith(_residual_kernels()) else INIT_STD
            value = rng.normal(0.0, std, shape)
        elif field == "scale":
            value = rng.uniform(0.5, 1.5, shape) if random_affine else np.ones(shape)
        else:
            value = rng.normal(0.0, INIT_STD, shape) if random_affine else np.zeros(shape)
        weights[name] = value.astype(np.float32)
    return weights


def _residual_kernels() -> tuple[str, ...]:
    return tuple(f"{layer}.kernel" for layer in RESIDUAL_PROJECTIONS)
