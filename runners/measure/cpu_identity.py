"""What CPU this is: its marketing name and a fingerprint that tells two CPUs apart, on Linux (x86-64 and Arm:
/proc/cpuinfo, sysfs, lscpu) and on macOS (sysctl).

The machine id of a CPU run is built from both (``provenance.machine_id``), so that two VMs, two Graviton
generations or two Apple chips that report the same name never pool their records.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
from pathlib import Path

#: x86 instruction-set extensions (/proc/cpuinfo ``flags``) that change how fast the frameworks' CPU kernels run
FINGERPRINT_ISA = (
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
)
#: their Arm counterparts (/proc/cpuinfo ``Features``: NEON, the dot product, SVE, bf16 and int8 matrix multiply,
#: the matrix extension), read apart from x86's flags: an x86 flag may share a name (AMD's ``sme`` is memory
#: encryption)
FINGERPRINT_ARM_ISA = ("asimd", "asimddp", "sve", "sve2", "bf16", "i8mm", "sme", "sme2")
#: macOS's names of the same Arm features (``sysctl hw.optional``) → the Linux names above
DARWIN_FEATURES = {
    "hw.optional.neon": "asimd",
    "hw.optional.arm.FEAT_DotProd": "asimddp",
    "hw.optional.arm.FEAT_BF16": "bf16",
    "hw.optional.arm.FEAT_I8MM": "i8mm",
    "hw.optional.arm.FEAT_SME": "sme",
    "hw.optional.arm.FEAT_SME2": "sme2",
}
#: macOS's cache sizes (bytes) → the fingerprint's cache names
DARWIN_CACHES = {"hw.l1dcachesize": "L1d", "hw.l1icachesize": "L1i", "hw.l2cachesize": "L2", "hw.l3cachesize": "L3"}

CPUINFO = Path("/proc/cpuinfo")
CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")
#: (level, type) in sysfs -> the fingerprint's cache name
CACHE_NAMES = {("1", "Data"): "L1d", ("1", "Instruction"): "L1i", ("2", "Unified"): "L2", ("3", "Unified"): "L3"}
SIZE_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


#: x86 vendor ids (/proc/cpuinfo's ``vendor_id``) → the names people know
X86_VENDORS = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}


def cpu_model() -> str:
    """The CPU's marketing name: /proc/cpuinfo's ``model name`` (x86 Linux; where a sandbox hides it, the vendor,
    family and model it still shows), lscpu's vendor and model (Arm Linux,
    whose /proc/cpuinfo names no model: ``ARM Neoverse-V1``), sysctl's brand string (macOS: ``Apple M1 Pro``), else
    platform's best guess."""
    fields = cpuinfo_fields(read_text(CPUINFO))
    if fields.get("model name", "unknown") != "unknown":
        return fields["model name"]
    if fields.get("vendor_id"):  # x86 under a sandbox that hides the name (gVisor says "unknown"): what it shows
        vendor = X86_VENDORS.get(fields["vendor_id"], fields["vendor_id"])
        return f"{vendor} CPU family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"
    if sys.platform == "darwin":
        return (
            colon_fields(command_output(["sysctl", "machdep.cpu.brand_string"])).get("machdep.cpu.brand_string")
            or platform.machine()
        )
    if "CPU implementer" in fields:  # Arm Linux
        lscpu = colon_fields(command_output(["lscpu"]))
        name = " ".join(part for part in (lscpu.get("Vendor ID"), lscpu.get("Model name")) if part and part != "-")
        if name:
            return name
    return platform.processor() or platform.machine()


def cpu_fingerprint(
    cpuinfo: str | None = None,
    cache_dir: Path = CACHE_DIR,
    kernel: str | None = None,
    sysctl: str | None = None,
) -> dict | None:
    """What tells two CPUs apart beyond their (often masked) model name: vendor, family, model, stepping, the
    speed-relevant ISA extensions and cache sizes; plus the kernel, which the ``hash`` (8 hex characters) leaves out
    so that a kernel update keeps the machine id. On Linux from /proc/cpuinfo (``cpuinfo``) and sysfs: x86's
    ``vendor_id``, ``cpu family``, ``model``, ``stepping`` and ``flags``, or Arm's implementer, architecture, part,
    ``r<variant>p<revision>`` and ``Features``; on macOS from ``sysctl hw`` (``sysctl``): Apple's CPU family and
    subfamily, its optional features and cache sizes. None where neither can be read."""
    if cpuinfo is None and sysctl is None:
        cpuinfo = read_text(CPUINFO)
        if not cpuinfo and sys.platform == "darwin":
            sysctl = command_output(["sysctl", "hw", "machdep.cpu"])
    if cpuinfo:
        identity = linux_identity(cpuinfo, cache_dir)
    elif sysctl:
        identity = darwin_identity(sysctl)
    else:
        return None
    return {**identity, "kernel": kernel if kernel is not None else platform.release(), "hash": identity_hash(identity)}


