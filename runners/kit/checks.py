"""The kit's cross-checks: pure functions of records, of ``runners env``'s output and of the forward probes'
captures, each returning one ``Check``. A check fails the kit; one that does not apply on the device reads "not
applicable on a CPU" (or TPU)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from runners.kit.plan import SCALING_BATCHES, VERDICT_RUNS
from runners.matrix.comparisons import comparisons
from runners.matrix.store import runs_here
from runners.measure.profiles import RunConfig
from runners.workloads.resnet18 import parity

#: a forward probe's (logits by name, what the device and NVML said), or why the probe failed
Capture = tuple[dict, dict] | str


@dataclass(frozen=True)
class Check:
    """One verdict: ``ok`` True (pass), False (fail) or None (not applicable), with what was seen."""

    name: str
    subject: str
    ok: bool | None
    detail: str

    @property
    def outcome(self) -> str:
        return {True: "pass", False: "FAIL", None: "n/a"}[self.ok]


# the checks' names
ENV = "env: GPU, driver, CUDA, cuDNN"
PEAK_TABLE = "device_peaks.json names the device"
STATUS = "run ok"
DEVICE = "ran on the device asked for"
COMPILE = "compile > 0, steady step < first"
NVML = "NVML peak or its reason"
ALLOCATOR = "allocator peak <= NVML"
MFU = "MFU in (0, 1)"
SCALING = "images/s bs256 > bs32"
PARITY = "float32 forward parity"
SITE = "site builds"
MEASURED = "runs made by this call"
VERDICT = "decided: ahead or about equal, or undecided at the rounds asked for"
#: the per-run checks that apply on some devices only, and where: NVML and the allocator's peak are a GPU's
DEVICE_CHECKS = {NVML: ("gpu",), ALLOCATOR: ("gpu",), MFU: ("gpu", "tpu")}
#: why an undecided comparison's line says it stopped
VERDICT_STOPPED = "the kit's budget spent: the kit again on this machine goes on"
NOT_RUN = "not run: the time budget was spent (optional)"
#: tests/runners/test_parity.py's bound on float32 compiled logits (max |a - b| / max |b|)
FORWARD_PARITY_BOUND = 1e-4


def not_applicable(device: str) -> str:
    """A check's detail where it does not apply on ``device``."""
    return f"not applicable on a {device.upper()}"


def mib(value: float | None) -> str:
    return "—" if value is None else f"{value / 2**20:,.0f} MiB"


def subject(profile: str, framework: str, mode: str, batch_size: int, precision: str = "fp32") -> str:
    """``profile framework/mode bsN``, with the precision policy after it unless fp32: which run a check speaks of."""
    return f"{profile} {framework}/{mode} bs{batch_size}" + ("" if precision == "fp32" else f" {precision}")


def subject_of(record: dict) -> str:
    return subject(
        record["config"]["profile"],
        record["framework"]["name"],
        record["framework"]["mode"],
        record["config"]["batch_size"],
        record["config"]["precision"],
    )


def config_subject(config: RunConfig) -> str:
    return subject(config.profile, config.framework, config.mode, config.batch_size, config.precision)


def check_env(env: dict) -> Check:
    """``runners env`` on a GPU names the GPU, its driver, CUDA and cuDNN."""
    hardware = env["hardware"]
    fields = {
        "GPU": hardware.get("device_name"),
        "driver": hardware.get("gpu_driver"),
        "CUDA": hardware.get("cuda"),
        "cuDNN": hardware.get("cudnn"),
    }
    missing = [name for name, value in fields.items() if not value]
    on_gpu = hardware.get("device_kind") == "gpu"
    detail = ", ".join(f"{name} {value}" for name, value in fields.items() if value)
    detail += f"; missing: {', '.join(missing)}" if missing else ""
    return Check(ENV, "runners env", on_gpu and not missing, detail if on_gpu else f"NVML sees no GPU; {detail}")


def normalised(name: str) -> str:
    return " ".join(name.casefold().replace("nvidia", "").replace("-", " ").split())


def check_peak_table(device_name: str | None, peaks: dict[str, float]) -> Check:
    """device_peaks.json has an entry under exactly the name the GPU or TPU reports (``mfu.peak_flops`` matches names
    as reported, so a near miss means a null MFU); a near miss is named."""
    if device_name in peaks:
        return Check(PEAK_TABLE, str(device_name), True, f"{peaks[device_name]:.3g} FLOP/s float32")
    near = [n for n in peaks if device_name and normalised(n) == normalised(device_name)] or difflib.get_close_matches(
        device_name or "", list(peaks), n=1, cutoff=0.6
    )
    hint = f"; nearest entry {near[0]!r}: add the name as reported, with its own data-sheet figure" if near else ""
    return Check(PEAK_TABLE, str(device_name), False, f"no entry {device_name!r}: MFU would be null{hint}")


def check_status(record: dict) -> Check:
    """The run finished (status ok); else its failure."""
    failure = record.get("failure") or {}
    detail = (
        "ok"
        if record["status"] == "ok"
        else f"{record['status']}: {failure.get('exception_type')}: {(failure.get('message') or '')[:300]}"
    )
    return Check(STATUS, subject_of(record), record["status"] == "ok", detail)


