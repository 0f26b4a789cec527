"""Where and with what a measurement was made: hardware, software and a stable machine id."""

from __future__ import annotations

import importlib.util
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import psutil
import tomllib

from fwbench.frameworks import REGISTRY, framework
from fwbench.installed import package_versions
from fwbench.slug import slug
from runners.measure.cpu_identity import cpu_fingerprint, cpu_model

#: distributions whose versions every record carries (None when not installed): the frameworks' own, then the
#: libraries they train through here
KEY_PACKAGES = tuple(
    dict.fromkeys(
        [
            *(d for f in REGISTRY.values() for d in f.distributions),
            *(c for f in REGISTRY.values() for c in f.companions),
        ]
    )
)

REPO_ROOT = Path(__file__).resolve().parents[2]


def framework_version(name: str) -> str | None:
    """The version of framework ``name`` installed in this interpreter (None when not installed), without
    importing it: the version of the first of its distributions that is installed."""
    return first_installed(package_versions(framework(name).distributions))


def first_installed(versions: dict[str, str | None]) -> str | None:
    """The first version in ``versions`` (distribution → version, None where not installed) that is installed: a
    framework's version from its distributions', in the registry's order."""
    return next((v for v in versions.values() if v), None)


def fwbench_version(root: Path = REPO_ROOT) -> str | None:
    """The version of the benchmark code that writes the record: the checkout's ``pyproject.toml`` where the code
    runs from one (installed or not: a machine without a registry runs it uninstalled), else the ``fwbench``
    distribution's; None when neither says."""
    try:
        return tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("fwbench")
    except metadata.PackageNotFoundError:
        return None


