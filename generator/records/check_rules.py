"""The rules ``generator check`` applies to one valid run record: provenance, physical possibility, the same work.

Each rule returns the record's failures and notes as ``(rule, text)`` pairs: a failure means the record cannot be
what it says; a note, that a rule could not be applied to it (an unknown device, an older record, no reference) and
why, or that its times carry a known cost beside the framework's (a framework imported without its bytecode). The
references are data files, read here, never code imported from the runners: the float64 first losses and their
bound per precision policy (``fwbench/reference_losses.json``, made by ``python -m
runners.workloads.resnet18.reference_losses``) and the devices' peak FLOP/s (``runners/measure/device_peaks.json``).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from fwbench.records import THROUGHPUT_FIELDS, epoch_train_images, throughput

PROVENANCE, PHYSICAL, SAME_WORK = "provenance", "physically possible", "same work"
#: (section, field) a record must name for its provenance to be complete; ``gpu`` ones only on a GPU
PROVENANCE_FIELDS = (
    ("hardware", "machine_id"),
    ("hardware", "device_name"),
    ("hardware", "fingerprint"),
    ("framework", "version"),
    ("software", "packages"),
    ("software", "fwbench_version"),
    ("software", "git_commit"),
)
GPU_FIELDS = (("hardware", "gpu_driver"),)
#: the sections whose figures are measurements: none may be negative
MEASURED_SECTIONS = ("timing", "memory", "mfu", "accuracy", "training", "model")
#: the figures there that are differences of two measurements, kept as measured (below 0 where noise exceeds them);
#: the replay recomputes them
DIFFERENCES = ("timing.compile_seconds",)
#: images/s must equal images per epoch ÷ epoch seconds to this relative tolerance (both come from one division)
RATE_TOLERANCE = 1e-6
COMMIT = re.compile(r"[0-9a-f]{40}")
#: the peak table of true float32 (no tensor cores), the fp32 policy's
FP32_TABLE = "float32"

Finding = tuple[str, str]


@dataclass(frozen=True)
class References:
    """What a record is checked against: the reference trajectories by key, the bound per precision policy, each
    workload's model size, and the devices' peaks by table (float32, tf32, bfloat16)."""

    trajectories: dict[tuple, list[float]]
    bounds: dict[str, list[float]]  # policy -> the relative bound of each step
    first_losses: int
    models: dict[str, dict[str, int]]  # workload -> trainable_params and flops_per_image or flops_per_token
    peaks: dict[str, dict[str, float]]


@cache
def load_references() -> References:
    """The shipped references (``fwbench/reference_losses.json``, ``runners/measure/device_peaks.json``)."""
    losses = json.loads(resources.files("fwbench").joinpath("reference_losses.json").read_text())
    peaks = json.loads(resources.files("runners.measure").joinpath("device_peaks.json").read_text())
    return References(
        trajectories={key_tuple(t["key"]): t["losses"] for t in losses["trajectories"]},
        bounds={policy: bound["relative"] for policy, bound in losses["bounds"].items()},
        first_losses=losses["first_losses"],
        models=losses["models"],
        peaks={dtype: table for dtype, table in peaks.items() if isinstance(table, dict)},
    )


def key_tuple(key: dict) -> tuple:
    """A reference key as a tuple (``runners.workloads.resnet18.reference_losses.Key``'s fields, in order)."""
    return key["dataset"], key["images"], key["epochs"], key["seed"], key["batch_size"]


def record_key(config: dict) -> tuple | None:
    """The reference key of a record's ``config``: the training images the run loaded (``train_images`` raised to
    ``min_timed_steps`` whole batches, as ``RunConfig.epoch_train_images``), epochs, seed, batch size; None for an
    upgraded version-1 record, which names no request."""
    if config.get("train_images") is None:
        return None
    images = epoch_train_images(config["train_images"], config.get("min_timed_steps"), config["batch_size"])
    return config["dataset"], images, config["epochs"], config["seed"], config["batch_size"]


def is_checkout(repo: Path) -> bool:
    """Whether ``repo`` is the top of a git checkout (a clone or a worktree): where commits can be looked up."""
    return (repo / ".git").exists()


class Commits:
    """Whether a commit is in a checkout's history (an ancestor of its HEAD: a commit whose object is only on a side
    branch is absent from a clone of the main line) and its date (``git show``), each asked once per commit."""

    def __init__(self, repo: Path | None):
        self.repo = repo if repo is not None and is_checkout(repo) else None
        self._known: dict[str, bool | None] = {}
        self._dates: dict[str, datetime | None] = {}

    def date(self, commit: str) -> datetime | None:
        """The commit's committer date; None when no checkout is at hand or the commit is not in it."""
        if self.repo is None or not COMMIT.fullmatch(commit) or not self.known(commit):
            return None
        if commit not in self._dates:
            try:
                done = subprocess.run(
                    ["git", "-C", str(self.repo), "show", "-s", "--format=%cI", commit],
                    capture_output=True,
                    text=True,
                    timeout=30,
                    check=True,
                )
                self._dates[commit] = datetime.fromisoformat(done.stdout.strip())
            except (OSError, subprocess.SubprocessError, ValueError):
                self._dates[commit] = None
        return self._dates[commit]

    def known(self, commit: str) -> bool | None:
        """True or False; None when no checkout is at hand or git cannot answer."""
        if self.repo is None:
            return None
        if commit not in self._known:
            try:
                done = subprocess.run(
                    ["git", "-C", str(self.repo), "merge-base", "--is-ancestor", commit, "HEAD"],
                    capture_output=True,
                    timeout=30,
                    check=False,
                )
                self._known[commit] = done.returncode == 0
            except (OSError, subprocess.SubprocessError):
                self._known[commit] = None
        return self._known[commit]


def provenance(record: dict[str, Any], commits: Commits) -> tuple[list[Finding], list[Finding]]:
    """Machine, device, driver (on a GPU), framework and package versions, fwbench's version and commit, the commit
    in the checkout's history. An upgraded record may lack what its version did not record: a note, not a
    failure; so is a framework imported from source, whose set-up and compile times include compiling its Python."""
    hardware = record.get("hardware") or {}
    wanted = PROVENANCE_FIELDS + (GPU_FIELDS if hardware.get("device_kind") == "gpu" else ())
    missing = [f"{section}.{name}" for section, name in wanted if not (record.get(section) or {}).get(name)]
    failures, notes = [], []
    if missing and record.get("upgraded_from"):
        notes.append((PROVENANCE, f"an older record ({record['upgraded_from']}) without {', '.join(missing)}"))
    elif missing:
        failures.append((PROVENANCE, f"missing {', '.join(missing)}"))
    commit = (record.get("software") or {}).get("git_commit")
    if commit and not COMMIT.fullmatch(commit):
        failures.append((PROVENANCE, f"software.git_commit {commit!r} is not a 40-digit commit id"))
    elif commit:
        known = commits.known(commit)
        if known is False:
            failures.append((PROVENANCE, f"software.git_commit {commit} is not in this repository's history"))
        elif known is None:
            notes.append((PROVENANCE, "no git checkout at hand: the commit was not looked up"))
    if ((record.get("software") or {}).get("bytecode") or {}).get("framework_had_bytecode") is False:
        notes.append(
            (
                PROVENANCE,
                "the framework was imported without its bytecode: set-up and compile times include compiling its "
                "Python (make setup compiles it)",
            )
        )
    return failures, notes


def negative_figures(section: str, value: Any) -> list[str]:
    """``field = value`` of every negative or NaN number under ``value`` (a field of ``DIFFERENCES``: NaN only)."""
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in negative_figures(f"{section}.{key}", item)]
    if isinstance(value, list):
        return [found for i, item in enumerate(value) for found in negative_figures(f"{section}[{i}]", item)]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return []
    return [f"{section} = {value}"] if math.isnan(value) or (value < 0 and section not in DIFFERENCES) else []