def check_device(record: dict, device: str) -> Check:
    """The run trained on ``device`` (cpu, gpu or tpu), not silently on another."""
    hardware = record["hardware"]
    return Check(
        DEVICE,
        subject_of(record),
        hardware["device_kind"] == device,
        f"{hardware['device_kind']}: {hardware['device_name']}",
    )


def check_compile(record: dict) -> Check:
    """Compile time is positive and a steady step is faster than the first (trace, compile, autotune, run)."""
    timing = record["timing"]
    first, steady, compile_s = timing["first_step_seconds"], timing["step_seconds_median"], timing["compile_seconds"]
    return Check(
        COMPILE,
        subject_of(record),
        compile_s > 0 and steady < first,
        f"compile {compile_s:.2f} s; first step {first:.3f} s, steady {steady * 1e3:.2f} ms",
    )


def check_nvml(record: dict, reason: str | None) -> Check:
    """The NVML process peak is there, or null with ``reason`` (why NVML cannot see the process, from the probe of
    the same framework); null without a reason fails."""
    peak = record["memory"]["nvml_process_peak_bytes"]
    if peak:
        return Check(NVML, subject_of(record), True, mib(peak))
    if reason:
        return Check(NVML, subject_of(record), True, f"null: {reason}")
    return Check(
        NVML,
        subject_of(record),
        False,
        "null, with no reason: the probe saw its own process through NVML "
        "(or no probe ran), so the run's sampler missed it",
    )


def check_allocator(record: dict) -> Check:
    """The framework allocator's peak fits in what NVML saw of the process (context and caches come on top)."""
    memory = record["memory"]
    allocator, nvml = memory["allocator_peak_bytes"], memory["nvml_process_peak_bytes"]
    if nvml is None:
        return Check(ALLOCATOR, subject_of(record), None, "NVML peak null: nothing to compare with")
    if allocator is None:
        return Check(ALLOCATOR, subject_of(record), False, "the allocator reported no peak on a GPU")
    return Check(ALLOCATOR, subject_of(record), allocator <= nvml, f"{mib(allocator)} <= {mib(nvml)}")


def check_mfu(record: dict, peaks: dict[str, dict[str, float]]) -> Check:
    """MFU is computed from the device_peaks.json entry of the device the run reports, in the table of the precision
    that ran (``mfu.peak_table``; float32 in records before it), and lies in (0, 1)."""
    mfu, name = record.get("mfu") or {}, record["hardware"]["device_name"]
    table = mfu.get("peak_table") or "float32"
    value, used, peak = mfu.get("value"), mfu.get("peak_flops_per_second"), peaks.get(table, {}).get(name)
    if value is None:
        why = (
            f"device_peaks.json's {table} table has no entry {name!r}"
            if peak is None
            else f"although device_peaks.json's {table} table has {name!r}"
        )
        return Check(MFU, subject_of(record), False, f"null: {why}")
    table_says = f"{peak:.3g} {table}" if peak else "no entry"
    return Check(
        MFU,
        subject_of(record),
        0 < value < 1 and used == peak,
        f"{value:.3f} of {used:.3g} FLOP/s ({name}; table: {table_says})",
    )


def check_scaling(records: list[dict], batches: tuple[int, int] = SCALING_BATCHES) -> list[Check]:
    """Per framework and mode of the quick runs: images/s at the larger batch above the smaller."""
    speeds: dict[str, dict[int, float | None]] = {}
    for record in records:
        if record["config"]["profile"] == "quick" and record["config"]["batch_size"] in batches:
            key = f"quick {record['framework']['name']}/{record['framework']['mode']}"
            ok = record["status"] == "ok"
            speeds.setdefault(key, {})[record["config"]["batch_size"]] = (
                record["timing"]["images_per_second"] if ok else None
            )
    checks = []
    for key, by_batch in speeds.items():
        small, large = (by_batch.get(b) for b in batches)
        if small is None or large is None:
            missing = [f"bs{b}" for b in batches if by_batch.get(b) is None]
            checks.append(Check(SCALING, key, False, f"no ok run at {', '.join(missing)}"))
        else:
            checks.append(Check(SCALING, key, large > small, f"{large:,.0f} vs {small:,.0f} images/s"))
    return checks


