"""``generator check``'s replay: the fields of a run record that the runner computes from other fields of the same
record, recomputed with the runner's own functions (docs/design.md, "Submissions", lists them), and the
``Mismatch`` every check of ``derivations`` reports.

The record is replayed: its configuration rebuilt as a ``runners.measure.profiles.RunConfig`` from its ``config``,
``framework``, ``precision`` and ``model``, its raw measurements (each epoch's seconds, the first step's, the median
step, the per-epoch accuracy, the memory phases, the precision flags) gathered into a
``runners.measure.record.Measured``, and ``runners.measure.record.ok_record`` run over them; every field in ``REPLAYED``
of the replay must equal the record's. The step times' median and p90 come from per-window times that records keep since
protocol 3; an earlier record's replay is given its median for every window: what the median derives (its compile
time) is recomputed, the median and p90 themselves are not. Each disagreement is one ``Mismatch``: the field, the
value stored, the value recomputed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from runners.measure.profiles import RunConfig
from runners.measure.record import Measured, base_record, ok_record
from runners.measure.run import window_sizes

#: floats recomputed in the runner's own order of operations agree to the last bits; JSON keeps them exactly
RELATIVE_TOLERANCE = 1e-9
#: the fields ``ok_record`` (``base_record`` for a run that failed) derives, compared with the replay's where the
#: record has them (an upgraded record lacks some)
REPLAYED = (
    "record_id",
    "config.images_per_epoch",
    "config.steps_per_epoch",
    "config.lr_schedule",
    "config.tuning_environment",
    "precision.compute_dtype",
    "model.name",
    "model.trainable_params",
    "model.flops_per_image",
    "model.macs_per_image",
    "model.flops_per_token",
    "model.sizes",
    "timing.epoch_seconds",
    "timing.images_per_second",
    "timing.tokens_per_second",
    "timing.compile_seconds",
    "timing.step_seconds_median",
    "timing.step_seconds_p90",
    "timing.article_epoch_seconds",
    "accuracy.final_test_accuracy",
    "accuracy.final_train_loss",
    "memory.allocator_peak_bytes",
    "mfu.value",
    "mfu.peak_flops_per_second",
    "mfu.peak_table",
    "mfu.basis",
    "mfu.reason",
)


#: the figures derived from the timed windows' times: replayed only where the record keeps them (protocol 3)
WINDOW_FIGURES = ("timing.step_seconds_median", "timing.step_seconds_p90")


@dataclass(frozen=True)
class Mismatch:
    """A field whose stored value is not the one recomputed from the record's other fields."""

    field: str
    stored: Any
    recomputed: Any
    why: str = ""

    def text(self) -> str:
        """``field: stored X, recomputed Y (why)``."""
        why = f" ({self.why})" if self.why else ""
        return f"{self.field}: stored {shown(self.stored)}, recomputed {shown(self.recomputed)}{why}"


class Bound(str):
    """What a field must be where it is bounded rather than recomputed (``≥ 2026-12-01T10:00:00Z``): printed as is."""


def shown(value: Any) -> str:
    """A value as the line prints it: floats to 10 significant digits, strings quoted (a ``Bound`` as it is)."""
    if isinstance(value, Bound):
        return str(value)
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(value) if isinstance(value, str) else str(value)


def same_within_tolerance(stored: Any, recomputed: Any) -> bool:
    """Equal, floats to ``RELATIVE_TOLERANCE`` (also inside lists and dicts); a bool is never a number."""
    if isinstance(stored, float | int) and isinstance(recomputed, float | int):
        if isinstance(stored, bool) or isinstance(recomputed, bool):
            return stored is recomputed
        return math.isclose(stored, recomputed, rel_tol=RELATIVE_TOLERANCE)
    if isinstance(stored, list) and isinstance(recomputed, list):
        return len(stored) == len(recomputed) and all(map(same_within_tolerance, stored, recomputed))
    if isinstance(stored, dict) and isinstance(recomputed, dict):
        return stored.keys() == recomputed.keys() and all(
            same_within_tolerance(stored[k], recomputed[k]) for k in stored
        )
    return stored == recomputed


MISSING = object()


def lookup(record: dict[str, Any], dotted: str) -> Any:
    """The value at a dotted field name, ``MISSING`` where a section or the key is absent."""
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


#: the rules (a record's ``rules``, runners/measure/protocol.py RECORD_RULES) from which a configuration's id hashes
#: its timing protocol (``record_id_given``)
PROTOCOL_HASHED_FROM_RULES = 4


def run_config(record: dict[str, Any]) -> RunConfig:
    """The configuration the record ran, as ``runners run`` had it (ValueError where the runners make none such)."""
    config = record["config"]
    return RunConfig(
        framework=record["framework"]["name"],
        framework_version=record["framework"]["version"],
        mode=record["framework"]["mode"],
        batch_size=config["batch_size"],
        seed=config["seed"],
        profile=config["profile"],
        dataset=config["dataset"],
        epochs=config["epochs"],
        train_images=config["train_images"],
        test_images=config["test_images"],
        device=config["device"],
        tuning=tuple((config.get("tuning_environment") or {}).items()),
        sized_for=config.get("sized_for"),
        repeat=config.get("repeat") or 0,
        precision=record["precision"]["policy"],
        min_timed_steps=config.get("min_timed_steps") or 1,
        workload=record["model"]["workload"],
        size=config.get("size"),
        attention=config.get("attention"),
        timing_protocol=record.get("protocol"),
    )


