"""A GPU machine's driver, CUDA and cuDNN as people write them: the records hold the libraries' integers
(``cudaRuntimeGetVersion`` 13000, ``cudnnGetVersion`` 91900)."""

from __future__ import annotations

from typing import Any

from generator.i18n import list_separator


def cuda_version(value: str | int | None) -> str | None:
    """CUDA's integer, major × 1000 + minor × 10, as ``13.0``; any other text as recorded."""
    text = str(value) if value is not None else None
    if not text or not text.isdigit():
        return text
    number = int(text)
    return f"{number // 1000}.{number % 1000 // 10}"


def cudnn_version(value: str | int | None) -> str | None:
    """cuDNN's integer as ``9.19.0``: major × 10000 + minor × 100 + patch from 9.x on, major × 1000 + minor × 100 +
    patch before (8902 is 8.9.2); any other text as recorded."""
    text = str(value) if value is not None else None
    if not text or not text.isdigit():
        return text
    number = int(text)
    major, rest = (number // 10000, number % 10000) if number >= 90000 else (number // 1000, number % 1000)
    return f"{major}.{rest // 100}.{rest % 100}"


def gpu_stack(hardware: dict[str, Any]) -> str:
    """``580.159.04, CUDA 13.0, cuDNN 9.19.0``: the driver, CUDA and cuDNN of a GPU machine, ``—`` for each one
    not recorded."""
    cuda, cudnn = cuda_version(hardware.get("cuda")), cudnn_version(hardware.get("cudnn"))
    return list_separator().join(
        (hardware.get("gpu_driver") or "—", f"CUDA {cuda}" if cuda else "—", f"cuDNN {cudnn}" if cudnn else "—")
    )