def identity_hash(identity: dict) -> str:
    """The fingerprint's ``hash``: 8 hex characters of the SHA-256 of its identity fields (all but ``kernel`` and
    ``hash``), the one rule for the runners and ``generator check``."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:8]


def linux_identity(cpuinfo: str, cache_dir: Path = CACHE_DIR) -> dict:
    """The fingerprint's identity fields from /proc/cpuinfo's first CPU and sysfs's caches."""
    fields = cpuinfo_fields(cpuinfo)
    if "CPU implementer" in fields:  # Arm: its MIDR fields, and its features
        identity = {
            "vendor": fields["CPU implementer"],
            "family": fields.get("CPU architecture"),
            "model": fields.get("CPU part"),
            "stepping": arm_revision(fields.get("CPU variant"), fields.get("CPU revision")),
            "isa": sorted(set(fields.get("Features", "").split()).intersection(FINGERPRINT_ARM_ISA)),
        }
    else:
        identity = {
            "vendor": fields.get("vendor_id"),
            "family": fields.get("cpu family"),
            "model": fields.get("model"),
            "stepping": fields.get("stepping"),
            "isa": sorted(set(fields.get("flags", "").split()).intersection(FINGERPRINT_ISA)),
        }
    return {**identity, "caches": cache_sizes(cache_dir)}


def darwin_identity(sysctl: str) -> dict:
    """The fingerprint's identity fields from ``sysctl hw machdep.cpu`` (Apple silicon; an Intel Mac names its vendor
    and has no Arm features)."""
    fields = colon_fields(sysctl)
    return {
        "vendor": fields.get("machdep.cpu.vendor") or ("Apple" if "hw.optional.arm64" in fields else None),
        "family": fields.get("hw.cpufamily"),
        "model": fields.get("hw.cpusubfamily"),
        "stepping": None,
        "isa": sorted(name for key, name in DARWIN_FEATURES.items() if fields.get(key) == "1"),
        "caches": {name: int(fields[key]) for key, name in DARWIN_CACHES.items() if fields.get(key, "").isdigit()},
    }


def arm_revision(variant: str | None, revision: str | None) -> str | None:
    """Arm's ``r<variant>p<revision>`` (``CPU variant 0x1``, ``CPU revision 1``: ``r1p1``), or None without both."""
    try:
        return f"r{int(variant, 16)}p{int(revision)}" if variant and revision else None
    except ValueError:  # not the kernel's usual hex and decimal: kept as given
        return f"{variant}/{revision}"


def cache_sizes(cache_dir: Path = CACHE_DIR) -> dict[str, int]:
    """CPU 0's cache sizes in bytes by name (L1d, L1i, L2, L3) from sysfs; empty where sysfs lacks them."""
    sizes = {}
    for index in sorted(cache_dir.glob("index*")):
        try:
            level, kind, size = ((index / name).read_text().strip() for name in ("level", "type", "size"))
            name = CACHE_NAMES.get((level, kind))
            if name:
                sizes[name] = int(size.rstrip("KMG")) * SIZE_UNITS.get(size[-1:], 1)
        except (OSError, ValueError):  # unreadable or not a size: that cache stays out
            continue
    return sizes


def cpuinfo_fields(cpuinfo: str) -> dict[str, str]:
    """The ``key : value`` fields of /proc/cpuinfo's first CPU (its first block)."""
    return colon_fields(cpuinfo.strip().split("\n\n", 1)[0])


def colon_fields(text: str) -> dict[str, str]:
    """``key: value`` lines (/proc/cpuinfo, lscpu, sysctl) as a dict, keys and values stripped; a repeated key keeps
    its first value."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            fields.setdefault(key.strip(), value.strip())
    return fields


def read_text(path: Path) -> str:
    """The file's text, or "" where it cannot be read (not Linux)."""
    try:
        return path.read_text()
    except OSError:
        return ""


def command_output(command: list[str]) -> str:
    """What ``command`` prints, or "" where it is missing or fails: a CPU's name is never worth a failed run."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
