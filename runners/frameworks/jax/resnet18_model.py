"""CIFAR ResNet-18 in Flax NNX (NHWC), with weight import/export in the canonical layout.

Every convolution and the classifier take the ``dtype`` they compute in (None: their inputs' and parameters' dtype;
bfloat16 for mixed precision, as Flax documents it) and keep their parameters in float32 (``param_dtype``). The batch
norms compute in float32 and return their input's dtype (``BatchNorm``), as Flax linen's mixed precision and
PyTorch's kernels do.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import nnx

from runners.workloads.resnet18 import arch, recipe

# Version shim (drop with Flax < 0.12, i.e. the sets of JAX 0.5-0.7 that fwbench/version_sets.json's template
# resolves): Flax 0.10-0.11 have no ``nnx.List``, and there a plain list of modules is already part of the graph.
ModuleList = getattr(nnx, "List", list)


class BatchNorm(nnx.BatchNorm):
    """Flax NNX's BatchNorm (float32 parameters and statistics) computing in float32 and returning its input's dtype,
    as Flax linen's batch norm does under mixed precision.

    NNX's own with ``dtype=bfloat16`` casts its float32 scale and bias to bfloat16 for the forward pass; on a TPU v5e
    the compiled bf16 step then holds 14 bfloat16 reductions over activations (their gradients) apart from the
    float32 reductions of the statistics' gradients, which linen's step computes in the same pass, and that step ran
    at 0.955 of linen's speed at batch 256 (``benchmarks/idiomatic_loop.py``)."""

    def __call__(self, x, *args, **kwargs):
        return super().__call__(x, *args, **kwargs).astype(x.dtype)


def conv_bn(cin: int, cout: int, kernel: int, stride: int, rngs: nnx.Rngs, dtype=None) -> tuple[nnx.Conv, BatchNorm]:
    pad = recipe.conv_padding(kernel)  # explicit symmetric padding: Flax 'SAME' pads (0, 1) at stride 2
    kinds = {"dtype": dtype, "param_dtype": jnp.float32, "rngs": rngs}
    conv = nnx.Conv(
        cin, cout, (kernel, kernel), strides=stride, padding=((pad, pad), (pad, pad)), use_bias=False, **kinds
    )
    norm = BatchNorm(cout, momentum=recipe.BN_DECAY, epsilon=recipe.BN_EPSILON, param_dtype=jnp.float32, rngs=rngs)
    return conv, norm


class ConvBN(nnx.Module):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int, rngs: nnx.Rngs, dtype=None):
        self.conv, self.bn = conv_bn(cin, cout, kernel, stride, rngs, dtype)

    def __call__(self, x):
        return self.bn(self.conv(x))


class BasicBlock(nnx.Module):
    def __init__(self, cin: int, cout: int, stride: int, rngs: nnx.Rngs, dtype=None):
        self.conv1, self.bn1 = conv_bn(cin, cout, 3, stride, rngs, dtype)
        self.conv2, self.bn2 = conv_bn(cout, cout, 3, 1, rngs, dtype)
        self.shortcut = ConvBN(cin, cout, 1, stride, rngs, dtype) if stride != 1 or cin != cout else None

    def __call__(self, x):
        out = nnx.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return nnx.relu(out + (x if self.shortcut is None else self.shortcut(x)))


class ResNet18(nnx.Module):
    def __init__(self, rngs: nnx.Rngs, dtype=None):
        self.stem = ConvBN(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1, rngs, dtype)
        cin = arch.STEM_WIDTH
        for s, (width, stride) in enumerate(arch.STAGES):
            blocks = [
                BasicBlock(cin if b == 0 else width, width, stride if b == 0 else 1, rngs, dtype)
                for b in range(arch.BLOCKS_PER_STAGE)
            ]
            setattr(self, f"layer{s + 1}", ModuleList(blocks))
            cin = width
        self.fc = nnx.Linear(arch.final_width(), arch.NUM_CLASSES, dtype=dtype, param_dtype=jnp.float32, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.stem(x))
        for s in range(len(arch.STAGES)):
            for block in getattr(self, f"layer{s + 1}"):
                x = block(x)
        return self.fc(jnp.mean(x, axis=(1, 2)))  # global average pool over H, W


# layer kind → canonical field → Flax variable attribute (Flax already uses HWIO and (in, out))
LAYOUT = {
    "conv": {"kernel": "kernel"},
    "bn": {"scale": "scale", "bias": "bias", "mean": "mean", "var": "var"},
    "fc": {"kernel": "kernel", "bias": "bias"},
}


def _variable(model: ResNet18, key: str) -> nnx.Variable:
    layer, _, field = key.rpartition(".")
    module = model
    for part in layer.split("."):
        module = module[int(part)] if part.isdigit() else getattr(module, part)
    return getattr(module, LAYOUT[arch.layer_kind(layer)][field])


def load_weights(model: ResNet18, weights: dict[str, np.ndarray]) -> None:
    """Set the model's variables from canonical NumPy weights."""
    for key, value in weights.items():
        _variable(model, key).value = jnp.asarray(value)


def export_weights(model: ResNet18) -> dict[str, np.ndarray]:
    """The model's weights and BN statistics in the canonical layout."""
    return {key: np.asarray(_variable(model, key).value) for key in arch.weight_names()}
