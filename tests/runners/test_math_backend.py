"""The math backend a run records: parsed from PyTorch's real build text, XLA_FLAGS and the process map. A real run's
record carries it under ``software.math_backend``: asserted on the smoke matrix's PyTorch record (test_matrix.py), so
that no second PyTorch run is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from runners.measure import math_backend

#: ``torch.__config__.show()`` of this venv's PyTorch (2.14.1, its CUDA build), captured as it printed
TORCH_CONFIG = (Path(__file__).parent / "fixtures" / "torch_config_show.txt").read_text()


def test_parses_blas_lapack_mkl_and_onednn_from_torch_build_text():
    assert math_backend.parse_torch_config(TORCH_CONFIG) == {
        "blas": "mkl",
        "lapack": "mkl",
        "mkl": "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for Intel(R) 64 "
        "architecture applications",
        "onednn": "v3.12.0",
        "cpu_capability": "AVX512",
    }


def test_a_build_text_without_the_lines_gives_none_not_a_guess():
    # an OpenBLAS build without MKL or oneDNN: the lines it lacks stay None
    text = "PyTorch built with:\n  - GCC 13.3\n  - Build settings: BLAS_INFO=open, LAPACK_INFO=open, USE_MKL=OFF,\n"
    assert math_backend.parse_torch_config(text) == {
        "blas": "open",
        "lapack": "open",
        "mkl": None,
        "onednn": None,
        "cpu_capability": None,
    }


@pytest.mark.parametrize(
    ("flags", "value"),
    [
        ("", None),
        ("--xla_cpu_use_xnnpack=false", "false"),
        ("--xla_cpu_use_xnnpack", "true"),
        ("--xla_cpu_use_xnnpack=false --xla_force_host_platform_device_count=2 --xla_cpu_use_xnnpack=true", "true"),
        ("--xla_cpu_use_xnnpack_extra=false", None),
    ],
)
def test_an_xla_flag_is_read_from_xla_flags_and_the_last_setting_wins(flags, value):
    assert math_backend.parse_xla_flag(flags, "xla_cpu_use_xnnpack") == value


def test_jax_report_carries_the_xla_flags_in_force(monkeypatch):
    import jax

    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=dot,reduce")
    report = math_backend.jax_backend(jax)
    assert report["XLA_FLAGS"] == "--xla_cpu_experimental_ynn_fusion_type=dot,reduce"
    assert report["xla_cpu_experimental_ynn_fusion_type"] == "dot,reduce"
    assert report["xla_cpu_use_xnnpack"] is None
    assert report["jaxlib"] == jax.lib.__version__


def test_loaded_libraries_come_from_the_process_map(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(
        "7f00-7f01 r-xp 00000000 08:01 11 /venv/lib/torch/lib/libgomp-a34b3233.so.1\n"
        "7f01-7f02 r--p 00000000 08:01 12 /venv/lib/numpy.libs/libscipy_openblas64_-32a4b2a6.so\n"
        "7f02-7f03 r--p 00000000 08:01 12 /venv/lib/numpy.libs/libscipy_openblas64_-32a4b2a6.so\n"
        "7f03-7f04 r-xp 00000000 08:01 13 /usr/lib/libc.so.6\n"
        "7f04-7f05 rw-p 00000000 00:00 0 \n"
    )
    assert math_backend.loaded_math_libraries(maps) == ["libgomp-a34b3233.so.1", "libscipy_openblas64_-32a4b2a6.so"]
    assert math_backend.loaded_math_libraries(tmp_path / "absent") is None
