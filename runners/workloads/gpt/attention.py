"""The GPT's attention paths: a configuration's choice (``RunConfig.attention``), imported by no framework.

``written-out``: q·kᵀ/√d, the causal mask and a softmax in at least float32, the same operations in every framework
(the parity reference). ``fused``: each framework's own attention, as its users call it today:
``torch.nn.functional.scaled_dot_product_attention(is_causal=True)`` (PyTorch, and PyTorch via torchax),
``keras.ops.dot_product_attention(is_causal=True)``, ``jax.nn.dot_product_attention(is_causal=True)``.
``pallas-flash``: JAX's Pallas flash-attention kernel for TPUs, which JAX alone has.

A configuration that names no path takes its precision's (``default_path``): the written-out attention under fp32,
the fused one under every other policy, as every record made before the path was a choice did.
"""

from __future__ import annotations

from runners.frameworks.precision import REFERENCE_PRECISION

WRITTEN_OUT = "written-out"
FUSED = "fused"
PALLAS_FLASH = "pallas-flash"
#: the written-out path as every framework's precision flags name it (the fused calls are each framework's own)
WRITTEN_OUT_CALL = "written out: q·kᵀ/√d, the causal mask, softmax in at least float32"
#: each path → the frameworks whose GPT builds it (None: every framework's)
PATHS: dict[str, tuple[str, ...] | None] = {WRITTEN_OUT: None, FUSED: None, PALLAS_FLASH: ("jax",)}


def default_path(precision: str) -> str:
    """The path of a configuration that names none: written out under the reference precision, fused otherwise."""
    return WRITTEN_OUT if precision == REFERENCE_PRECISION else FUSED


def check(path: str, framework: str) -> None:
    """ValueError unless ``framework``'s GPT builds attention ``path``."""
    if path not in PATHS:
        raise ValueError(f"attention {path!r}: choose from {', '.join(PATHS)}")
    builders = PATHS[path]
    if builders is not None and framework not in builders:
        raise ValueError(f"attention {path!r}: only {', '.join(builders)} builds it, not {framework}")
