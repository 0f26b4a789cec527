"""Tuning: environment variables that change how a framework compiles or threads.

A run made with any of them set is not out of the box: the runners record them in the configuration (and its
record id), and the readers label the record with them, so that tuned runs are shown apart and never averaged
with out-of-the-box ones.
"""

from __future__ import annotations

import os
from typing import Any

TUNING_VARIABLES = (
    "XLA_FLAGS",
    "TF_XLA_FLAGS",
    "TF_ENABLE_ONEDNN_OPTS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "NVIDIA_TF32_OVERRIDE",
    "JAX_DEFAULT_MATMUL_PRECISION",
    # which kernels a math library dispatches to: the instruction-set caps of MKL, oneDNN and ATen, MKL's old vendor
    # override, and a preloaded library (an allocator, an OpenMP runtime, a stand-in for MKL's vendor check)
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_DEBUG_CPU_TYPE",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "ATEN_CPU_CAPABILITY",
    "LD_PRELOAD",
)
TUNING_PREFIXES = ("TORCHINDUCTOR_", "TORCHDYNAMO_", "TORCH_COMPILE_")


def tuning_environment() -> dict[str, str]:
    """The tuning variables set in this process's environment, sorted by name; cache locations, which change no
    code, left out."""
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if (name in TUNING_VARIABLES or name.startswith(TUNING_PREFIXES)) and not name.endswith("_CACHE_DIR")
    }


def tuning_of(record: dict[str, Any]) -> str:
    """A run record's tuning variables as ``NAME=value; …`` (empty for an out-of-the-box run)."""
    tuning = record["config"].get("tuning_environment", {})
    return "; ".join(f"{name}={value}" for name, value in sorted(tuning.items()))
