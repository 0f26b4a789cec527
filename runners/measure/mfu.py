"""Model FLOPs utilisation: the share of the device's peak arithmetic a run's throughput reaches, as a record's
``mfu`` states it (``runners.measure.record``) and the harness checks state it (``benchmarks/idiomatic_loop.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS, Workload

#: precision policy → the device_peaks.json table its MFU divides by: the arithmetic its convolutions run in on a GPU
#: with tensor cores (``default`` is TF32 there in all three frameworks: cuDNN's, TensorFlow's and XLA's default)
PEAK_TABLES = {"fp32": "float32", "default": "tf32", "bf16": "bfloat16"}


def peak_flops(device_name: str | None, table: str = "float32") -> float | None:
    """The device's peak FLOP/s in ``table`` of device_peaks.json (float32, tf32, bfloat16), or None when unknown
    (MFU is then null)."""
    peaks = json.loads(Path(__file__).with_name("device_peaks.json").read_text())[table]
    return peaks.get(device_name) if device_name else None


def mfu_section(
    policy: str, hardware: dict, samples_per_second: float, spec: Workload = WORKLOADS[DEFAULT_WORKLOAD]
) -> dict:
    """The record's ``mfu``: 3 × forward FLOPs per sample × samples/s (images or tokens, by workload) over the peak of
    the precision that ran (``PEAK_TABLES``), with the table it came from; null with the reason where no peak is known
    (a CPU, a GPU missing from the table)."""
    table = PEAK_TABLES[policy]
    on_accelerator = hardware["device_kind"] != "cpu"
    peak = peak_flops(hardware["device_name"], table) if on_accelerator else None
    if peak is None:
        where = f"{hardware['device_name']!r} in device_peaks.json's {table} table" if on_accelerator else "a CPU"
        reason = f"no known peak {table} FLOP/s for {where}"
    return {
        "value": 3 * spec.flops_per_sample() * samples_per_second / peak if peak else None,
        "peak_flops_per_second": peak,
        "peak_table": table,
        "basis": f"3 × forward FLOPs per {spec.sample} × {spec.sample}s/s ÷ the device's peak {table} FLOP/s"
        if peak
        else None,
        "reason": None if peak else reason,
    }