def peak_table(record: dict[str, Any]) -> str | None:
    """The ``device_peaks.json`` table of the precision that ran: float32 for fp32 (true float32, TF32 off), whatever
    the record says; for another policy the table its MFU names (``mfu.peak_table``, written by the runners)."""
    policy = (record.get("precision") or {}).get("policy")
    return FP32_TABLE if policy == "fp32" else (record.get("mfu") or {}).get("peak_table")


def peak_of(record: dict[str, Any], references: References) -> float | None:
    """The device's peak FLOP/s for the precision that ran, from the shipped table; None when unknown."""
    hardware = record.get("hardware") or {}
    if hardware.get("device_kind") == "cpu":  # a CPU has no peak in the table: its MFU is null
        return None
    return references.peaks.get(peak_table(record) or "", {}).get(hardware.get("device_name"))


def physical(record: dict[str, Any], references: References) -> tuple[list[Finding], list[Finding]]:
    """No figure negative or NaN, no epoch seconds or throughput of 0; images/s equal to images per epoch ÷ epoch
    seconds; allocator peak ≤ NVML peak ≤ the device's memory (where the record says it); MFU ≤ 1 against the
    device's peak for the dtype that ran."""
    problems = [
        f"{found} is negative or NaN" for s in MEASURED_SECTIONS for found in negative_figures(s, record.get(s))
    ]
    notes = []
    timing, memory, config = record.get("timing") or {}, record.get("memory") or {}, record["config"]
    (rate, unit), seconds = throughput(timing), timing.get("epoch_seconds")
    images = config["images_per_epoch"]
    if images != config["steps_per_epoch"] * config["batch_size"]:
        problems.append(f"config.images_per_epoch {images} is not steps_per_epoch × batch_size")
    # a run that ended ok trained for some time at some rate: a zero is no measurement (a negative fails above)
    problems += [
        f"timing.{name} is 0 in a run that ended ok"
        for name in ("epoch_seconds", *THROUGHPUT_FIELDS)
        if timing.get(name) == 0
    ]
    samples = images * samples_per_item(record)  # the GPT's throughput counts the tokens of its sequences
    if rate and seconds and not math.isclose(rate * seconds, samples, rel_tol=RATE_TOLERANCE):
        problems.append(f"{unit} {rate:.6g} × epoch seconds {seconds:.6g} is not the {samples} samples per epoch")
    allocator, nvml = memory.get("allocator_peak_bytes"), memory.get("nvml_process_peak_bytes")
    if allocator is not None and nvml is not None and allocator > nvml:
        problems.append(f"the allocator's peak {allocator:,} bytes is above NVML's {nvml:,}")
    device_memory = (record.get("hardware") or {}).get("device_memory_bytes")
    if nvml is not None and device_memory is not None and nvml > device_memory:
        problems.append(f"NVML's peak {nvml:,} bytes is above the device's {device_memory:,}")
    if rate:
        problems += mfu_problems(record, rate, references, notes)
    return [(PHYSICAL, p) for p in problems], notes