def git_commit() -> tuple[str | None, bool | None]:
    """(commit hash, dirty?) of the benchmark code (``results/`` excluded), or (None, None) outside a git
    checkout."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        # records under results/ are outputs, not code: writing them must not make the code look modified
        status = subprocess.run(
            [
                "git",
                "-C",
                str(REPO_ROOT),
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":(exclude)results",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit or None, bool(status.strip())


def bytecode_state(import_name: str) -> dict:
    """Whether this interpreter writes bytecode (False under ``PYTHONDONTWRITEBYTECODE``) and whether the module
    ``import_name`` already has its bytecode (its ``__pycache__`` file; None when it is not a source module), looked
    up without importing it. Call it before the framework's import: a framework imported from source compiles its
    modules first, which lengthens the set-up, and the lazy imports of its first step count in the compile time
    (cold ``torch.compile``: 25.6 s without bytecode against 20.7 s with it on the EPYC VM)."""
    spec = importlib.util.find_spec(import_name)
    origin = spec.origin if spec is not None and spec.has_location else None
    had = Path(importlib.util.cache_from_source(origin)).is_file() if origin and origin.endswith(".py") else None
    return {"written": not sys.dont_write_bytecode, "framework_had_bytecode": had}


def software_info() -> dict:
    """Python, OS, key package versions and the git commit of the benchmark code."""
    commit, dirty = git_commit()
    return {
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "packages": package_versions(KEY_PACKAGES),
        "git_commit": commit,
        "git_dirty": dirty,
        "fwbench_version": fwbench_version(),
    }


def nvidia_info() -> dict | None:
    """GPU name, count, driver and memory (the first GPU's, bytes) through NVML, or None when no NVIDIA GPU/driver is
    present."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # no driver, no library: simply not a GPU machine
        return None
    try:
        count = pynvml.nvmlDeviceGetCount()
        if count == 0:
            return None
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        name, memory = pynvml.nvmlDeviceGetName(handle), pynvml.nvmlDeviceGetMemoryInfo(handle).total
        driver = pynvml.nvmlSystemGetDriverVersion()
        return {
            "device_name": _text(name),
            "device_count": count,
            "gpu_driver": _text(driver),
            "device_memory_bytes": memory,
        }
    finally:
        pynvml.nvmlShutdown()


#: where Linux lists PCI devices, and Google's PCI vendor id (TPU chips)
PCI_DEVICES = Path("/sys/bus/pci/devices")
GOOGLE_PCI_VENDOR = "0x1ae0"
#: a TPU chip's PCI device id → the chip's name as JAX reports it (``jax.Device.device_kind``); only ids read off a
#: real chip are listed: another is named by its id
TPU_CHIP_NAMES = {"0x0063": "TPU v5 lite"}
#: the device files through which a process reaches its TPU chips: /dev/accel<N> (TPU VMs up to v4), or VFIO groups
#: /dev/vfio/<N> (v5e and later); a host may hold more chips than the process is given, and only these count
TPU_DEVICE_FILES = ("/dev/accel[0-9]*", "/dev/vfio/[0-9]*")


def tpu_info(pci_devices: Path = PCI_DEVICES, device_files: tuple[str, ...] = TPU_DEVICE_FILES) -> dict | None:
    """The TPU chips this process can open: their name, count and libtpu's version, read from sysfs and /dev without
    opening a chip (only one process at a time may hold it, and opening takes seconds); None where there is none."""
    kinds = []
    for device in sorted(pci_devices.glob("*")) if pci_devices.is_dir() else ():
        try:
            if (device / "vendor").read_text().strip() == GOOGLE_PCI_VENDOR:
                kinds.append((device / "device").read_text().strip())
        except OSError:
            continue
    usable = sorted({path for pattern in device_files for path in map(str, Path("/").glob(pattern.lstrip("/")))})
    if not kinds or not usable:
        return None
    count = min(len(usable), len(kinds))
    return {
        "device_name": TPU_CHIP_NAMES.get(kinds[0], f"Google TPU (PCI device {kinds[0]})"),
        "device_count": count,
        "tpu_topology": SINGLE_HOST_TOPOLOGIES.get(count, f"{count} chips"),
        "libtpu": package_versions(("libtpu",))["libtpu"],
    }


#: how a single host's chips are arranged, by count (Cloud TPU's slice names: v5litepod-1 is 1x1, -4 2x2, -8 2x4);
#: a run replaces it with the topology JAX reports
SINGLE_HOST_TOPOLOGIES = {1: "1x1", 4: "2x2", 8: "2x4"}


def _text(value: str | bytes) -> str:
    """Older nvidia-ml-py releases return bytes."""
    return value.decode() if isinstance(value, bytes) else value


#: NVIDIA's wheels of the CUDA runtime and cuDNN, by name prefix (nvidia-cuda-runtime-cu12, nvidia-cudnn-cu13, …)
CUDA_DISTRIBUTIONS = {"cuda": "nvidia-cuda-runtime", "cudnn": "nvidia-cudnn"}


def cuda_libraries() -> dict[str, str | None]:
    """The CUDA runtime and cuDNN versions installed as NVIDIA's wheels (how PyTorch and JAX get them), from package
    metadata without importing a framework; None where none is installed. A run replaces them with what its
    framework reports."""
    found: dict[str, str | None] = dict.fromkeys(CUDA_DISTRIBUTIONS)
    for distribution in metadata.distributions():
        name = (distribution.metadata["Name"] or "").lower().replace("_", "-")
        for key, prefix in CUDA_DISTRIBUTIONS.items():
            if name.startswith(prefix) and found[key] is None:
                found[key] = distribution.version
    return found


def hardware_info() -> dict:
    """Host description plus the GPU when NVML sees one, with the CUDA runtime and cuDNN installed for it
    (``cuda_libraries``), or the TPU chips this process can open (``tpu_info``). The runner replaces device-specific
    fields with what the framework reports."""
    gpu = nvidia_info()
    tpu = None if gpu else tpu_info()
    threads = os.cpu_count() or 1
    model = cpu_model()  # read once: on Arm Linux and macOS it runs lscpu or sysctl
    info = {
        "device_kind": "gpu" if gpu else "tpu" if tpu else "cpu",
        "device_name": gpu["device_name"] if gpu else tpu["device_name"] if tpu else model,
        "device_count": gpu["device_count"] if gpu else tpu["device_count"] if tpu else None,
        "gpu_driver": gpu["gpu_driver"] if gpu else None,
        "device_memory_bytes": gpu.get("device_memory_bytes") if gpu else None,
        **(cuda_libraries() if gpu else dict.fromkeys(CUDA_DISTRIBUTIONS)),
        "cpu_model": model,
        "cpu_threads": threads,
        "framework_threads": None,
        "host_memory_bytes": psutil.virtual_memory().total,
        "fingerprint": cpu_fingerprint(),
        "boot_id": boot_id(),
    }
    if tpu:
        info.update(tpu_topology=tpu["tpu_topology"], libtpu=tpu["libtpu"])
    info["machine_id"] = machine_id(info)
    return info


#: the id Linux draws at each boot: runs on two boots are two sittings, whatever the pause between them
BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str | None:
    """This boot's id, None where the system keeps none (macOS): what ``fwbench.sittings`` keys a sitting on, beside
    the pause between runs (the kernel build is the fingerprint's ``kernel``)."""
    try:
        return BOOT_ID_PATH.read_text().strip() or None
    except OSError:
        return None


def hardware_for(device: str) -> dict:
    """This machine's hardware as a run on ``device`` records it: the GPU (by name), or the CPU (model and threads)
    also on a GPU machine when the configuration asks for the CPU. What a record made before (or instead of) the run
    carries: a dry run's, a failed run's, the matrix's survey of a machine."""
    hardware = hardware_info()
    return as_cpu_run(hardware) if device == "cpu" and hardware["device_kind"] != "cpu" else hardware


def as_cpu_run(hardware: dict) -> dict:
    """``hardware`` as a run on its host CPU records it: the CPU named as the device, none of the accelerator's
    fields (driver, CUDA libraries, TPU topology, libtpu), and the CPU's machine id."""
    cpu = {key: value for key, value in hardware.items() if key not in ("tpu_topology", "libtpu")}
    cpu.update(device_kind="cpu", device_name=cpu["cpu_model"], device_count=None, gpu_driver=None)
    cpu.update(dict.fromkeys(CUDA_DISTRIBUTIONS))
    cpu["machine_id"] = machine_id(cpu)
    return cpu


#: set in a machine's environment, replaces the machine id its hardware makes: for clusters of identical VMs that
#: must be told apart (or pooled) by name, and for tests that make two "machines" on one host
MACHINE_ID_ENV = "FWBENCH_MACHINE_ID"


def machine_id(hardware: dict) -> str:
    """A stable id that groups records by hardware: the GPU's name; for CPU runs the CPU model and threads
    plus the first 6 hex characters of the CPU fingerprint's hash, so that two different VMs that report the
    same model name never merge; for a TPU the chip's name and the slice's topology (``tpu-v5-lite-1x1``).
    ``$FWBENCH_MACHINE_ID``, where set, is the id instead (``MACHINE_ID_ENV``)."""
    if os.environ.get(MACHINE_ID_ENV):
        return slug(os.environ[MACHINE_ID_ENV])
    return hardware_machine_id(hardware)


def hardware_machine_id(hardware: dict) -> str:
    """The machine id ``hardware`` makes, whatever ``$FWBENCH_MACHINE_ID`` says: what ``generator check``
    recomputes."""
    if hardware["device_kind"] == "tpu":
        return slug(f"{hardware['device_name']} {hardware.get('tpu_topology') or ''}")
    if hardware["device_kind"] == "gpu":
        count = hardware.get("device_count") or 1
        return slug(f"{hardware['device_name']}" + (f" x{count}" if count > 1 else ""))
    fingerprint = hardware.get("fingerprint")
    suffix = f"-{fingerprint['hash'][:6]}" if fingerprint else ""
    return slug(f"cpu {hardware['cpu_model']} {hardware['cpu_threads']}t") + suffix
