"""``generator check``'s derivations: every field of a run record that the runner computes from other fields of the
same record (``replay``), every fact a record states twice, its times in order and its bounded fields within their
bounds (docs/design.md, "Submissions", lists them). Each disagreement is one ``replay.Mismatch``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from fwbench.frameworks import REGISTRY
from generator.records.replay import Bound, Mismatch, lookup, replayed, same_within_tolerance, shown
from runners.frameworks.precision import PRECISION_POLICIES, REFERENCE_PRECISION
from runners.measure import machine_load
from runners.measure.cpu_identity import identity_hash
from runners.measure.provenance import first_installed, hardware_machine_id
from runners.measure.run import window_sizes

#: the flags (``Trainer.precision_flags``) that report the dtype a model computes in; null: its inputs', float32
COMPUTE_DTYPE_FLAGS = (
    "torch.get_autocast_dtype",
    "flax.nnx.Conv.dtype",
    "flax.nnx.Linear.dtype",
    "keras.layers.Conv2D.dtype_policy.compute_dtype",
    "keras.layers.Dense.dtype_policy.compute_dtype",
)
#: the flags that report the dtype the variables are kept in: float32 under every policy (master weights)
VARIABLE_DTYPE_FLAGS = (
    "torch.nn.Parameter.dtype",
    "flax.nnx.Param.dtype",
    "keras.layers.Conv2D.dtype_policy.variable_dtype",
    "keras.layers.Dense.dtype_policy.variable_dtype",
    "keras.config.floatx",
)
#: the TF32 switches as the fp32 policy leaves them: true float32, TF32 off (``runners.frameworks.precision``)
FP32_SWITCHES = {
    "torch.backends.cudnn.allow_tf32": False,
    "torch.backends.cuda.matmul.allow_tf32": False,
    "torch.get_float32_matmul_precision": "highest",
    "tf.config.experimental.tensor_float_32_execution_enabled": False,
    "jax_default_matmul_precision": "highest",
}


def timing_shape(record: dict[str, Any]) -> list[Mismatch]:
    """One epoch time per epoch, the windows ``runners.measure.run.window_sizes`` makes of each epoch's steps, their
    count and their kept times, the epochs' accuracy rows numbered 1, 2, …"""
    timing, config = record["timing"], record["config"]
    found = []
    each = timing.get("epoch_seconds_each")
    if each is not None and len(each) != config["epochs"]:
        stored, wanted = Bound(f"{len(each)} epochs"), Bound(f"{config['epochs']} epochs")
        found.append(Mismatch("timing.epoch_seconds_each", stored, wanted, "config.epochs"))
    windows = timing.get("window_steps")
    if windows is not None:
        expected = window_sizes(config["steps_per_epoch"]) * config["epochs"]
        if windows != expected:
            found.append(Mismatch("timing.window_steps", windows, expected, "runners.measure.run.window_sizes"))
    if windows is not None and timing.get("timed_windows") != len(windows):
        found.append(Mismatch("timing.timed_windows", timing.get("timed_windows"), len(windows), "timing.window_steps"))
    kept = timing.get("window_step_seconds")
    if windows is not None and kept is not None and len(kept) != len(windows):
        stored, wanted = Bound(f"{len(kept)} windows"), Bound(f"{len(windows)} windows")
        found.append(Mismatch("timing.window_step_seconds", stored, wanted, "timing.window_steps"))
    rows = (record.get("accuracy") or {}).get("epochs") or []
    numbers = [row.get("epoch") for row in rows]
    if numbers != list(range(1, config["epochs"] + 1)):
        found.append(Mismatch("accuracy.epochs", numbers, list(range(1, config["epochs"] + 1)), "epoch numbers"))
    return found


#: below these rules (a record's ``rules``, runners/measure/protocol.py RECORD_RULES) the end sample judged every run,
#: beside the start sample and the mean over the timed region
END_SAMPLE_RULES_BELOW = 2
#: below these rules a run was busy above a quarter of a core (``machine_load.EARLIER_CORE_SHARE``): such a record may
#: state either share, and is replayed by the one it states
QUARTER_CORE_RULES_BELOW = 3


