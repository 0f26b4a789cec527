"""CIFAR ResNet-18 in PyTorch (NCHW), with weight import/export in the canonical layout."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from runners.workloads.resnet18 import arch, recipe


def conv_bn(cin: int, cout: int, kernel: int, stride: int) -> tuple[nn.Conv2d, nn.BatchNorm2d]:
    conv = nn.Conv2d(cin, cout, kernel, stride, padding=recipe.conv_padding(kernel), bias=False)
    return conv, nn.BatchNorm2d(cout, eps=recipe.BN_EPSILON, momentum=recipe.BN_MOMENTUM_TORCH)


class ConvBN(nn.Module):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int):
        super().__init__()
        self.conv, self.bn = conv_bn(cin, cout, kernel, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.conv(x))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(cin, cout, 3, stride)
        self.conv2, self.bn2 = conv_bn(cout, cout, 3, 1)
        self.shortcut = ConvBN(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + (x if self.shortcut is None else self.shortcut(x)))


class ResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = ConvBN(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1)
        cin = arch.STEM_WIDTH
        for s, (width, stride) in enumerate(arch.STAGES):
            blocks = [
                BasicBlock(cin if b == 0 else width, width, stride if b == 0 else 1)
                for b in range(arch.BLOCKS_PER_STAGE)
            ]
            setattr(self, f"layer{s + 1}", nn.Sequential(*blocks))
            cin = width
        self.fc = nn.Linear(arch.final_width(), arch.NUM_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        for s in range(len(arch.STAGES)):
            x = getattr(self, f"layer{s + 1}")(x)
        return self.fc(x.mean(dim=(2, 3)))  # global average pool over H, W


# layer kind → canonical field → (torch attribute, canonical → torch, torch → canonical)
LAYOUT = {
    "conv": {"kernel": ("weight", lambda w: w.transpose(3, 2, 0, 1), lambda w: w.transpose(2, 3, 1, 0))},  # HWIO↔OIHW
    "bn": {
        "scale": ("weight", None, None),
        "bias": ("bias", None, None),
        "mean": ("running_mean", None, None),
        "var": ("running_var", None, None),
    },
    "fc": {"kernel": ("weight", lambda w: w.T, lambda w: w.T), "bias": ("bias", None, None)},  # (in,out)↔(out,in)
}


def _tensor(model: ResNet18, key: str):
    layer, _, field = key.rpartition(".")
    name, to_torch, from_torch = LAYOUT[arch.layer_kind(layer)][field]
    return (
        model.get_submodule(layer).get_buffer(name)
        if field in ("mean", "var")
        else model.get_submodule(layer).get_parameter(name),
        to_torch or (lambda w: w),
        from_torch or (lambda w: w),
    )


def load_weights(model: ResNet18, weights: dict[str, np.ndarray]) -> None:
    """Copy canonical NumPy weights into the model in place."""
    with torch.no_grad():
        for key, value in weights.items():
            tensor, to_torch, _ = _tensor(model, key)
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(to_torch(value))))


def export_weights(model: ResNet18) -> dict[str, np.ndarray]:
    """The model's weights and BN statistics in the canonical layout."""
    weights = {}
    for key in arch.weight_names():
        tensor, _, from_torch = _tensor(model, key)
        weights[key] = np.array(from_torch(tensor.detach().cpu().numpy()))  # a copy: .numpy() aliases
    return weights
