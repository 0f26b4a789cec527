"""CIFAR ResNet-18 in Keras 3 on TensorFlow (NHWC), with weight import/export in the canonical layout."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

from runners.workloads.resnet18 import arch, recipe


class SymmetricConv2D(layers.Conv2D):
    """A bias-free convolution padded ``recipe.conv_padding`` on every side, as PyTorch pads.

    Keras' ``"same"`` is that padding at stride 1 (and for 1×1 kernels), and there the layer is a plain ``Conv2D``;
    at stride 2 ``"same"`` pads (0, 1), so the padding is passed to the convolution itself (``tf.nn.conv2d``'s
    explicit padding), where XLA sees one convolution. A pad op before a ``"valid"`` convolution would be the same
    network but not the same cost: its gradient is computed for the padded input and then cut, up to 2.25× the
    input-gradient work of a 4×4 layer (``benchmarks/idiomatic_loop.py``).
    """

    def __init__(self, cout: int, kernel: int, stride: int):
        super().__init__(cout, kernel, strides=stride, padding="same", use_bias=False)  # "same": the output shape
        self.pad = recipe.conv_padding(kernel)

    def convolution_op(self, inputs, kernel):
        if self.strides == (1, 1) or not self.pad:
            return super().convolution_op(inputs, kernel)
        p = self.pad
        return tf.nn.conv2d(inputs, kernel, self.strides, padding=[[0, 0], [p, p], [p, p], [0, 0]])


def conv_bn(cin: int, cout: int, kernel: int, stride: int) -> tuple[SymmetricConv2D, layers.BatchNormalization]:
    conv = SymmetricConv2D(cout, kernel, stride)  # cin is implied by the input in Keras
    return conv, layers.BatchNormalization(momentum=recipe.BN_DECAY, epsilon=recipe.BN_EPSILON)


class ConvBN(keras.layers.Layer):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int):
        super().__init__()
        self.conv, self.bn = conv_bn(cin, cout, kernel, stride)

    def call(self, x, training=False):
        return self.bn(self.conv(x), training=training)


class BasicBlock(keras.layers.Layer):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(cin, cout, 3, stride)
        self.conv2, self.bn2 = conv_bn(cout, cout, 3, 1)
        self.shortcut = ConvBN(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def call(self, x, training=False):
        out = ops.relu(self.bn1(self.conv1(x), training=training))
        out = self.bn2(self.conv2(out), training=training)
        return ops.relu(out + (x if self.shortcut is None else self.shortcut(x, training=training)))


class ResNet18(keras.Model):
    def __init__(self):
        super().__init__()
        self.stem = ConvBN(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1)
        cin = arch.STEM_WIDTH
        for s, (width, stride) in enumerate(arch.STAGES):
            blocks = [
                BasicBlock(cin if b == 0 else width, width, stride if b == 0 else 1)
                for b in range(arch.BLOCKS_PER_STAGE)
            ]
            setattr(self, f"layer{s + 1}", blocks)
            cin = width
        self.fc = layers.Dense(arch.NUM_CLASSES)

    def call(self, x, training=False):
        x = ops.relu(self.stem(x, training=training))
        for s in range(len(arch.STAGES)):
            for block in getattr(self, f"layer{s + 1}"):
                x = block(x, training=training)
        return self.fc(ops.mean(x, axis=(1, 2)))  # global average pool over H, W


# layer kind → canonical field → Keras variable attribute (Keras already uses HWIO and (in, out))
LAYOUT = {
    "conv": {"kernel": "kernel"},
    "bn": {"scale": "gamma", "bias": "beta", "mean": "moving_mean", "var": "moving_variance"},
    "fc": {"kernel": "kernel", "bias": "bias"},
}


def build(model: ResNet18) -> ResNet18:
    """Create the variables by tracing one dummy batch."""
    model(np.zeros((1, arch.IMAGE_SIZE, arch.IMAGE_SIZE, arch.IMAGE_CHANNELS), np.float32))
    return model


def _variable(model: ResNet18, key: str):
    layer, _, field = key.rpartition(".")
    module = model
    for part in layer.split("."):
        module = module[int(part)] if part.isdigit() else getattr(module, part)
    return getattr(module, LAYOUT[arch.layer_kind(layer)][field])


def load_weights(model: ResNet18, weights: dict[str, np.ndarray]) -> None:
    """Assign canonical NumPy weights to the (built) model's variables."""
    for key, value in weights.items():
        variable = _variable(model, key)
        variable.assign(value.astype(variable.dtype))


def export_weights(model: ResNet18) -> dict[str, np.ndarray]:
    """The model's weights and BN statistics in the canonical layout."""
    return {key: np.asarray(_variable(model, key).numpy()) for key in arch.weight_names()}
