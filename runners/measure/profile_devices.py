"""The device a run uses, and a profile's fields resolved for it: a profile may give its data sizes, precision and
batch sizes per device (``{"cpu": …, "gpu": …, "tpu": …}``)."""

from __future__ import annotations

from runners.measure import provenance
from runners.measure.profile_loading import PROFILES_FILE

#: the devices a run may ask for; ``auto`` resolves to one of the others (``resolve_device``)
PHYSICAL_DEVICES = ("cpu", "gpu", "tpu")
DEVICES = ("auto", *PHYSICAL_DEVICES)
#: full data-set sizes, used when a profile says null
FULL_SIZES = {"cifar10": (50_000, 10_000), "synthetic": (50_000, 10_000), "grammar": (8_192, 256)}


def resolve_device(device: str) -> str:
    """``cpu``, ``gpu`` or ``tpu`` for a requested device; ``auto`` is the GPU when NVML sees one, else the TPU where
    this process can open one (``provenance.tpu_info``), else the CPU."""
    if device == "auto":
        return "gpu" if provenance.nvidia_info() else "tpu" if provenance.tpu_info() else "cpu"
    return device


def per_device(value) -> bool:
    """Whether a profile field's ``value`` is given per device (an object keyed by every physical device)."""
    return isinstance(value, dict) and set(value) == set(PHYSICAL_DEVICES)


def device_sizes(spec: dict) -> dict[str, tuple[int, int]]:
    """A device-sized profile's (train, test) images per device; empty for a profile sized one way."""
    train, test = spec["train_images"], spec["test_images"]
    if not isinstance(train, dict) and not isinstance(test, dict):
        return {}
    if not (per_device(train) and per_device(test)):
        raise ValueError(
            f"{PROFILES_FILE}: train_images and test_images of a device-sized profile must both be "
            f"objects with the keys {', '.join(PHYSICAL_DEVICES)}"
        )
    return {device: (train[device], test[device]) for device in PHYSICAL_DEVICES}


def data_sizes(spec: dict, given: dict) -> tuple[int, int, str | None]:
    """(train images, test images, sized_for) of a profile ``spec`` after the flags ``given``.

    A device-sized profile uses the sizes of the requested device (``auto`` resolved through NVML), and
    ``sized_for`` names the device whose sizes the run ends up with: also when a flag restates them, null when a
    flag changes them.
    """
    merged = {**spec, **given}
    per_device = device_sizes(spec)
    if not per_device:
        full_train, full_test = FULL_SIZES[merged["dataset"]]
        return merged["train_images"] or full_train, merged["test_images"] or full_test, None
    device = resolve_device(merged.get("device", "auto"))
    sizes = (given.get("train_images", per_device[device][0]), given.get("test_images", per_device[device][1]))
    sized_for = next((d for d in (device, *per_device) if per_device[d] == sizes), None)
    return (*sizes, sized_for)


def for_device(merged: dict, field: str):
    """A profile field that may be given per device (``{"cpu": …, "gpu": …}``): the requested device's value
    (``auto`` resolved through NVML), else the value itself."""
    value = merged[field]
    return value[resolve_device(merged.get("device", "auto"))] if per_device(value) else value


def precision_plan(spec: dict, given: dict) -> dict[str, list[int]]:
    """Precision policy → the batch sizes a profile ``spec`` runs it at, after the flags ``given``.

    ``precision`` is one policy, or one per device (``{"cpu": "fp32", "gpu": "default"}``, the requested device's,
    ``auto`` resolved through NVML); it runs at every batch size (``batch_sizes``, a list or one per device).
    ``extra_precisions`` adds others at a few batch sizes (``{"bf16": {"batch_sizes": [32]}}``) unless a flag chose
    the batch sizes or the precision: then exactly what the flags name runs.
    """
    merged = {**spec, **given}
    plan = {for_device(merged, "precision"): list(for_device(merged, "batch_sizes"))}
    if not {"precision", "batch_sizes"} & given.keys():
        extra_precisions = for_device({"extra_precisions": {}, **merged}, "extra_precisions")
        plan.update({policy: list(extra["batch_sizes"]) for policy, extra in extra_precisions.items()})
    return plan
