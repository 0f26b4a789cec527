"""A machine as a matrix sees it, surveyed where the matrix will run (here, or on each node of a Ray cluster:
``runners.executors.ray_cluster``), before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from runners.envs.interpreters import Interpreters
from runners.measure.profiles import RunConfig, expand
from runners.measure.provenance import hardware_for


@dataclass(frozen=True)
class Survey:
    """A machine as a matrix sees it: its hardware for the matrix's device (machine id included), the frameworks
    that cannot run there and why, and the profile's configurations as they would run there."""

    hardware: dict
    not_installed: dict[str, str]
    configs: list[RunConfig]


def survey(interpreters: Interpreters, profile: str, device: str, selection: dict) -> Survey:
    """Survey this machine for a matrix of ``profile`` narrowed by ``selection`` (``profiles.expand``'s overrides) on
    ``device``. A configuration carries the framework version of the interpreter that will run it and the sizes of
    the device it will use, so it is expanded on the machine that runs it (on each node of a cluster)."""
    configs = expand(profile, version_of=interpreters.framework_version, **selection)
    in_environments = {name for name, _ in interpreters.interpreters}  # --versions: checked when they were built
    missing = {
        name: f"{name} is not installed in {interpreters.python_for(name)}"
        for name in dict.fromkeys(c.framework for c in configs)
        if name not in in_environments and not interpreters.available(name)
    }
    return Survey(hardware_for(device), missing, configs)