def check_verdicts(configs: list[RunConfig], runs_dir: Path, runs_each: int = VERDICT_RUNS) -> list[Check]:
    """Each comparison of ``configs`` (by batch size, mode and precision), from every run of them under ``runs_dir``,
    as the matrix judges it (``runners.matrix.comparisons``): decided passes, undecided fails, and one with fewer than
    two frameworks (PyTorch's eager runs) has nothing to decide; the detail is the matrix's line for it."""
    machines = sorted(p.name for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    checks = []
    for found in comparisons(configs, runs_here(configs, runs_dir, machines), runs_each):
        where = f"{configs[0].profile} {found.mode} bs{found.batch_size} {found.precision}"
        detail = found.line(VERDICT_STOPPED, with_mode=True)
        detail += f" (n={found.ranked[0].n})" if len(found.ranked) == 1 else ""
        checks.append(Check(VERDICT, where, None if found.status is None else found.decided, detail))
    return checks


def check_parity(pair: str, report: dict[str, float], bound: float = FORWARD_PARITY_BOUND) -> Check:
    """Two frameworks' float32 logits (train and eval mode) within ``bound`` of each other."""
    worst = max(report.values())
    return Check(
        PARITY, pair, worst < bound, ", ".join(f"{k} {v:.1e}" for k, v in report.items()) + f" (bound {bound:.0e})"
    )


def record_checks(
    record: dict, device: str, peaks: dict[str, dict[str, float]], nvml_reason: str | None
) -> list[Check]:
    """Every per-run check of ``record``, those that do not apply on ``device`` (``DEVICE_CHECKS``) not applicable."""
    status = check_status(record)
    if not status.ok:
        return [status]
    checks = [status, check_device(record, device), check_compile(record)]
    device_checks = [
        (NVML, lambda: check_nvml(record, nvml_reason)),
        (ALLOCATOR, lambda: check_allocator(record)),
        (MFU, lambda: check_mfu(record, peaks)),
    ]
    return checks + [
        check() if device in DEVICE_CHECKS[name] else Check(name, subject_of(record), None, not_applicable(device))
        for name, check in device_checks
    ]


def env_checks(env: dict | None, device: str, peaks: dict[str, dict[str, float]]) -> list[Check]:
    """The machine's checks: what ``runners env`` shows of a GPU, and the peak table's entry for its GPU or TPU."""
    if device == "cpu":
        return [
            Check(ENV, "runners env", None, not_applicable(device)),
            Check(PEAK_TABLE, "—", None, not_applicable(device)),
        ]
    if env is None:
        return [Check(ENV, "runners env", False, "runners env failed (see the log)")]
    found = check_env(env) if device == "gpu" else Check(ENV, "runners env", None, not_applicable(device))
    return [found, check_peak_table(env["hardware"]["device_name"], peaks["float32"])]


def run_checks(
    runs: list[tuple[RunConfig, dict | str]],
    device: str,
    peaks: dict[str, dict[str, float]],
    reasons: dict[str, str | None],
    optional: frozenset[str] = frozenset(),
    scaling: frozenset[str] | None = None,
) -> list[Check]:
    """Every run's checks (a missing record fails, or is not applicable where its config id is ``optional``), then
    the batch-size scaling across the runs whose config ids are in ``scaling`` (None: all)."""
    checks = []
    for config, record in runs:
        if isinstance(record, dict):
            checks += record_checks(record, device, peaks, reasons.get(config.framework))
        else:
            skipped = config.config_id in optional
            checks.append(
                Check(STATUS, config_subject(config), None if skipped else False, NOT_RUN if skipped else record)
            )
    records = [r for c, r in runs if isinstance(r, dict) and (scaling is None or c.config_id in scaling)]
    scaled = check_scaling(records) if device == "gpu" else [Check(SCALING, "quick", None, not_applicable(device))]
    return checks + scaled


#: a configuration's reason for no record where the matrix never ran it (``runners.kit.steps.find_record``)
NOT_REACHED = "no record (the matrix did not get to it)"


def measured_check(runs: list[tuple[RunConfig, dict | str]]) -> Check:
    """Whether this call measured anything, and if not, why: a kit whose every configuration already had its runs (a
    matrix resumes them) must not pass checks over records it did not make, and one whose matrix started nothing
    before the deadline says so, not that the runs were made before."""
    made = sum(isinstance(record, dict) for _, record in runs)
    if made:
        return Check(MEASURED, "this call", True, f"{made} of {len(runs)} configurations measured by this call")
    if any(record == NOT_REACHED for _, record in runs):
        why = (
            "the matrix started no run before the kit's deadline (its 'not started' lines give the time each "
            "comparison's rounds need); give the kit more minutes (KIT_MINUTES) or fewer rounds (KIT_REPEATS)"
        )
    else:
        why = (
            "every configuration already had its runs under the results folder (a matrix resumes them); give a "
            "fresh --results folder or more repeats"
        )
    return Check(MEASURED, "this call", False, f"measured nothing: {why}")


def parity_checks(captures: dict[str, Capture]) -> tuple[list[Check], list[dict]]:
    """Forward parity of every pair of frameworks whose probe ran, and its figures for the table."""
    names = list(captures)
    checks, rows = [], []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pair = f"{a} vs {b}"
            if isinstance(captures[a], str) or isinstance(captures[b], str):
                checks.append(
                    Check(PARITY, pair, False, "; ".join(c for c in (captures[a], captures[b]) if isinstance(c, str)))
                )
                continue
            (la, _), (lb, _) = captures[a], captures[b]
            report = {key: parity.relative_difference(la[key], lb[key]) for key in ("logits.train", "logits.eval")}
            checks.append(check_parity(pair, report))
            rows.append({"pair": pair, **report, "bound": FORWARD_PARITY_BOUND})
    if len(names) < 2:
        checks.append(Check(PARITY, " ".join(names) or "—", None, "needs two frameworks"))
    return checks, rows
