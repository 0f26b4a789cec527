"""Training step in PyTorch: SGD with momentum and coupled weight decay (PyTorch's own semantics).

Compiled mode compiles the model, as PyTorch recommends (``torch.compile(model)``); the optimizer step stays
eager. bf16 is PyTorch's automatic mixed precision: ``torch.autocast(device, dtype=torch.bfloat16)`` around the
forward pass and the loss, float32 parameters and optimizer state, no GradScaler (bf16 has float32's range).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from fwbench.frameworks import why_not_measured
from runners.frameworks.torch.resnet18_model import ResNet18, export_weights, load_weights
from runners.workloads.resnet18 import recipe


def training_device(device: str, precision: str) -> torch.device:
    """The device a trainer trains on (``auto``: the GPU when PyTorch sees one), after the precision's process-wide
    settings (fp32: TF32 off); every workload's PyTorch trainer starts here. RuntimeError for a GPU that is not
    there."""
    if device == "tpu":  # never the CPU in an accelerator's place
        raise RuntimeError(f"--device tpu: {why_not_measured('torch', 'tpu')}")
    if precision == "fp32":  # the same in all three: true float32 matmuls and convolutions (no TF32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    gpu = torch.cuda.is_available()
    if device == "gpu" and not gpu:
        raise RuntimeError("--device gpu: PyTorch sees no CUDA device")
    return torch.device("cuda" if gpu and device != "cpu" else "cpu")


class Trainer:
    """One ResNet-18 and its optimizer on one device (the protocol: ``runners.frameworks.trainer.Trainer``)."""

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        mode: str,
        device: str = "auto",
        dtype: str = "float32",
        precision: str = "fp32",
    ):
        self.device = training_device(device, precision)
        torch.backends.cudnn.benchmark = True  # PyTorch's performance guide: fixed shapes → autotune once
        self.dtype = getattr(torch, dtype)  # float64 only for parity tests
        # disabled but still entered outside bf16: one code path, and the state it reports is the one that ran
        self.autocast = torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=precision == "bf16")
        self.model = ResNet18().to(self.device, self.dtype)
        self.model.train()
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=0.0, momentum=recipe.SGD_MOMENTUM, weight_decay=recipe.WEIGHT_DECAY
        )
        self.restore(weights)
        self.train_forward = torch.compile(self.model) if mode == "compiled" else self.model

    def _reset_optimizer(self) -> None:
        self.optimizer.state.clear()  # no momentum buffers: the next step starts them from its gradients

    def to_device(self, images: np.ndarray, labels: np.ndarray) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per-step (NCHW images, labels) resident on the device."""
        x = torch.from_numpy(images).permute(0, 1, 4, 2, 3).contiguous().to(self.device, self.dtype)
        y = torch.from_numpy(labels).long().to(self.device)
        return list(zip(x.unbind(0), y.unbind(0), strict=True))

    def train_step(self, x: torch.Tensor, y: torch.Tensor, lr: float) -> tuple[torch.Tensor, torch.Tensor]:
        """One SGD step at learning rate ``lr``; returns (loss, correct predictions) without syncing."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.optimizer.zero_grad(set_to_none=True)
        with self.autocast:
            logits = self.train_forward(x)
            loss = F.cross_entropy(logits.to(self.dtype), y)  # the loss in float32 (bf16: logits come in bf16)
        loss.backward()
        self.optimizer.step()
        return loss.detach(), (logits.argmax(dim=1) == y).sum()

    def logits(self, x: torch.Tensor, training: bool = False) -> np.ndarray:
        """Forward pass only, through the eager model; ``training`` uses batch statistics (and updates the running
        ones, like training does)."""
        self.model.train(training)
        with torch.no_grad(), self.autocast:
            logits = self.model(x).to(self.dtype).cpu().numpy()
        self.model.train()
        return logits

    def sync(self) -> None:
        """Wait for the device's queue to drain."""
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights and BN statistics."""
        return export_weights(self.model)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, weights)
        self._reset_optimizer()

    def memory(self) -> dict[str, int | None]:
        """The caching allocator's peaks on a GPU since the last reset; nothing on a CPU."""
        if self.device.type != "cuda":
            return {"allocator_peak_bytes": None, "allocator_reserved_bytes": None}
        return {
            "allocator_peak_bytes": torch.cuda.max_memory_allocated(),
            "allocator_reserved_bytes": torch.cuda.max_memory_reserved(),
        }

    def reset_memory_peaks(self) -> bool:
        """Reset the caching allocator's peaks (``torch.cuda.reset_peak_memory_stats``); False on a CPU."""
        if self.device.type != "cuda":
            return False
        torch.cuda.reset_peak_memory_stats()
        return True

    def device_info(self) -> dict:
        """The device, the CUDA and cuDNN PyTorch runs on there, and its intra-op threads."""
        on_gpu = self.device.type == "cuda"
        return {
            "device_kind": "gpu" if on_gpu else "cpu",
            "device_name": torch.cuda.get_device_name(0) if on_gpu else None,
            "cuda": torch.version.cuda if on_gpu else None,
            "cudnn": str(torch.backends.cudnn.version()) if on_gpu else None,
            "framework_threads": torch.get_num_threads(),
        }

    def precision_flags(self) -> dict:
        """TF32 for convolutions and matmuls, the float32 matmul precision, autocast's state inside the trainer's
        own autocast context, and the parameters' dtype, as PyTorch reports them."""
        device = self.device.type
        with self.autocast:
            enabled, dtype = torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)
        return {
            "torch.backends.cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
            "torch.backends.cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "torch.get_float32_matmul_precision": torch.get_float32_matmul_precision(),
            "torch.is_autocast_enabled": enabled,
            "torch.get_autocast_dtype": str(dtype).removeprefix("torch.") if enabled else None,
            "torch.nn.Parameter.dtype": str(next(self.model.parameters()).dtype).removeprefix("torch."),
        }
