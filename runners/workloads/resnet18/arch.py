"""The CIFAR ResNet-18 as framework-neutral data: layer list, parameter count, FLOPs and initial weights.

The architecture only; how it is trained (optimizer, BatchNorm, padding, data) is ``runners.workloads.resnet18.recipe``.
Every framework builds its model from the same constants and loads the same NumPy weights, stored under canonical names
in one canonical layout:

* conv kernels ``HWIO`` (``name.kernel``), no conv bias (BatchNorm follows every conv);
* BatchNorm ``name.scale``, ``name.bias``, ``name.mean``, ``name.var``;
* the classifier ``fc.kernel`` as ``(in, out)`` and ``fc.bias``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runners.workloads.resnet18.recipe import conv_padding

IMAGE_SIZE = 32
IMAGE_CHANNELS = 3
NUM_CLASSES = 10
STEM_WIDTH = 64
#: (width, first block's stride) of the four stages; two BasicBlocks each
STAGES = ((64, 1), (128, 2), (256, 2), (512, 2))
BLOCKS_PER_STAGE = 2


@dataclass(frozen=True)
class Conv:
    """A bias-free square convolution with explicit symmetric padding (``recipe.conv_padding``)."""

    name: str
    cin: int
    cout: int
    kernel: int
    stride: int
    in_size: int  # input height = width

    @property
    def out_size(self) -> int:
        return (self.in_size + 2 * conv_padding(self.kernel) - self.kernel) // self.stride + 1


def block_names(stage: int, block: int) -> str:
    """Canonical prefix of a BasicBlock, e.g. ``layer2.0``."""
    return f"layer{stage + 1}.{block}"


def convs() -> list[Conv]:
    """Every convolution of the network in forward order; each is followed by a BatchNorm of the same name."""
    layers = [Conv("stem.conv", IMAGE_CHANNELS, STEM_WIDTH, 3, 1, IMAGE_SIZE)]
    cin, size = STEM_WIDTH, IMAGE_SIZE
    for s, (width, first_stride) in enumerate(STAGES):
        for b in range(BLOCKS_PER_STAGE):
            stride = first_stride if b == 0 else 1
            prefix = block_names(s, b)
            conv1 = Conv(f"{prefix}.conv1", cin, width, 3, stride, size)
            layers += [conv1, Conv(f"{prefix}.conv2", width, width, 3, 1, conv1.out_size)]
            if stride != 1 or cin != width:
                layers.append(Conv(f"{prefix}.shortcut.conv", cin, width, 1, stride, size))
            cin, size = width, conv1.out_size
    return layers


def bn_name(conv_name: str) -> str:
    """The BatchNorm that follows a conv: ``x.conv1`` → ``x.bn1``, ``stem.conv`` → ``stem.bn``."""
    head, _, last = conv_name.rpartition(".")
    return f"{head}.{last.replace('conv', 'bn')}"


def final_width() -> int:
    return STAGES[-1][0]


def trainable_param_count() -> int:
    """Trainable parameters computed from the layer list: conv kernels, BN scale/bias, classifier."""
    total = sum(c.kernel * c.kernel * c.cin * c.cout + 2 * c.cout for c in convs())
    return total + final_width() * NUM_CLASSES + NUM_CLASSES


def macs_per_image() -> int:
    """Multiply-accumulates of one forward pass (convolutions and the classifier), from the layer list."""
    conv_macs = sum(c.out_size**2 * c.kernel**2 * c.cin * c.cout for c in convs())
    return conv_macs + final_width() * NUM_CLASSES


def flops_per_image() -> int:
    """Forward FLOPs per image (2 per MAC); a training step costs about three times this."""
    return 2 * macs_per_image()


def bn_reduction_sizes(batch_size: int) -> dict[str, int]:
    """Values each BatchNorm averages over in training (batch × height × width), by BN name."""
    return {bn_name(c.name): batch_size * c.out_size**2 for c in convs()}


def init_weights(seed: int, random_bn: bool = False) -> dict[str, np.ndarray]:
    """Initial weights in the canonical layout: He-normal convs, PyTorch's default uniform classifier.

    ``random_bn`` also randomises BN scale/bias/statistics, which makes parity tests sensitive to
    every BN parameter instead of the identity defaults.
    """
    rng = np.random.default_rng(seed)
    weights: dict[str, np.ndarray] = {}
    for c in convs():
        fan_out = c.kernel * c.kernel * c.cout
        weights[f"{c.name}.kernel"] = rng.normal(
            0.0, np.sqrt(2.0 / fan_out), (c.kernel, c.kernel, c.cin, c.cout)
        ).astype(np.float32)
        bn = bn_name(c.name)
        if random_bn:
            weights[f"{bn}.scale"] = rng.uniform(0.5, 1.5, c.cout).astype(np.float32)
            weights[f"{bn}.bias"] = rng.normal(0.0, 0.1, c.cout).astype(np.float32)
            weights[f"{bn}.mean"] = rng.normal(0.0, 0.1, c.cout).astype(np.float32)
            weights[f"{bn}.var"] = rng.uniform(0.5, 1.5, c.cout).astype(np.float32)
        else:
            weights[f"{bn}.scale"] = np.ones(c.cout, np.float32)
            weights[f"{bn}.bias"] = np.zeros(c.cout, np.float32)
            weights[f"{bn}.mean"] = np.zeros(c.cout, np.float32)
            weights[f"{bn}.var"] = np.ones(c.cout, np.float32)
    bound = 1.0 / np.sqrt(final_width())
    weights["fc.kernel"] = rng.uniform(-bound, bound, (final_width(), NUM_CLASSES)).astype(np.float32)
    weights["fc.bias"] = rng.uniform(-bound, bound, NUM_CLASSES).astype(np.float32)
    return weights


def weight_names() -> list[str]:
    """Canonical names of all weights and BN statistics, in forward order."""
    names = []
    for c in convs():
        names.append(f"{c.name}.kernel")
        names += [f"{bn_name(c.name)}.{field}" for field in ("scale", "bias", "mean", "var")]
    return [*names, "fc.kernel", "fc.bias"]


def layer_kind(layer: str) -> str:
    """``conv``, ``bn`` or ``fc`` for a canonical layer name such as ``layer1.0.bn2``."""
    last = layer.rpartition(".")[2]
    return "fc" if layer == "fc" else "bn" if last.startswith("bn") else "conv"


def is_trainable(name: str) -> bool:
    """Running BN statistics are state, not parameters."""
    return not name.endswith((".mean", ".var"))
