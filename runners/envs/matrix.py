"""The interpreters a matrix runs in: the framework versions it runs (``--versions``, else the profile's), each other
one's environment built first, and on the GPU the frameworks' CUDA environments.

``runners matrix --versions FRAMEWORK=V1,V2`` (or a profile's ``versions``) names releases, ``article`` or
``installed``; the installed version runs in the framework's interpreter, any other in an environment of its own
(``runners.envs.versions``), built here before any run starts, its interpreter handed to the executor (``runners matrix
--dry-run`` passes a ``build`` that only notes what it would build).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.frameworks import measured_on
from runners.envs import gpu as envs_gpu
from runners.envs import versions as envs
from runners.envs.interpreters import Interpreters
from runners.measure.profile_devices import resolve_device
from runners.measure.profile_loading import load_profiles


def matrix_versions(
    requested: dict[str, list[str]],
    profile: str,
    frameworks: list[str] | None,
    interpreters: Interpreters,
    on_ray: bool,
    build: Callable[..., Path] | None = None,
) -> dict[str, list] | None:
    """The versions of each framework the matrix runs (``requested``, else ``profile``'s ``versions`` for
    ``frameworks``, default all), None for the installed ones only. Builds the environments they need first
    (``build``, default ``envs.build``), into ``interpreters.interpreters``; UsageError for a version that
    cannot be had, before any run starts."""
    profile_versions = load_profiles()[profile].get("versions")
    if not requested and profile_versions:
        requested = {name: list(profile_versions) for name in frameworks or envs.version_sets()["frameworks"]}
    if not requested:
        return None
    if on_ray:
        raise UsageError("--versions: only with the local executor (the environments are built on this machine)")
    versions = {}
    try:
        for name, wanted in requested.items():
            resolved = envs.resolve(name, wanted, interpreters.framework_version(name))
            for version, own_environment in resolved:
                if version is None:
                    raise UsageError(
                        f"--versions {name}={envs.INSTALLED}: {name} is not installed in "
                        f"{interpreters.python_for(name)}"
                    )
                if own_environment:
                    python = (build or envs.build)(name, version, log=lambda line: print(line, flush=True))
                    interpreters.interpreters[name, version] = str(python)
            versions[name] = [version for version, _ in resolved]
    except envs.EnvError as exc:
        raise UsageError(f"--versions: {exc}") from None
    return versions


def cuda_interpreters(device: str, on_ray: bool) -> dict[str, str]:
    """Framework → the interpreter of its CUDA environment, for each one built (``runners envs build --device
    gpu``), when the matrix runs on this machine's GPU (``device`` gpu, or auto where NVML sees one); else empty."""
    if on_ray or resolve_device(device) != "gpu":
        return {}
    return {name: str(python) for name in measured_on("gpu") if (python := envs_gpu.built(name))}