def samples_per_item(record: dict[str, Any]) -> int:
    """Samples in one item of a batch: an image is one; a GPT sequence holds its context's tokens."""
    return (record["model"].get("sizes") or {}).get("context", 1)


def mfu_problems(record: dict[str, Any], rate: float, references: References, notes: list[Finding]) -> list[str]:
    """MFU above 1, recomputed from fwbench's FLOPs per sample (image or token) and the device's peak, or as
    recorded."""
    recorded = (record.get("mfu") or {}).get("value")
    problems = [f"recorded MFU {recorded:.3g} is above 1"] if recorded is not None and recorded > 1 else []
    peak = peak_of(record, references)
    if peak is None:
        device = (record.get("hardware") or {}).get("device_name")
        notes.append((PHYSICAL, f"MFU not checked: no known {peak_table(record)} peak for {device}"))
        return problems
    model = model_reference(record, references) or {}
    flops, unit = next(
        ((v, k.removeprefix("flops_per_")) for k, v in model.items() if k.startswith("flops_per_")), (0, "")
    )
    mfu = 3 * flops * rate / peak
    if mfu > 1:
        problems.append(f"{rate:,.0f} {unit}s/s is MFU {mfu:.2f} against the device's peak {peak:.3g} FLOP/s")
    return problems


def same_work(record: dict[str, Any], references: References) -> tuple[list[Finding], list[Finding]]:
    """The model's size is fwbench's, and the first losses lie within the precision's bound of the reference
    trajectory. A record without losses (written before the field), a configuration without a reference (CIFAR-10,
    another size) or a precision without a bound is not checkable for the same work: a note."""
    workload = record["model"].get("workload")
    model = model_reference(record, references)
    if model is None:
        return [(SAME_WORK, f"model.workload {workload!r} is none of fwbench's ({', '.join(references.models)})")], []
    problems = [
        f"model.{name} {record['model'].get(name)} is not fwbench's {value}"
        for name, value in model.items()
        if record["model"].get(name) != value
    ]
    losses = (record.get("training") or {}).get("first_losses")
    policy = (record.get("precision") or {}).get("policy")
    key = record_key(record["config"])
    reference = references.trajectories.get(key) if key else None
    note = None
    if losses is None:
        note = "not checkable: the record has no first losses (written before training.first_losses)"
    elif model != references.models[workload]:  # the trajectories are of each workload's default size
        note = f"not checkable: no reference trajectory for {record['model']['name']}"
    elif reference is None:
        note = f"not checkable: no reference trajectory for {'/'.join(map(str, key or ()))}"
    elif policy not in references.bounds:
        note = f"not checkable: no bound for precision {policy!r} yet"
    else:
        problems += loss_problems(losses, reference, references.bounds[policy], policy)
    return [(SAME_WORK, p) for p in problems], [(SAME_WORK, note)] if note else []


def model_reference(record: dict[str, Any], references: References) -> dict[str, int] | None:
    """What the record's model must say to be fwbench's: its named size's fields (by ``model.name``), else its
    workload's; None for a workload fwbench has not."""
    model = record["model"]
    return references.models.get(model.get("name") or "") or references.models.get(model.get("workload") or "")


def loss_problems(losses: list[float], reference: list[float], bounds: list[float], policy: str) -> list[str]:
    """Each first loss farther from its reference than its step's bound (relative; ``bounds[i]`` for step i, the last
    one beyond them), and a count other than the reference's."""
    if len(losses) != len(reference):
        return [f"training.first_losses holds {len(losses)} losses, the reference {len(reference)}"]
    found = []
    for i, (loss, ref) in enumerate(zip(losses, reference, strict=True)):
        bound = bounds[min(i, len(bounds) - 1)]
        if not abs(loss - ref) <= bound * abs(ref):
            found.append(
                f"training.first_losses[{i}] = {loss:.6g} is {abs(loss - ref) / abs(ref):.1e} from the reference "
                f"{ref:.6g} (bound {bound:.0e} for {policy})"
            )
    return found
