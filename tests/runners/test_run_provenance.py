"""Machine identity (fwbench.run/2): a CPU fingerprint from /proc/cpuinfo and sysfs, in the CPU machine id."""

from __future__ import annotations

import importlib
import json
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from generator.records.bisects import companions
from runners.measure import cpu_identity, provenance

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Processor
stepping\t: 8
flags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw avx512_vnni avx512_bf16 amx_tile amx_bf16 amx_int8 sha_ni

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
stepping\t: 8
flags\t\t: fpu
"""


@pytest.fixture
def caches(tmp_path):
    for index, (level, kind, size) in enumerate(
        [("1", "Data", "48K"), ("1", "Instruction", "32K"), ("2", "Unified", "2048K"), ("3", "Unified", "105M")]
    ):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size)):
            (folder / name).write_text(value + "\n")
    return tmp_path


def cpu_hardware(fingerprint: dict | None) -> dict:
    return {
        "device_kind": "cpu",
        "device_name": "Intel Xeon",
        "cpu_model": "Intel(R) Xeon(R) Processor",
        "cpu_threads": 2,
        "fingerprint": fingerprint,
    }


def test_fingerprint_reads_the_first_cpu_and_sysfs_caches(caches):
    fingerprint = cpu_identity.cpu_fingerprint(CPUINFO, cache_dir=caches, kernel="6.1.0")
    assert fingerprint == {
        "vendor": "GenuineIntel",
        "family": "6",
        "model": "143",
        "stepping": "8",
        "isa": [
            "amx_bf16",
            "amx_int8",
            "amx_tile",
            "avx",
            "avx2",
            "avx512_bf16",
            "avx512_vnni",
            "avx512bw",
            "avx512f",
            "fma",
        ],
        "caches": {"L1d": 48 << 10, "L1i": 32 << 10, "L2": 2 << 20, "L3": 105 << 20},
        "kernel": "6.1.0",
        "hash": fingerprint["hash"],
    }
    assert len(fingerprint["hash"]) == 8 and int(fingerprint["hash"], 16) >= 0


def test_same_cpu_same_id_different_cpu_different_id_kernel_ignored(caches):
    def machine(cpuinfo: str, kernel: str = "6.1.0") -> str:
        return provenance.machine_id(cpu_hardware(cpu_identity.cpu_fingerprint(cpuinfo, caches, kernel)))

    same = machine(CPUINFO)
    assert same == machine(CPUINFO) == machine(CPUINFO, kernel="6.8.0")
    assert same.startswith("cpu-intel-r-xeon-r-processor-2t-") and len(same.rsplit("-", 1)[1]) == 6
    other_stepping = CPUINFO.replace("stepping\t: 8", "stepping\t: 6", 1)
    no_amx = CPUINFO.replace(" amx_tile amx_bf16 amx_int8", "", 1)
    assert len({same, machine(other_stepping), machine(no_amx)}) == 3
    fingerprint = cpu_identity.cpu_fingerprint(CPUINFO, caches, "6.1.0")
    assert fingerprint["hash"].startswith(same.rsplit("-", 1)[1])


def test_without_cpuinfo_or_sysfs_the_fingerprint_degrades(tmp_path):
    assert provenance.machine_id(cpu_hardware(None)) == "cpu-intel-r-xeon-r-processor-2t"  # not Linux
    bare = cpu_identity.cpu_fingerprint("model name : Some CPU\n", cache_dir=tmp_path / "absent", kernel="x")
    assert bare["vendor"] is None and bare["isa"] == [] and bare["caches"] == {}


def test_gpu_machine_ids_stay_the_gpu_name():
    hardware = {
        **cpu_hardware({"hash": "abcdef12"}),
        "device_kind": "gpu",
        "device_name": "NVIDIA H200",
        "device_count": 1,
    }
    assert provenance.machine_id(hardware) == "nvidia-h200"


def test_a_jax_gpu_record_names_the_cuda_plugin_it_ran_through(monkeypatch):
    """jax[cuda13] installs jax-cuda13-plugin, a release of its own beside jaxlib: the software section names it, and
    the versions pages list it among JAX's companions; on a CPU it is absent and nothing lists it."""
    installed = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.2", "flax": "0.12.10"}

    def version(name):
        if name not in installed:
            raise provenance.metadata.PackageNotFoundError(name)
        return installed[name]

    monkeypatch.setattr(provenance.metadata, "version", version)
    packages = provenance.software_info()["packages"]
    assert packages["jax-cuda13-plugin"] == "0.11.2" and packages["jax-cuda12-plugin"] is None
    assert companions("jax", packages) == ("jaxlib 0.11.2", "jax-cuda13-plugin 0.11.2", "flax 0.12.10")
    del installed["jax-cuda13-plugin"]
    assert companions("jax", provenance.software_info()["packages"]) == ("jaxlib 0.11.2", "flax 0.12.10")


def test_env_shows_the_fingerprint_and_the_benchmark_version():
    info = json.loads(
        subprocess.run(
            [sys.executable, "-m", "runners.cli", "env"], capture_output=True, text=True, timeout=120, check=True
        ).stdout
    )
    fingerprint = info["hardware"]["fingerprint"]
    assert info["hardware"]["machine_id"].endswith("-" + fingerprint["hash"][:6])
    assert fingerprint["kernel"] and set(fingerprint) >= {"vendor", "isa", "caches"}
    assert info["software"]["fwbench_version"] == provenance.fwbench_version() is not None


def test_bytecode_state_says_whether_a_package_had_its_bytecode_before_its_import(tmp_path, monkeypatch):
    package = tmp_path / "fakeframework"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    importlib.invalidate_caches()
    assert provenance.bytecode_state("fakeframework") == {"written": False, "framework_had_bytecode": False}
    assert "fakeframework" not in sys.modules, "looked up, not imported"
    py_compile.compile(str(package / "__init__.py"), doraise=True)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert provenance.bytecode_state("fakeframework") == {"written": True, "framework_had_bytecode": True}
    assert provenance.bytecode_state("sys")["framework_had_bytecode"] is None  # built in: no source to compile


def test_the_code_names_its_version_from_the_checkout_installed_or_not(tmp_path):
    assert provenance.fwbench_version() == tomllib.loads(Path("pyproject.toml").read_text())["project"]["version"]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "fwbench"\nversion = "9.8.7"\n')
    assert provenance.fwbench_version(tmp_path) == "9.8.7"
