"""What computes a run's matmuls and convolutions on the CPU, read from the frameworks this process has imported.

The same framework version can reach a different math library, or the same library a different kernel, from one
machine to the next (MKL chooses its kernels by CPU vendor; TensorFlow's oneDNN and XLA's XNNPACK/YNNPACK are
switched by environment and flags), and that decides CPU results: the record keeps what was in force. Every value is
read back from the framework, its build text or the environment; one that cannot be read is None, never a default.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import metadata
from pathlib import Path

#: XLA's CPU flags that choose the kernels of a matmul or convolution: the thunk runtime, XNNPACK and its YNNPACK
#: successor, oneDNN. Their value is recorded where ``XLA_FLAGS`` sets it; unset means this jaxlib's default
XLA_CPU_FLAGS = (
    "xla_cpu_use_thunk_runtime",
    "xla_cpu_use_xnnpack",
    "xla_cpu_experimental_xnn_fusion_type",
    "xla_cpu_experimental_ynn_fusion_type",
    "xla_cpu_use_onednn",
)

#: shared libraries that compute or thread the math, as /proc/self/maps names them (a library linked statically
#: into a framework, such as PyTorch's MKL, does not appear: its build text says it)
_MATH_LIBRARY = re.compile(r"lib(openblas|scipy_openblas|mkl|blis|flame|dnnl|onednn|gomp|iomp|omp)[^/]*\.so[^/]*$")


def parse_torch_config(text: str) -> dict[str, str | None]:
    """The math libraries in the text of ``torch.__config__.show()``: BLAS and LAPACK (``BLAS_INFO``,
    ``LAPACK_INFO``), MKL's version line, oneDNN's version and the CPU capability PyTorch dispatches to."""

    def first(pattern: str) -> str | None:
        found = re.search(pattern, text, re.MULTILINE)
        return found.group(1).strip() if found else None

    return {
        "blas": first(r"\bBLAS_INFO=([^,\s]+)"),
        "lapack": first(r"\bLAPACK_INFO=([^,\s]+)"),
        "mkl": first(r"^\s*- (.*Math Kernel Library Version.*)$"),
        "onednn": first(r"^\s*- Intel\(R\) MKL-DNN (v[\d.]+)") or first(r"^\s*- .*oneDNN (v[\d.]+)"),
        "cpu_capability": first(r"^\s*- CPU capability usage: (\S+)"),
    }


def torch_backend(torch) -> dict[str, str | None]:
    """PyTorch's BLAS, LAPACK, MKL and oneDNN from its build text, with oneDNN's and OpenMP's switches."""
    return {
        **parse_torch_config(torch.__config__.show()),
        "onednn_enabled": _flag(torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled),
        "openmp": _flag(torch.backends.openmp.is_available()),
    }


def tensorflow_backend(tensorflow) -> dict[str, str | None]:
    """TensorFlow's oneDNN: the ``TF_ENABLE_ONEDNN_OPTS`` in force and whether TensorFlow says oneDNN is on (its
    default on x86 Linux; the variable can turn it off)."""
    try:
        from tensorflow.python.util import _pywrap_util_port  # no public equivalent
    except ImportError:
        onednn = None
    else:
        onednn = _flag(_pywrap_util_port.IsMklEnabled())
    return {"TF_ENABLE_ONEDNN_OPTS": os.environ.get("TF_ENABLE_ONEDNN_OPTS"), "onednn": onednn}


def jax_backend(jax) -> dict[str, str | None]:
    """XLA's CPU choices for JAX: jaxlib's version, the ``XLA_FLAGS`` in force and each of ``XLA_CPU_FLAGS`` set
    there (None: not set, this jaxlib's default)."""
    flags = os.environ.get("XLA_FLAGS")
    return {
        "jaxlib": _version("jaxlib"),
        "XLA_FLAGS": flags,
        **{name: parse_xla_flag(flags or "", name) for name in XLA_CPU_FLAGS},
    }


def parse_xla_flag(flags: str, name: str) -> str | None:
    """The value ``flags`` (an ``XLA_FLAGS`` string) gives ``--name`` (the last one wins, as in XLA; a bare
    ``--name`` is true), None when it does not set it."""
    value = None
    for flag in flags.split():
        key, equals, given = flag.removeprefix("--").partition("=")
        if key == name:
            value = given.strip("\"'") if equals else "true"
    return value


def loaded_math_libraries(maps: Path = Path("/proc/self/maps")) -> list[str] | None:
    """The file names of the BLAS, oneDNN and OpenMP libraries mapped into this process, sorted; None where the
    process map cannot be read (not Linux)."""
    try:
        lines = maps.read_text().splitlines()
    except OSError:
        return None
    names = {Path(line.split()[-1]).name for line in lines if len(line.split()) >= 6}
    return sorted(name for name in names if _MATH_LIBRARY.match(name))


#: the frameworks' modules as imported, and how to read each one's math backend
_READERS = {"torch": torch_backend, "tensorflow": tensorflow_backend, "jax": jax_backend}


def math_backend() -> dict:
    """The record's ``software.math_backend``: a report for each framework this process has imported (by module
    name) and the math libraries it has loaded. Call it once the trainer is built, when every library it computes
    with is loaded."""
    return {
        **{name: read(sys.modules[name]) for name, read in _READERS.items() if name in sys.modules},
        "loaded_libraries": loaded_math_libraries(),
    }


def _flag(value: bool) -> str:
    return "on" if value else "off"


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