def load_flags(record: dict[str, Any]) -> list[Mismatch]:
    """The busy flag and its threshold, from the load samples (``machine_load.load_section``). A record of timing
    protocol 1 states the threshold of its older rule: its flag is recomputed against that; one of rules below
    ``QUARTER_CORE_RULES_BELOW`` by a quarter of a core where it states that threshold; one of rules below
    ``END_SAMPLE_RULES_BELOW`` counts the end sample as well."""
    load = record.get("load")
    if not load:
        return []
    start, end, during = load["start"], load["end"], load.get("during_clock")
    shares = [machine_load.BUSY_CORE_SHARE]
    if record["rules"] < QUARTER_CORE_RULES_BELOW:
        shares.append(machine_load.EARLIER_CORE_SHARE)
    stated = load["threshold_cpu_percent"]
    share = next(
        (s for s in shares if same_within_tolerance(machine_load.busy_threshold(start["cpu_count"], s), stated)),
        shares[0],
    )
    replay = machine_load.load_section(start, end, load["waited_seconds"], during, core_share=share)
    if record.get("protocol", 1) < 2:
        replay["threshold_cpu_percent"] = load["threshold_cpu_percent"]
    if record["rules"] < END_SAMPLE_RULES_BELOW:
        share = max(machine_load.judged_share(start, end, None), machine_load.judged_share(start, end, during))
        replay["busy"] = share > replay["threshold_cpu_percent"]
    return [
        Mismatch(f"load.{name}", load[name], replay[name], "from the load samples")
        for name in ("busy", "threshold_cpu_percent")
        if not same_within_tolerance(load[name], replay[name])
    ]


def hardware_ids(record: dict[str, Any]) -> list[Mismatch]:
    """The machine id from the hardware (``provenance.hardware_machine_id``), the fingerprint's hash from its fields
    (``cpu_identity.identity_hash``), and a CPU run's device as its CPU model."""
    hardware, found = record.get("hardware") or {}, []
    fingerprint = hardware.get("fingerprint")
    if fingerprint and fingerprint.get("hash"):
        identity = {k: v for k, v in fingerprint.items() if k not in ("kernel", "hash")}
        if fingerprint["hash"] != identity_hash(identity):
            found.append(Mismatch("hardware.fingerprint.hash", fingerprint["hash"], identity_hash(identity)))
    # a record upgraded from before the fingerprint was recorded had an id without it
    fingerprinted = "hardware.fingerprint" not in record.get("missing", ())
    if hardware.get("machine_id") and hardware.get("cpu_model") is not None and fingerprinted:
        expected = hardware_machine_id(hardware)
        if hardware["machine_id"] != expected:
            found.append(Mismatch("hardware.machine_id", hardware["machine_id"], expected, "from the hardware"))
    if hardware.get("device_kind") == "cpu" and hardware.get("device_name") != hardware.get("cpu_model"):
        found.append(Mismatch("hardware.device_name", hardware.get("device_name"), hardware.get("cpu_model")))
    return found


def stated_twice(record: dict[str, Any]) -> list[Mismatch]:
    """The framework's version and its distributions' in the package list (``provenance.first_installed``); the
    precision policy in ``config`` and in ``precision``; the policy and the flags read back: the compute dtype they
    report is the policy's, the variables float32, and under fp32 every TF32 switch off."""
    found = []
    name, version = record["framework"]["name"], record["framework"]["version"]
    packages = (record.get("software") or {}).get("packages") or {}
    if name in REGISTRY and any(d in packages for d in REGISTRY[name].distributions):
        listed = first_installed({d: packages.get(d) for d in REGISTRY[name].distributions})
        if listed != version:
            found.append(Mismatch("framework.version", version, listed, "software.packages"))
    precision = record.get("precision") or {}
    policy = precision.get("policy")
    if record["config"].get("precision") != policy:
        found.append(Mismatch("config.precision", record["config"].get("precision"), policy, "precision.policy"))
    flags = precision.get("flags") or {}
    wanted = {flag: PRECISION_POLICIES.get(policy) for flag in COMPUTE_DTYPE_FLAGS}
    wanted |= dict.fromkeys(VARIABLE_DTYPE_FLAGS, "float32")
    wanted |= FP32_SWITCHES if policy == REFERENCE_PRECISION else {}
    for flag, value in flags.items():
        read = "float32" if flag in COMPUTE_DTYPE_FLAGS and value is None else value
        if flag in wanted and read != wanted[flag]:
            found.append(Mismatch(f"precision.flags.{flag}", value, wanted[flag], f"precision.policy {policy}"))
    return found