def record_id_given(record: dict[str, Any], config: RunConfig) -> str:
    """The id the runner gave the record: its configuration's, which hashes the timing protocol; a record of rules
    below ``PROTOCOL_HASHED_FROM_RULES`` may carry the id without it, as ids were then."""
    unhashed = replace(config, timing_protocol=None).record_id
    if record["rules"] < PROTOCOL_HASHED_FROM_RULES and record.get("record_id") == unhashed:
        return unhashed
    return config.record_id


def measured(record: dict[str, Any], steps: int) -> Measured:
    """The raw measurements ``ok_record`` made the record from, as far as it keeps them (module docstring), its
    epochs of ``steps`` steps split into windows as ``runners.measure.run`` splits them (``timing_shape`` compares the
    record's own split)."""
    timing, memory = record["timing"], record["memory"]
    windows = window_sizes(steps) * len(timing["epoch_seconds_each"])
    phases = memory.get("phases") or {}
    first, timed = phases.get("first_step") or {}, phases.get("timed") or {}
    reset = timed.get("allocator_peak_bytes") is not None
    reserved = memory.get("allocator_reserved_bytes")
    allocator = timed["allocator_peak_bytes"] if reset else memory.get("allocator_peak_bytes")
    children = memory.get("host_children_peak_rss_bytes") or 0
    return Measured(
        first_step_seconds=timing["first_step_seconds"],
        rerun_step_seconds=timing.get("rerun_step_seconds"),
        epoch_seconds=timing["epoch_seconds_each"],
        window_step_seconds=window_times(timing, len(windows)),
        window_steps=windows,
        epochs=record["accuracy"]["epochs"],
        framework_memory={"allocator_peak_bytes": allocator, "allocator_reserved_bytes": reserved},
        nvml_peak_bytes=memory.get("nvml_process_peak_bytes"),
        host_self_peak_bytes=memory["host_peak_rss_bytes"] - children,
        host_children_peak_bytes=children,
        data_bytes=memory["data_bytes"],
        load=record.get("load"),
        run_order=record["config"].get("run_order"),
        first_step_memory={"allocator_peak_bytes": first.get("allocator_peak_bytes")} if reset else None,
        memory_peaks_reset=reset,
        precision_flags=(record.get("precision") or {}).get("flags"),
        compile_cache=timing.get("compile_cache"),
    )


def window_times(timing: dict[str, Any], count: int) -> list[float]:
    """The per-step seconds of ``count`` timed windows: kept in the record since protocol 3; an earlier record's
    median for every window (also where the kept ones are not ``count``: ``timing_shape`` reports that)."""
    kept = timing.get("window_step_seconds")
    return kept if kept and len(kept) == count else [timing["step_seconds_median"]] * count


def unreplayable(record: dict[str, Any]) -> str | None:
    """Why the record cannot be replayed (an upgraded record lacking what the replay needs), None when it can."""
    needed = ["config.train_images", "model.workload", "hardware"]
    if record["status"] == "ok":
        needed += [f"timing.{name}" for name in ("first_step_seconds", "step_seconds_median", "epoch_seconds_each")]
        needed += ["accuracy.epochs", "memory.host_peak_rss_bytes", "memory.data_bytes"]
    lacking = [name for name in needed if lookup(record, name) in (None, MISSING, [])]
    return f"without {', '.join(lacking)}" if lacking else None


def replayed(record: dict[str, Any]) -> list[Mismatch]:
    """The ``REPLAYED`` fields that disagree with the runner's replay of the record (none where it cannot be
    replayed: ``unreplayable``)."""
    if unreplayable(record):
        return []
    try:
        config = run_config(record)
    except ValueError as exc:
        return [Mismatch("config", Bound("as recorded"), Bound("no configuration the runners make"), str(exc))]
    args = (config, record["hardware"], record["started_at"], record["finished_at"])
    if record["status"] == "ok":
        steps = config.epoch_train_images // config.batch_size
        replay = ok_record(*args, measured(record, steps), software=record["software"], command=record["command"])
    else:
        replay = base_record(*args[:2], record["software"], *args[2:], record["command"])
    replay["record_id"] = record_id_given(record, config)
    found = []
    for name in REPLAYED:
        stored, recomputed = lookup(record, name), lookup(replay, name)
        if stored is MISSING or recomputed is MISSING or name in record.get("missing", ()):
            continue
        if name in WINDOW_FIGURES and not record["timing"].get("window_step_seconds"):
            continue  # derived from window times the record does not keep
        if not same_within_tolerance(stored, recomputed):
            found.append(Mismatch(name, stored, recomputed))
    return found
