"""Which devices a profile is too large for (its ``too_large_for``), and the one line that refuses it there."""

from __future__ import annotations

from fwbench.cliargs import UsageError
from runners.workloads import DEFAULT_WORKLOAD, workload


def too_large(spec: dict, device: str) -> bool:
    """Whether the profile ``spec`` (its fields, inherited ones included) is too large for ``device``."""
    return device in spec.get("too_large_for", ())


def refuse_too_large(name: str, spec: dict, device: str, devices: tuple[str, ...]) -> None:
    """UsageError, one line naming profile ``name``, the device and the model, where the profile is too large for
    ``device`` (the one a run would use, ``auto`` resolved); ``devices`` are every device a run may use."""
    if not too_large(spec, device):
        return
    model = workload(spec.get("workload", DEFAULT_WORKLOAD)).at(spec.get("size"))
    fits = " or ".join(d.upper() for d in devices if not too_large(spec, d))
    raise UsageError(
        f"--profile {name}: too large for a {device.upper()}, the device this run would use ({model.model_name}, "
        f"{model.trainable_params():,} parameters); run it on a {fits}"
    )