def parse_time(text: str) -> datetime | None:
    """A record's timestamp (``fwbench.timestamps.utc_now``'s form) as an aware datetime; None when it is none."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def times_in_order(record: dict[str, Any], commit_date: datetime | None, now: datetime | None = None) -> list[Mismatch]:
    """Started no later than finished, finished no later than now, started no earlier than the commit it ran
    (``commit_date``; None where it cannot be read)."""
    started, finished = parse_time(record["started_at"]), parse_time(record["finished_at"])
    unreadable = [name for name, moment in (("started_at", started), ("finished_at", finished)) if moment is None]
    if unreadable:
        return [Mismatch(name, record[name], Bound("an ISO 8601 time in UTC")) for name in unreadable]
    now = now or datetime.now(timezone.utc)
    found = []
    if started > finished:
        found.append(Mismatch("finished_at", record["finished_at"], Bound(f"≥ {record['started_at']}"), "started_at"))
    if finished > now:
        found.append(Mismatch("finished_at", record["finished_at"], Bound(f"≤ {now:%Y-%m-%dT%H:%M:%SZ}"), "now"))
    if commit_date is not None and started < commit_date:
        when = commit_date.astimezone(timezone.utc)
        found.append(
            Mismatch("started_at", record["started_at"], Bound(f"≥ {when:%Y-%m-%dT%H:%M:%SZ}"), "the commit's date")
        )
    return found


def memory_bounds(record: dict[str, Any]) -> list[Mismatch]:
    """The host peak counts the children's; the whole run's NVML peak is at least each phase's."""
    memory, found = record.get("memory") or {}, []
    host, children = memory.get("host_peak_rss_bytes"), memory.get("host_children_peak_rss_bytes")
    if host is not None and children is not None and host < children:
        found.append(
            Mismatch("memory.host_peak_rss_bytes", host, Bound(f"≥ {children}"), "host_children_peak_rss_bytes")
        )
    nvml = memory.get("nvml_process_peak_bytes")
    phases = [(p or {}).get("nvml_peak_bytes") for p in (memory.get("phases") or {}).values()]
    phase_peak = max((p for p in phases if p is not None), default=None)
    if nvml is not None and phase_peak is not None and nvml < phase_peak:
        found.append(Mismatch("memory.nvml_process_peak_bytes", nvml, Bound(f"≥ {phase_peak}"), "memory.phases"))
    return found


def kernel_twice(record: dict[str, Any]) -> list[Mismatch]:
    """The kernel release in ``software.os`` (``platform.release()``) is the CPU fingerprint's ``kernel``."""
    kernel = ((record.get("hardware") or {}).get("fingerprint") or {}).get("kernel")
    system = (record.get("software") or {}).get("os") or ""
    if kernel and system and f" {kernel} (" not in system:
        return [Mismatch("hardware.fingerprint.kernel", kernel, Bound(f"the release in software.os {system!r}"))]
    return []


#: (field, the field it cannot exceed): a p90 is no smaller than its median, a mean no larger than its peak, a
#: place in the matrix's order within its count
NOT_ABOVE = (
    ("timing.step_seconds_median", "timing.step_seconds_p90"),
    ("load.during_clock.mean_other_cpu_percent", "load.during_clock.peak_other_cpu_percent"),
    ("config.run_order.position", "config.run_order.total"),
)


def within(record: dict[str, Any]) -> list[Mismatch]:
    """Each ``NOT_ABOVE`` pair in order, where the record has both."""
    found = []
    for low, high in NOT_ABOVE:
        below, above = lookup(record, low), lookup(record, high)
        if isinstance(below, int | float) and isinstance(above, int | float) and below > above:
            found.append(Mismatch(high, above, Bound(f"≥ {shown(below)}"), low))
    return found


def mismatches(record: dict[str, Any], commit_date: datetime | None) -> list[Mismatch]:
    """Every derivation over one valid run record: the disagreements."""
    found = replayed(record) + hardware_ids(record) + stated_twice(record) + load_flags(record)
    found += times_in_order(record, commit_date) + kernel_twice(record) + within(record)
    if record["status"] == "ok":
        found += timing_shape(record) + memory_bounds(record)
    return found
