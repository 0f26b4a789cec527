"""One framework's float32 forward pass on the device, in a child process of the kit (``python -m
runners.kit.forward_probe FRAMEWORK --device D --out FILE.npz``), run by the interpreter that runs that framework's
configurations: its logits for the parity check, and whether NVML sees the process and, where not, why."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from fwbench.frameworks import FRAMEWORKS
from runners.measure.gpu_memory import NvmlPeakSampler
from runners.measure.profile_devices import DEVICES, resolve_device
from runners.workloads.resnet18 import arch, data, parity
from runners.workloads.resnet18.dataset import epoch_batches


def nvml_null_reason(pid: int, processes: list[tuple[int, int | None]] | None) -> str | None:
    """Why NVML gives no memory for process ``pid`` while it holds GPU memory, from NVML's list of (pid, used
    bytes) of compute processes (None: NVML unusable); None when NVML does see it."""
    if processes is None:
        return "NVML cannot be queried (no driver library)"
    pids = sorted({p for p, _ in processes})
    if not pids:
        return "NVML lists no compute process although this one holds GPU memory: the sandbox hides processes"
    if pid not in pids:
        return f"NVML lists PIDs {pids[:8]} but not this process's {pid}: a PID namespace of its own"
    if all(used is None for p, used in processes if p == pid):
        return "NVML lists the process without its memory (usedGpuMemory not available)"
    return None


def nvml_processes() -> list[tuple[int, int | None]] | None:
    """(pid, used bytes) of every compute process NVML lists on any GPU; None when NVML cannot be queried."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return None
    try:
        return [
            (p.pid, p.usedGpuMemory)
            for i in range(pynvml.nvmlDeviceGetCount())
            for p in pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(i))
        ]
    finally:
        pynvml.nvmlShutdown()


def forward_capture(name: str, device: str, out: Path) -> None:
    """In a child: framework ``name``'s logits (eval and train mode) on ``device`` for
    runners.workloads.resnet18.parity's weights and one batch, to ``out`` (.npz), and what the device and NVML said, to
    ``out`` with .json."""
    from runners.frameworks.trainer import make_trainer

    weights = arch.init_weights(0, random_bn=True)  # random BN statistics make every BN field matter
    dataset = data.synthetic(parity.PARITY_BATCH, parity.PARITY_BATCH)
    images, labels = epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, parity.PARITY_BATCH)
    with NvmlPeakSampler() as nvml:
        trainer = make_trainer(name, weights, "compiled", device)
        ((x, _),) = trainer.to_device(images, labels)
        logits = {"logits.eval": trainer.logits(x, training=False), "logits.train": trainer.logits(x, training=True)}
    info = trainer.device_info()
    reason = nvml_null_reason(os.getpid(), nvml_processes()) if info["device_kind"] == "gpu" else None
    np.savez(out, **logits)
    out.with_suffix(".json").write_text(json.dumps({**info, "nvml_peak_bytes": nvml.peak_bytes, "nvml_reason": reason}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("framework", choices=FRAMEWORKS)
    parser.add_argument("--device", choices=DEVICES, default="auto")
    parser.add_argument("--out", type=Path, required=True, help="the logits, .npz (what was seen: beside it, .json)")
    args = parser.parse_args(argv)
    forward_capture(args.framework, resolve_device(args.device), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
