"""CUDA environments for an NVIDIA machine (``runners envs build --device gpu``): one per framework, so that each
trains on the GPU with the CUDA build it was made for (docs/design.md, "Versions").

An environment holds the framework at the version installed here (``make setup``; ``constraints.txt`` pins its
companions to the CPU records' versions), its CUDA build, and fwbench installed editable from this checkout
(``pyproject.toml``'s ``gpu-*`` extra, not ``cpu``): PyPI's PyTorch wheel (itself a CUDA build) when the driver
runs its CUDA major, else PyTorch's own index through ``uv --torch-backend auto``; ``tensorflow[and-cuda]`` with
Keras 3; ``jax[cuda13]`` or ``jax[cuda12]`` by the driver's CUDA major. It lives in
``<envs dir>/<framework>-<version>-py<X.Y>-cuda/``, built through ``runners.envs.build`` like the version ones.
A dry run resolves each set with uv for a Linux GPU machine of an architecture (x86-64, or Arm: Grace, DGX Spark)
and installs nothing.
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.frameworks import framework
from runners.envs import versions as envs
from runners.envs.build import MARKER, EnvError, Recipe, current, interpreter, machine_arch, make, python_tag, uv
from runners.measure.config_flags import NO_NVIDIA_GPU
from runners.measure.provenance import framework_version

REPOSITORY = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPOSITORY / "constraints.txt"
#: what a dry run resolves for, by architecture: the wheels a Linux GPU machine of it installs, for this Python
PLATFORMS = {"x86_64": "x86_64-manylinux_2_28", "aarch64": "aarch64-manylinux_2_28"}
#: the CUDA majors JAX publishes plugins for, newest first
JAX_CUDA = (13, 12)
#: the oldest CUDA a driver must run for any framework's CUDA build here: JAX's plugins (``JAX_CUDA``),
#: tensorflow[and-cuda]'s NVIDIA cu12 wheels and PyTorch's builds (cu126 and later) all need CUDA 12 (driver 525+)
MIN_DRIVER_CUDA = 12
#: NVIDIA's CUDA runtime wheel, whose version's major is the CUDA a resolved set runs on
CUDA_RUNTIME = re.compile(r"nvidia-cuda-runtime(-cu\d+)?==(\d+)\.")


@dataclass(frozen=True)
class Gpu:
    """An NVIDIA GPU as NVML sees it (or as a dry run is told): its name and the CUDA version its driver runs."""

    name: str
    cuda: tuple[int, int]

    def __str__(self) -> str:
        return f"{self.name} (CUDA driver {self.cuda[0]}.{self.cuda[1]})"


def detect() -> Gpu | None:
    """The first NVIDIA GPU NVML sees, with the driver's CUDA version (``nvmlSystemGetCudaDriverVersion``); None
    where there is no NVIDIA GPU, driver or NVML."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # no driver, no library: not an NVIDIA machine
        return None
    try:
        if pynvml.nvmlDeviceGetCount() == 0:
            return None
        name = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0))
        version = pynvml.nvmlSystemGetCudaDriverVersion()  # 13000 for 13.0
        return Gpu(name.decode() if isinstance(name, bytes) else name, (version // 1000, version % 1000 // 10))
    finally:
        pynvml.nvmlShutdown()


def cuda_version(text: str) -> tuple[int, int]:
    """``--cuda-driver MAJOR.MINOR`` as a tuple; UsageError naming the value when it is not one, or is older than
    every framework's CUDA build (``MIN_DRIVER_CUDA``)."""
    match = re.fullmatch(r"(\d+)\.(\d+)", text.strip())
    if not match:
        raise UsageError(f"--cuda-driver {text!r}: expected MAJOR.MINOR, e.g. 13.0")
    if int(match[1]) < MIN_DRIVER_CUDA:
        raise UsageError(
            f"--cuda-driver {text}: no framework has a CUDA build for it (each needs CUDA {MIN_DRIVER_CUDA}.0 or "
            "later: NVIDIA driver 525 or later)"
        )
    return int(match[1]), int(match[2])


def installed_version(name: str) -> str:
    """The version of framework ``name`` this interpreter holds, which its CUDA environment gets too."""
    version = framework_version(name)
    if version is None:
        raise EnvError(f"{name}: not installed in {sys.executable} (make setup), so no version to build for the GPU")
    return version.split("+")[0]


def env_path(name: str, version: str) -> Path:
    """The directory of framework ``name``'s CUDA environment at ``version`` (built or not)."""
    return envs.envs_dir() / f"{name}-{version}-py{python_tag()}-cuda"


def built(name: str) -> Path | None:
    """The interpreter of framework ``name``'s CUDA environment at the installed version, when one is complete."""
    try:
        path = env_path(name, installed_version(name))
    except EnvError:  # not installed here: no version to look for
        return None
    return interpreter(path) if (path / MARKER).is_file() and interpreter(path).exists() else None


def jax_cuda(gpu: Gpu) -> int:
    """The CUDA major of the JAX plugin for ``gpu``'s driver: the newest it runs."""
    major = next((cuda for cuda in JAX_CUDA if cuda <= gpu.cuda[0]), None)
    if major is None:
        raise EnvError(f"jax: no CUDA plugin for a CUDA {gpu.cuda[0]} driver (JAX's need CUDA {JAX_CUDA[-1]} or later)")
    return major


def cuda_build(name: str) -> tuple[str, str]:
    """Framework ``name``'s CUDA build as its registry entry names it (``Framework.cuda_build``); EnvError where it
    names none."""
    build = framework(name).cuda_build
    if build is None:
        raise EnvError(f"{name}: its registry entry names no CUDA build (fwbench.framework_entry.Framework.cuda_build)")
    return build


def recipe(name: str, gpu: Gpu, torch_backend: bool = False) -> Recipe:
    """What framework ``name``'s CUDA environment installs for ``gpu``; ``torch_backend``: PyTorch from its own
    index, the build uv picks for the driver (``--torch-backend auto``), not PyPI's."""
    version = installed_version(name)
    extra, cuda_extra = cuda_build(name)
    cuda_extra = cuda_extra.format(cuda=jax_cuda(gpu)) if "{cuda}" in cuda_extra else cuda_extra
    distribution = framework(name).distributions[0] + (f"[{cuda_extra}]" if cuda_extra else "")
    return Recipe(
        name,
        version,
        env_path(name, version),
        f"{name} {version} (CUDA)",
        ("-e", f"{REPOSITORY}[{extra}]", f"{distribution}=={version}"),
        options=("--constraint", str(CONSTRAINTS), *(("--torch-backend", "auto") if torch_backend else ())),
        facts={"device": "gpu", "gpu": str(gpu), "torch_backend": "auto" if torch_backend else None},
    )


def default_arch() -> str:
    """The architecture a dry run resolves for unless told: this machine's where it is one of ``PLATFORMS`` (Arm
    Linux reports ``aarch64``, a Mac ``arm64``), else x86-64."""
    arch = machine_arch()
    return arch if arch in PLATFORMS else "x86_64"


def resolve(plan: Recipe, arch: str | None) -> list[str]:
    """The package set uv resolves for ``plan`` (``name==version`` lines, nothing installed): for a Linux GPU
    machine of ``arch`` (one of ``PLATFORMS``) with this Python, or for this machine (None). EnvError naming it,
    with uv's reason."""
    with tempfile.TemporaryDirectory(prefix="fwbench-cuda-") as scratch:
        wanted = Path(scratch) / "requirements.in"
        wanted.write_text("\n".join(plan.requirements).replace("-e\n", "-e ") + "\n")  # -e PATH: one line
        target = ("--python-platform", PLATFORMS[arch], "--python-version", python_tag()) if arch else ()
        options = ("--no-header", "--no-annotate", "--quiet", *target, *plan.options)
        found = uv("pip", "compile", str(wanted), *options, what=plan.what)
    return [line for line in found.splitlines() if "==" in line and not line.startswith(("-", "#"))]


def cuda_major(packages: list[str]) -> int | None:
    """The CUDA major a resolved set runs on (its CUDA runtime wheel's), None for one without CUDA."""
    return next((int(m[2]) for line in packages if (m := CUDA_RUNTIME.match(line.strip()))), None)


def choose(name: str, gpu: Gpu, arch: str | None = None) -> tuple[Recipe, list[str] | None]:
    """Framework ``name``'s recipe for ``gpu`` and, where PyPI's wheels serve, its resolved set (None for PyTorch
    from its own index, whose build uv picks from the driver on the machine). PyTorch comes from PyPI when the
    driver runs the CUDA major of PyPI's wheel, else from PyTorch's index."""
    plan = recipe(name, gpu)
    packages = resolve(plan, arch)
    if name == "torch" and (cuda_major(packages) or 0) > gpu.cuda[0]:
        return recipe(name, gpu, torch_backend=True), None
    return plan, packages


def source(plan: Recipe) -> str:
    """What ``plan`` installs, in words: its framework's CUDA build, where from, and fwbench's extra."""
    where = "PyTorch's index (uv --torch-backend auto)" if plan.facts["torch_backend"] else "PyPI"
    return f"{plan.requirements[-1]} from {where}, fwbench[{cuda_build(plan.framework)[0]}] editable"


def build(name: str, gpu: Gpu, log=print) -> Path:
    """Build framework ``name``'s CUDA environment for ``gpu`` (a no-op when it is there); its interpreter."""
    if done := current(recipe(name, gpu)):  # the torch backend is no requirement: either build counts
        return done
    plan, _ = choose(name, gpu)
    log(f"building {plan.path.name} for {gpu}: {source(plan)}")
    return make(plan, log)


def resolve_build(name: str, gpu: Gpu, arch: str = "x86_64") -> list[str]:
    """What building framework ``name``'s CUDA environment for ``gpu`` on a Linux machine of ``arch`` would
    install: a heading line, then each resolved package on a line of its own."""
    plan, packages = choose(name, gpu, arch)
    heading = f"{plan.path.name} for {gpu} on {arch}: {source(plan)}"
    if packages is None:
        return [f"{heading}: the build uv picks from the driver there (not resolved here)"]
    return [f"{heading}: {len(packages)} packages", *(f"  {package}" for package in packages)]


def gpu_for(dry: bool, cuda_driver: str | None) -> Gpu:
    """The GPU to build for: NVML's, or for a dry run the driver named (``--cuda-driver``); UsageError where
    NVML sees none (and no dry run names a driver)."""
    if cuda_driver is not None:
        if not dry:
            raise UsageError("--cuda-driver: only with --dry-run (a build is for the driver NVML sees)")
        return Gpu("an NVIDIA GPU", cuda_version(cuda_driver))
    found = detect()
    if found is None:
        hint = "; a dry run can name a driver instead: --cuda-driver MAJOR.MINOR, e.g. 13.0" if dry else ""
        raise UsageError(f"{NO_NVIDIA_GPU}{hint}")
    return found
