"""CPU identity beyond x86 Linux: Arm Linux (Graviton) and macOS (Apple silicon), so that their machine ids name the
chip and two chips never pool (x86's fingerprint is tested in test_run_provenance.py)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from runners.measure import cpu_identity, provenance

# /proc/cpuinfo of an AWS Graviton3 (Neoverse V1), as quoted on the linux-perf-users list (lore.kernel.org, James
# Clark's "perf test: attr tests" thread, 2022); its first CPU block.
GRAVITON3 = """processor\t: 0
BogoMIPS\t: 2100.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop \
sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x1
CPU part\t: 0xd40
CPU revision\t: 1

processor\t: 1
BogoMIPS\t: 2100.00
"""
# A Graviton2 (Neoverse N1: CPU part 0xd0c, no SVE, no bf16), the same fields (the kernel's arm64 cpuinfo format).
GRAVITON2 = """processor\t: 0
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
CPU revision\t: 1
"""
# `sysctl hw machdep.cpu` on an Apple M1 (names and format: Apple's "Determining instruction set characteristics"
# and sysctl(8); the M1's cache sizes and features as public dumps of this command show them). Abridged.
APPLE_M1 = """hw.ncpu: 8
hw.physicalcpu: 8
hw.logicalcpu: 8
hw.cpufamily: 458787763
hw.cpusubfamily: 2
hw.cachelinesize: 128
hw.l1icachesize: 131072
hw.l1dcachesize: 65536
hw.l2cachesize: 4194304
hw.optional.arm.FEAT_DotProd: 1
hw.optional.arm.FEAT_BF16: 0
hw.optional.arm.FEAT_I8MM: 0
hw.optional.floatingpoint: 1
hw.optional.neon: 1
hw.optional.arm64: 1
machdep.cpu.core_count: 8
machdep.cpu.brand_string: Apple M1
"""


def test_a_graviton3_fingerprint_reads_its_midr_and_arm_features(tmp_path):
    fingerprint = cpu_identity.cpu_fingerprint(GRAVITON3, cache_dir=tmp_path, kernel="6.8.0")
    assert {key: fingerprint[key] for key in ("vendor", "family", "model", "stepping", "isa")} == {
        "vendor": "0x41",
        "family": "8",
        "model": "0xd40",
        "stepping": "r1p1",
        "isa": ["asimd", "asimddp", "bf16", "i8mm", "sve"],
    }


def test_two_graviton_generations_get_two_machine_ids(tmp_path):
    def machine(cpuinfo: str) -> str:
        fingerprint = cpu_identity.cpu_fingerprint(cpuinfo, cache_dir=tmp_path, kernel="6.8.0")
        return provenance.machine_id(
            {"device_kind": "cpu", "cpu_model": "ARM Neoverse", "cpu_threads": 4, "fingerprint": fingerprint}
        )

    assert machine(GRAVITON3) != machine(GRAVITON2)
    assert machine(GRAVITON3).startswith("cpu-arm-neoverse-4t-")


def test_an_x86_flag_named_like_an_arm_feature_stays_out():
    """AMD's ``sme`` flag is memory encryption, not Arm's matrix extension: x86 reads only its own list."""
    amd = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: avx avx2 sme sev\n"
    assert cpu_identity.cpu_fingerprint(amd, cache_dir=Path("/nonexistent"), kernel="6.1")["isa"] == ["avx", "avx2"]


def test_an_apple_m1_fingerprint_comes_from_sysctl():
    fingerprint = cpu_identity.cpu_fingerprint(sysctl=APPLE_M1, kernel="24.1.0")
    assert fingerprint == {
        "vendor": "Apple",
        "family": "458787763",
        "model": "2",
        "stepping": None,
        "isa": ["asimd", "asimddp"],
        "caches": {"L1d": 65536, "L1i": 131072, "L2": 4194304},
        "kernel": "24.1.0",
        "hash": fingerprint["hash"],
    }
    with_bf16 = APPLE_M1.replace("FEAT_BF16: 0", "FEAT_BF16: 1")
    assert cpu_identity.cpu_fingerprint(sysctl=with_bf16, kernel="24.1.0")["hash"] != fingerprint["hash"]


def test_fingerprints_of_arm_and_apple_validate_against_the_run_schema(tmp_path):
    schema = json.loads(Path(provenance.__file__).parents[2].joinpath("fwbench/schemas/run.schema.json").read_text())
    section = schema["properties"]["hardware"]["properties"]["fingerprint"]
    assert set(section["properties"]["isa"]["items"]["enum"]) == {
        *cpu_identity.FINGERPRINT_ISA,
        *cpu_identity.FINGERPRINT_ARM_ISA,
    }
    for fingerprint in (
        cpu_identity.cpu_fingerprint(GRAVITON3, cache_dir=tmp_path, kernel="6.8.0"),
        cpu_identity.cpu_fingerprint(sysctl=APPLE_M1, kernel="24.1.0"),
    ):
        jsonschema.validate(fingerprint, section)


@pytest.fixture
def no_cpuinfo(monkeypatch, tmp_path):
    monkeypatch.setattr(cpu_identity, "CPUINFO", tmp_path / "absent")


def test_a_mac_names_its_chip_from_sysctl(monkeypatch, no_cpuinfo):
    monkeypatch.setattr(cpu_identity.sys, "platform", "darwin")
    asked = []

    def sysctl(command):
        asked.append(command)
        return APPLE_M1

    monkeypatch.setattr(cpu_identity, "command_output", sysctl)
    assert cpu_identity.cpu_model() == "Apple M1"
    assert cpu_identity.cpu_fingerprint()["vendor"] == "Apple"
    assert all(command[0] == "sysctl" for command in asked)


def test_arm_linux_names_its_cpu_from_lscpu(monkeypatch, tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(GRAVITON3)
    monkeypatch.setattr(cpu_identity, "CPUINFO", cpuinfo)
    monkeypatch.setattr(cpu_identity.sys, "platform", "linux")
    # lscpu's names for implementer 0x41, part 0xd40 (util-linux, sys-utils/lscpu-arm.c)
    lscpu = "Architecture:             aarch64\nVendor ID:                ARM\nModel name:               Neoverse-V1\n"
    monkeypatch.setattr(cpu_identity, "command_output", lambda command: lscpu if command == ["lscpu"] else "")
    assert cpu_identity.cpu_model() == "ARM Neoverse-V1"
    monkeypatch.setattr(cpu_identity, "command_output", lambda command: "")  # no lscpu: the architecture
    assert cpu_identity.cpu_model() in {cpu_identity.platform.processor(), cpu_identity.platform.machine()}


def test_without_cpuinfo_or_sysctl_there_is_no_fingerprint(monkeypatch, no_cpuinfo):
    monkeypatch.setattr(cpu_identity.sys, "platform", "win32")
    assert cpu_identity.cpu_fingerprint() is None
