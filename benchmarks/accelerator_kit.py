"""The accelerator kit (issues 17 and 53): prove fwbench's code paths on a borrowed GPU or TPU, and bring back its
records, verdicts and site, in one offline call of a few minutes.

Usage: python benchmarks/accelerator_kit.py --out DIR [--device auto|gpu|tpu|cpu] [--profiles quick,precisions,...]
       [--plan "MATRIX ARGS;MATRIX ARGS"] [--repeats N] [--frameworks a,b] [--budget SECONDS | --deadline TIME]
       [--results DIR]

Steps, each in its own process as the benchmark runs them: ``runners env``; on a GPU or CPU a float32 forward pass of
every framework present on the device (parity, and whether NVML sees the process); then the matrices. On a GPU or
CPU by default ``PLAN``'s ``runners matrix`` calls: the quick profile at batch 32 and 256, compiled and eager (JAX:
compiled only), at quick's precision on the device (each framework's ``default`` on a GPU), once each; PyTorch and JAX
compiled at bf16, batch 256; the GPT's quick-gpt profile; the verdicts: quick's configurations again, warm, until each
has run 3 times, so that every comparison is decided (a verdict needs n = 3); then, if time allows, bf16 at 32 and
strict fp32 at 256 (the bf16 ÷ fp32 pair of ``benchmarks/precision_ratio.py``). ``--profiles smoke`` runs the smoke
profile instead (the tests' run on a CPU). On a TPU by default, or anywhere with ``--plan``, the plan's matrices
instead: ``runners matrix`` arguments separated by ";", run in order, ``--repeats`` rounds each (an entry's own
``--repeats`` wins), all under one deadline (no run starts that would end past it; an entry without a minute left
is a "no time left for:" line, and the kit again on the same machine goes on). Then the cross-checks below and
``generator build`` over the results folder. Records go to ``--results``'s ``runs/`` (default DIR/results); the
site, ``env.json``, ``accelerator_kit.log``, ``accelerator_kit.txt`` (the table) and ``accelerator_kit.json`` to DIR.

A check fails the kit (exit 1): a run not ok or not on the device asked for; compile time not > 0 or a steady step
not faster than the first; on a GPU a null NVML process peak without a reason, an allocator peak above the NVML peak,
images/s at batch 256 not above batch 32, forward logits further apart than tests/runners/test_parity.py allows in
float32; on a GPU or TPU a null MFU or one outside (0, 1), or no device_peaks.json entry under the device's name; a
comparison of a repeated matrix still undecided when the time is spent (the kit again on the same machine goes on).
Checks that do not apply on the device read "not applicable on a CPU" (or TPU). Frameworks not importable are
reported as skipped, with the reason. Where MkDocs is missing, the site is skipped with one line saying so.

Runs with a bare ``python3`` from the repository root (nothing installed but the frameworks' stack): the repository
goes on the path, and where jsonschema or MkDocs is missing, the carried folder that ``make gpu-kit`` builds
(``build/gpu-kit``, or $FWBENCH_KIT_DIR) too, for this process and its children. ``benchmarks/accelerator_kit.sh`` is
the one call of a borrowed machine around it (the installs on a TPU, a clean worktree, the packing).
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KIT_DIR_ENV = "FWBENCH_KIT_DIR"
#: modules the site needs beyond the frameworks' stack
SITE_MODULES = ("mkdocs", "material", "mkdocs_gen_files", "pymdownx")
#: modules the kit needs beyond the frameworks' stack: records (jsonschema) and the site
KIT_MODULES = ("jsonschema", *SITE_MODULES)


def missing_modules(names: tuple[str, ...] = KIT_MODULES) -> list[str]:
    """The top-level modules among ``names`` that this interpreter cannot find (none is imported)."""
    return [name for name in names if importlib.util.find_spec(name) is None]


def kit_paths(repo: Path, kit_dir: Path, missing: list[str]) -> list[str]:
    """What goes before the interpreter's own packages: the repository, and the carried folder only where a module
    is missing — elsewhere its wheels, built for the borrowed machine's Python, would shadow the installed packages."""
    return [str(repo)] + ([str(kit_dir)] if missing and kit_dir.is_dir() else [])


KIT_PATHS = kit_paths(REPO, Path(os.environ.get(KIT_DIR_ENV) or REPO / "build" / "gpu-kit"), missing_modules())
sys.path[:0] = [p for p in KIT_PATHS if p not in sys.path]
try:
    import jsonschema  # noqa: F401  every record is validated: nothing runs without it
except ImportError as exc:
    sys.exit(
        f"accelerator_kit: jsonschema cannot be imported ({exc}); carried folder: {KIT_PATHS[1:] or 'none'}. "
        f"Build it for this Python ({sys.version_info.major}.{sys.version_info.minor}) with `make gpu-kit` where pip "
        "works and carry it (RUNNING.md, 'Accelerator kit')"
    )

import numpy as np  # noqa: E402

from fwbench.cliargs import (  # noqa: E402
    UsageError,
    add_frameworks_flag,
    csv_of,
    future_moment,
    positive_float,
)
from fwbench.frameworks import framework, measured_on  # noqa: E402
from fwbench.records import RecordError, read_record, throughput  # noqa: E402
from fwbench.timestamps import utc_iso_seconds  # noqa: E402
from runners.cli import build_parser as runners_parser  # noqa: E402
from runners.executors.local import LocalExecutor  # noqa: E402
from runners.matrix.comparisons import comparisons  # noqa: E402
from runners.matrix.repeats import repeats_of, repeats_value  # noqa: E402
from runners.matrix.store import run_paths, runs_here  # noqa: E402
from runners.measure.config_flags import chosen_profile, profile_overrides  # noqa: E402
from runners.measure.gpu_memory import NvmlPeakSampler  # noqa: E402
from runners.measure.profiles import DEVICES, RunConfig, expand, load_profiles, resolve_device  # noqa: E402
from runners.measure.record import SCHEMA as RUN_SCHEMA  # noqa: E402
from runners.measure.run import framework_environment  # noqa: E402
from runners.workloads.resnet18 import arch, data, parity  # noqa: E402


@dataclass(frozen=True)
class Step:
    """One ``runners matrix`` call of the kit, for its ``part`` (``--profiles``): a profile narrowed by the matrix's
    flags (None: the profile's), each configuration run ``repeats`` times (the runs already made count, so a step
    that repeats an earlier one's configurations makes only their repeats); an ``optional`` step's configurations may
    go unrun when the time is spent."""

    part: str
    profile: str
    batch_sizes: tuple[int, ...] | None = None
    modes: tuple[str, ...] | None = None
    precision: str | None = None
    frameworks: tuple[str, ...] | None = None
    optional: bool = False
    repeats: int = 1


PRECISION_FRAMEWORKS = ("torch", "jax")
#: runs of each configuration that the verdicts part asks for: the verdict rule's n (a verdict needs 3 runs of each)
VERDICT_RUNS = 3
#: the kit's matrix calls in the order they run, each in its part. quick: the two ends of the batch sizes, both modes,
#: at the profile's precision (a GPU: each framework's default; no extra precisions), once each. precisions: bf16 for
#: PyTorch and JAX at batch 256, then at 32 and strict fp32 at 256 (its reference) if time allows. transformer: the
#: GPT's quick-gpt profile, one batch size (64 sequences of 256 tokens on a GPU), PyTorch and JAX. verdicts: quick's
#: configurations again, with warm compile caches, until each has VERDICT_RUNS runs, so that every comparison ends
#: decided (a fixed count, not ``--repeats auto``: PyTorch's eager runs have no rival in their mode, and its
#: compiled-against-eager pay-off needs n = 3 of both); it runs before the optional precisions, which time may drop.
#: smoke: the smoke profile, for the kit's run on a CPU (the tests); on a GPU quick covers the same code paths.
PLAN = (
    Step("quick", "quick", (32, 256), ("compiled", "eager")),
    Step("precisions", "quick", (256,), ("compiled",), "bf16", PRECISION_FRAMEWORKS),
    Step("transformer", "quick-gpt", modes=("compiled",), frameworks=PRECISION_FRAMEWORKS),
    Step("verdicts", "quick", (32, 256), ("compiled", "eager"), optional=True, repeats=VERDICT_RUNS),
    Step("precisions", "quick", (32,), ("compiled",), "bf16", PRECISION_FRAMEWORKS, optional=True),
    Step("precisions", "quick", (256,), ("compiled",), "fp32", PRECISION_FRAMEWORKS, optional=True),
    Step("smoke", "smoke"),
)
PARTS = tuple(dict.fromkeys(step.part for step in PLAN))
DEFAULT_PARTS = tuple(part for part in PARTS if part != "smoke")


def steps_of(part: str) -> tuple[Step, ...]:
    """The matrix calls of one part of the kit, in the order they run."""
    return tuple(step for step in PLAN if step.part == part)


#: a TPU's default plan (``--plan``): the GPT's quick matrix, then ResNet-18's, for JAX and PyTorch via torchax
TPU_PLAN = "--profile quick-gpt;--profile quick"
#: rounds of each plan entry's matrix unless the entry gives its own ``--repeats``: a sitting decides a pair from three
PLAN_REPEATS = 3
#: a plan entry starts only with this much of the deadline left; else the kit again on the same machine runs it
ENTRY_MIN_S = 60.0


def plan_entries(plan: str) -> list[list[str]]:
    """``--plan``'s matrices in order: each entry's ``runners matrix`` arguments (entries separated by ";")."""
    return [entry.split() for entry in plan.split(";") if entry.strip()]


def entry_command(arguments: list[str], device: str, repeats: int | str, deadline: str, runs: Path) -> list[str]:
    """The ``runners matrix`` call of one plan entry: ``repeats`` rounds unless the entry gives its own ``--repeats``
    (given after, it wins), no run ending past ``deadline``, its records under ``runs``."""
    head = [sys.executable, "-m", "runners.cli", "matrix", "--device", device, "--repeats", str(repeats)]
    return [*head, *arguments, "--deadline", deadline, "--no-progress", "--out", str(runs)]


def entry_configs(arguments: list[str], device: str, repeats: int | str, version_of) -> tuple[list[RunConfig], int]:
    """The configurations a plan entry's matrix runs on ``device``, expanded as ``runners matrix`` expands them (same
    record ids), and the rounds its verdicts are judged at (its ``--repeats``, else ``repeats``; auto: the profile's
    cap). The matrix's own parser reads the entry: arguments it would refuse stop the kit before anything runs."""
    args = runners_parser().parse_args(["matrix", "--device", device, "--repeats", str(repeats), *arguments])
    profile = chosen_profile(args)
    lists = {"frameworks": args.frameworks, "modes": args.modes, "batch_sizes": args.batch_sizes, "seeds": args.seeds}
    configs = expand(profile, version_of=version_of, **lists, **profile_overrides(args))
    return configs, repeats_of(load_profiles()[profile], args.repeats).runs


SCALING_BATCHES = steps_of("quick")[0].batch_sizes  # on a GPU, images/s must rise from the first to the second
#: tests/runners/test_parity.py's bound on float32 compiled logits (max |a - b| / max |b|)
FORWARD_PARITY_BOUND = 1e-4
DEFAULT_BUDGET_S = 450.0  # within the 8 minutes on one GPU, the site and the packing included
#: kept back from the runs for `generator build` where MkDocs is there (3 s for a few records on a 2-core CPU, 15 s
#: over the whole results folder)
SITE_RESERVE_S = 60.0
ENV_TIMEOUT_S = 60.0
CAPTURE_TIMEOUT_S = 180.0
PEAKS_FILE = REPO / "runners" / "measure" / "device_peaks.json"
NOT_RUN = "not run: the time budget was spent (optional)"


def not_applicable(device: str) -> str:
    """A check's detail where it does not apply on ``device``."""
    return f"not applicable on a {device.upper()}"


# --- cross-checks: pure functions of records, each returning one Check -------------------------------------------


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
    """device_peaks.json has an entry under exactly the name the GPU or TPU reports (``record.peak_flops`` matches names
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


def nvml_null_reason(pid: int, processes: list[tuple[int, int | None]] | None) -> str | None:
    """Why NVML gives no memory for process ``pid`` while it holds GPU memory, from NVML's list of (pid, used
    bytes) of compute processes (None: NVML unusable); None when NVML does see it."""
    if processes is None:
        return "NVML cannot be queried (no driver library)"
    pids = sorted({p for p, _ in processes})
    if not pids:
        return "NVML lists no compute process although this one holds GPU memory: the sandbox hides processes"
    if pid not in pids:
        return f"NVML lists PIDs {pids[:8]} but not this process's {pid}: a PID namespace of its own"
    if all(used is None for p, used in processes if p == pid):
        return "NVML lists the process without its memory (usedGpuMemory not available)"
    return None


# --- the forward-pass probe (a child process per framework) -----------------------------------------------------

#: a probe's (logits by name, what the device and NVML said), or why the probe failed
Capture = tuple[dict, dict] | str


def nvml_processes() -> list[tuple[int, int | None]] | None:
    """(pid, used bytes) of every compute process NVML lists on any GPU; None when NVML cannot be queried."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return None
    try:
        return [
            (p.pid, p.usedGpuMemory)
            for i in range(pynvml.nvmlDeviceGetCount())
            for p in pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(i))
        ]
    finally:
        pynvml.nvmlShutdown()


def forward_capture(name: str, device: str, out: Path) -> None:
    """In a child: framework ``name``'s logits (eval and train mode) on ``device`` for
    runners.workloads.resnet18.parity's weights and one batch, to ``out`` (.npz), and what the device and NVML said, to
    ``out`` with .json."""
    from runners.frameworks.trainer import make_trainer

    weights = arch.init_weights(0, random_bn=True)  # random BN statistics make every BN field matter
    dataset = data.synthetic(parity.PARITY_BATCH, parity.PARITY_BATCH)
    images, labels = data.epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, parity.PARITY_BATCH)
    with NvmlPeakSampler() as nvml:
        trainer = make_trainer(name, weights, "compiled", device)
        ((x, _),) = trainer.to_device(images, labels)
        logits = {"logits.eval": trainer.logits(x, training=False), "logits.train": trainer.logits(x, training=True)}
    info = trainer.device_info()
    reason = nvml_null_reason(os.getpid(), nvml_processes()) if info["device_kind"] == "gpu" else None
    np.savez(out, **logits)
    out.with_suffix(".json").write_text(json.dumps({**info, "nvml_peak_bytes": nvml.peak_bytes, "nvml_reason": reason}))


# --- running the steps: child processes, their output in the log, within the budget -----------------------------


class Kit:
    """One run of the kit: its output directory, where its records go (``results``'s runs/; default OUT/results), its
    log, budget and the environment its children get; ``reserve``: the seconds kept back from the runs for the site
    (none where MkDocs is missing: no site is built)."""

    def __init__(self, out: Path, budget_s: float, results: Path | None = None):
        self.out, self.runs = out, (results or out / "results") / "runs"  # as `generator build` reads it
        self.deadline = time.monotonic() + budget_s
        self.started = datetime.now(UTC)  # records that started before it were not made by this call
        self.reserve = 0.0 if missing_modules(SITE_MODULES) else SITE_RESERVE_S
        self.runs.mkdir(parents=True, exist_ok=True)
        self.log_file = (out / "accelerator_kit.log").open("w", encoding="utf-8")
        self.env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join([*KIT_PATHS, *filter(None, [os.environ.get("PYTHONPATH")])]),
        }

    def say(self, text: str) -> None:
        """Print ``text`` and keep it in the log."""
        print(text, flush=True)
        self.log_file.write(text + "\n")
        self.log_file.flush()

    def left(self, reserve: float = 0.0) -> float:
        """Seconds of the budget left, less ``reserve``."""
        return self.deadline - time.monotonic() - reserve

    def deadline_iso(self, reserve: float = 0.0) -> str:
        """The end of the budget, less ``reserve``, as ``runners matrix --deadline`` takes it."""
        return utc_iso_seconds(time.time() + self.left(reserve))

    def child(self, command: list[str], timeout_s: float, env: dict | None = None) -> tuple[int | None, str]:
        """Run ``command`` from the repository root, its output streamed to the log; (exit code or None when it
        ran past ``timeout_s`` and its process group was killed, its output)."""
        self.say(f"$ {' '.join(command)}")
        if timeout_s <= 0:
            self.say("  not started: the time budget is spent")
            return None, ""
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        lines: list[str] = []

        def pump() -> None:
            for line in process.stdout:
                lines.append(line)
                self.say("  " + line.rstrip("\n"))

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:  # the matrix's configurations die with it (parent-death signal, reaper)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
            self.say(f"  killed after {timeout_s:.0f} s: the time budget is spent")
        reader.join(timeout=10)
        return code, "".join(lines)


def env_step(kit: Kit) -> dict | None:
    """``runners env`` as JSON (also saved as env.json); None when it failed."""
    kit.say("== runners env")
    command = [sys.executable, "-m", "runners.cli", "env"]
    try:  # not through Kit.child: a warning on stderr must not end up in the JSON
        done = subprocess.run(
            command,
            cwd=REPO,
            env=kit.env,
            capture_output=True,
            text=True,
            timeout=min(ENV_TIMEOUT_S, max(1.0, kit.left())),
        )
        env = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        kit.say(f"runners env: no answer within {ENV_TIMEOUT_S:.0f} s")
        return None
    except json.JSONDecodeError:
        kit.say(f"runners env failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        return None
    kit.say(done.stdout.rstrip())
    (kit.out / "env.json").write_text(done.stdout)
    return env


def capture_step(kit: Kit, frameworks: list[str], device: str, executor: LocalExecutor) -> dict[str, Capture]:
    """Each framework's forward probe in a fresh process of the interpreter that runs its configurations:
    {framework: (logits, device and NVML info) or why it failed}."""
    kit.say(f"== float32 forward pass on the {device} (parity, and whether NVML sees the process)")
    captures: dict[str, Capture] = {}
    with tempfile.TemporaryDirectory(prefix="accelerator-kit-") as tmp:
        for name in frameworks:
            out = Path(tmp) / f"{name}.npz"
            env = {**kit.env, **framework_environment(device, str(Path(tmp) / f"cache-{name}"))}
            command = [
                executor.python_for(name),
                str(Path(__file__).resolve()),
                "--forward-capture",
                name,
                "--device",
                device,
                "--out",
                str(out),
            ]
            code, output = kit.child(command, min(CAPTURE_TIMEOUT_S, kit.left(kit.reserve)), env)
            if code == 0:
                with np.load(out) as arrays:
                    captures[name] = (dict(arrays), json.loads(out.with_suffix(".json").read_text()))
            else:
                last = (output.strip().splitlines() or ["no output"])[-1][:300]
                captures[name] = f"{name} probe failed ({'timeout' if code is None else f'exit {code}'}): {last}"
    return captures


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


def step_frameworks(step: Step, present: list[str]) -> list[str]:
    """The frameworks a step runs: those it names that are present (all present when it names none)."""
    return [name for name in present if step.frameworks is None or name in step.frameworks]


def matrix_step(kit: Kit, step: Step, frameworks: list[str], device: str) -> None:
    """``runners matrix`` over ``step``'s profile, narrowed by its flags, for ``frameworks``: each configuration
    ``step.repeats`` times, within the budget."""
    command = [
        sys.executable,
        "-m",
        "runners.cli",
        "matrix",
        "--profile",
        step.profile,
        "--frameworks",
        ",".join(frameworks),
        "--out",
        str(kit.runs),
        "--device",
        device,
        "--no-progress",
        "--timeout",
        f"{max(1.0, kit.left(kit.reserve)):.0f}",
        # the matrix starts no run that would end past the kit's time
        "--repeats",
        str(step.repeats),
        "--budget",
        f"{max(1.0, kit.left(kit.reserve)) / 60:.2f}",
    ]
    for flag, values in (("--batch-sizes", step.batch_sizes), ("--modes", step.modes)):
        command += [flag, ",".join(map(str, values))] if values else []
    command += ["--precision", step.precision] if step.precision else []
    kit.child(command, kit.left(kit.reserve))


def expected_configs(step: Step, frameworks: list[str], device: str, executor: LocalExecutor) -> list[RunConfig]:
    """The configurations ``matrix_step`` asks for, as ``runners matrix`` expands them (same record ids): without a
    precision the profile's on the device, without its extra precisions."""
    return expand(
        step.profile,
        version_of=executor.framework_version,
        frameworks=frameworks,
        modes=step.modes and list(step.modes),
        batch_sizes=step.batch_sizes and list(step.batch_sizes),
        device=None if device == "auto" else device,
        precision=step.precision,
        extra_precisions=None if step.precision else {},
    )


def find_record(runs: Path, config: RunConfig, since: datetime | None = None) -> dict | str:
    """The newest record of any run of ``config`` (first run or repeat) under ``runs`` (any machine folder), or why
    there is none: a later sitting numbers its runs after the earlier ones' (``runners.matrix.store``). With
    ``since``, a record that started before it was not made by this call, and is reported as such, never checked."""
    machines = [folder for folder in runs.iterdir() if folder.is_dir()] if runs.is_dir() else []
    paths = sorted((p for folder in machines for p in run_paths(config, folder)), key=lambda p: p.stat().st_mtime)
    if not paths:
        return "no record (the matrix did not get to it)"
    try:
        record = read_record(paths[-1], kind=RUN_SCHEMA)
    except RecordError as exc:
        return str(exc)
    if since is not None and datetime.fromisoformat(record["started_at"]) < since:
        return f"not measured by this call: its newest record started {record['started_at']}, before it"
    return record


def measured_check(runs: list[tuple[RunConfig, dict | str]]) -> Check:
    """Whether this call measured anything: a kit whose every configuration already had its runs (a matrix resumes
    them) must not pass checks over records it did not make."""
    made = sum(isinstance(record, dict) for _, record in runs)
    if made:
        return Check(MEASURED, "this call", True, f"{made} of {len(runs)} configurations measured by this call")
    return Check(
        MEASURED,
        "this call",
        False,
        "measured nothing: every configuration already had its runs under the results folder (a matrix resumes "
        "them); give a fresh --results folder or more repeats",
    )


def site_step(kit: Kit) -> Check:
    """``generator build`` over the results folder, into OUT/site; skipped, with one line, where MkDocs is missing."""
    kit.say("== generator build")
    missing = missing_modules(SITE_MODULES)
    if missing:
        why = f"skipped: {', '.join(missing)} not importable and no carried folder provides it (make gpu-kit)"
        kit.say(f"accelerator_kit: no site: {why}")
        return Check(SITE, "generator build", None, why)
    command = [
        sys.executable,
        "-m",
        "generator.cli",
        "build",
        "--results",
        str(kit.runs.parent),
        "--site-dir",
        str(kit.out / "site"),
    ]
    code, output = kit.child(command, kit.left())  # the time kept back for it; past it the packing's would go
    built = code == 0 and (kit.out / "site" / "index.html").is_file()
    return Check(
        SITE,
        "generator build",
        built,
        f"{kit.out / 'site'}" if built else (output.strip().splitlines() or ["no output"])[-1][:300],
    )


# --- the table --------------------------------------------------------------------------------------------------


def table(header: list[str], rows: list[list[str]], right: tuple[int, ...] = ()) -> str:
    """Plain-text columns, those in ``right`` (the figures) right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def run_row(config: RunConfig, record: dict | str) -> list[str]:
    """One run's figures for the table (— where a figure is unknown)."""
    head = [f"{config.profile} {config.framework}", config.mode, str(config.batch_size), config.precision]
    if isinstance(record, str) or record["status"] != "ok":
        return head + [record if isinstance(record, str) else record["status"]] + ["—"] * 6
    timing, memory, mfu = record["timing"], record["memory"], (record.get("mfu") or {}).get("value")
    rate, unit = throughput(timing)
    return head + [
        "ok",
        f"{rate:,.0f} {unit}",
        f"{timing['compile_seconds']:.1f}",
        f"{timing['step_seconds_median'] * 1e3:.2f}",
        mib(memory["allocator_peak_bytes"]),
        mib(memory["nvml_process_peak_bytes"]),
        "—" if mfu is None else f"{mfu:.3f}",
    ]


RUN_HEADER = [
    "profile framework",
    "mode",
    "batch",
    "precision",
    "status",
    "throughput",
    "compile s",
    "step ms",
    "allocator peak",
    "NVML peak",
    "MFU",
]


def report(
    runs: list[tuple[RunConfig, dict | str]],
    parity_rows: list[dict],
    checks: list[Check],
    skipped: dict[str, str],
    device: str,
) -> str:
    """The kit's whole result as text: runs, parity figures, checks, skipped frameworks and the tally."""
    parts = [f"runs on the {device}", table(RUN_HEADER, [run_row(c, r) for c, r in runs], (2, 5, 6, 7, 8, 9, 10))]
    if parity_rows:
        parts += [
            f"\nfloat32 forward parity on the {device} (max |a - b| / max |b|)",
            table(
                ["pair", "logits.train", "logits.eval", "bound"],
                [
                    [r["pair"], f"{r['logits.train']:.2e}", f"{r['logits.eval']:.2e}", f"{r['bound']:.0e}"]
                    for r in parity_rows
                ],
                (1, 2, 3),
            ),
        ]
    parts += [
        "\nchecks",
        table(["outcome", "check", "subject", "detail"], [[c.outcome, c.name, c.subject, c.detail] for c in checks]),
    ]
    parts += [f"skipped: {name} ({why})" for name, why in skipped.items()]
    tally = {label: sum(c.outcome == label for c in checks) for label in ("pass", "FAIL", "n/a")}
    parts.append(f"accelerator_kit: {tally['pass']} passed, {tally['FAIL']} failed, {tally['n/a']} not applicable")
    return "\n".join(parts)


# --- main -------------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where the site, table, env.json and log go")
    parser.add_argument(
        "--results",
        type=Path,
        help="the results folder whose runs/ the records go to, and the site is built from (default OUT/results)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default="auto",
        help="auto: the GPU when NVML sees one, else the TPU when this process can open one, else the CPU",
    )
    parser.add_argument(
        "--profiles",
        type=csv_of(str, PARTS),
        default=list(DEFAULT_PARTS),
        metavar="A,B",
        help=f"parts to run on a GPU or CPU without --plan, from {','.join(PARTS)} (default "
        f"{','.join(DEFAULT_PARTS)}; quick: batch 32 and 256, compiled and eager, once each; precisions: bf16 and "
        "fp32 of PyTorch and JAX on the quick profile; transformer: the GPT's quick-gpt profile, PyTorch and JAX; "
        f"verdicts: quick's configurations again until each has {VERDICT_RUNS} runs, so that each comparison is "
        "decided; smoke: the smoke profile, for a CPU)",
    )
    parser.add_argument(
        "--plan",
        metavar="'ARGS;ARGS'",
        help="the matrices to run instead of the parts: `runners matrix` arguments, entries separated by ';', run in "
        f"order under one deadline (default on a TPU: '{TPU_PLAN}'); give it as --plan='--profile quick;...'",
    )
    parser.add_argument(
        "--repeats",
        type=repeats_value,
        default=PLAN_REPEATS,
        metavar="N|auto",
        help=f"rounds of each plan entry's matrix, or auto (as runners matrix takes it); an entry's own --repeats wins "
        f"(default {PLAN_REPEATS})",
    )
    add_frameworks_flag(parser)
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--budget",
        type=positive_float,
        default=DEFAULT_BUDGET_S,
        metavar="SECONDS",
        help="wall-clock budget of the whole kit; what would start after it is reported as not run "
        f"(default {DEFAULT_BUDGET_S:.0f})",
    )
    when.add_argument(
        "--deadline",
        type=future_moment,
        metavar="TIME",
        help="the kit's end instead of --budget (ISO 8601 with its zone: 2026-12-06T05:10:00Z)",
    )
    parser.add_argument("--forward-capture", metavar="FRAMEWORK", help=argparse.SUPPRESS)  # the probe's child
    return parser.parse_args(argv)


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


@dataclass
class Matrices:
    """What the kit's matrices left to check: each configuration's newest record (or why there is none), the config
    ids whose missing record is not applicable (time may leave them unrun), those of the batch-size scaling, and the
    checks of whole matrices (their verdicts; an entry with no time left)."""

    runs: list[tuple[RunConfig, dict | str]] = field(default_factory=list)
    optional: set[str] = field(default_factory=set)
    scaling: set[str] = field(default_factory=set)
    checks: list[Check] = field(default_factory=list)


def run_parts(kit: Kit, parts: list[str], present: list[str], device: str, executor: LocalExecutor) -> Matrices:
    """``PLAN``'s steps of ``parts``, in order, for the frameworks ``present`` on ``device`` (as asked: auto too)."""
    found = Matrices()
    for step in (step for step in PLAN if step.part in parts):
        names = step_frameworks(step, present)
        kit.say(
            f"== runners matrix --profile {step.profile}"
            + (f" --precision {step.precision}" if step.precision else "")
            + (f" --repeats {step.repeats}" if step.repeats > 1 else "")
        )
        if not names:
            continue
        matrix_step(kit, step, names, device)
        configs = expected_configs(step, names, device, executor)
        if step.repeats > 1:  # its first runs are quick's, checked run by run there; here its comparisons
            found.checks += check_verdicts(configs, kit.runs, step.repeats)
            continue
        found.runs += [(c, find_record(kit.runs, c, kit.started)) for c in configs]
        found.optional |= {c.config_id for c in configs} if step.optional else set()
        found.scaling |= {c.config_id for c in configs} if step.part == "quick" else set()
    return found


#: a plan entry's line where the deadline left it no time
NO_TIME = "no time left for it: the kit again on this machine goes on"


def run_plan(kit: Kit, plan: list[tuple[list[str], list[RunConfig], int]], device: str, repeats: int | str) -> Matrices:
    """The plan's matrices (each entry's arguments, configurations and verdict rounds: ``entry_configs``) in order,
    each in what is left of the kit's one deadline, less the site's reserve; an entry with less than
    ``ENTRY_MIN_S`` left does not start. Time may leave any configuration unrun, so none is required."""
    found = Matrices()
    for arguments, configs, rounds in plan:
        entry = " ".join(arguments)
        if kit.left(kit.reserve) < ENTRY_MIN_S:
            kit.say(f"accelerator_kit: no time left for: {entry}")
            found.checks.append(Check(STATUS, entry, None, NO_TIME))
            continue
        kit.say(f"== runners matrix {entry}")
        kit.child(entry_command(arguments, device, repeats, kit.deadline_iso(kit.reserve), kit.runs), kit.left())
        found.runs += [(c, find_record(kit.runs, c, kit.started)) for c in configs]
        found.optional |= {c.config_id for c in configs}
        found.checks += check_verdicts(configs, kit.runs, rounds) if rounds > 1 else []
    return found


def run_kit(args: argparse.Namespace) -> int:
    """All the steps; exit 0 when no check failed, else 1 (2: a plan entry the matrix would refuse)."""
    device = resolve_device(args.device)
    executor = LocalExecutor()
    plan_text = args.plan or (TPU_PLAN if device == "tpu" else "")
    try:
        plan = [
            (a, *entry_configs(a, device, args.repeats, executor.framework_version)) for a in plan_entries(plan_text)
        ]
    except UsageError as exc:
        print(f"accelerator_kit: --plan: {exc}", file=sys.stderr)
        return 2
    budget = args.deadline - time.time() if args.deadline else args.budget
    kit = Kit(args.out.resolve(), budget, args.results and args.results.resolve())
    kit.say(
        f"accelerator_kit: device {device} ({args.device}), "
        + (f"plan {plan_text!r}, repeats {args.repeats}" if plan else f"profiles {','.join(args.profiles)}")
        + f", budget {budget:.0f} s, python {sys.executable}, path {os.pathsep.join(KIT_PATHS)}"
    )
    env = env_step(kit)
    peaks = json.loads(PEAKS_FILE.read_text())

    wanted = args.frameworks or list(measured_on(device))
    skipped = {
        name: f"{framework(name).import_name} is not importable by {executor.python_for(name)}"
        for name in wanted
        if not executor.available(name)
    }
    present = [name for name in wanted if name not in skipped]
    for name, why in skipped.items():
        kit.say(f"skipped: {name} ({why})")

    if device == "tpu":  # one process at a time holds the chip, and float32 is not a TPU's matmul precision
        captures, parity_found, parity_rows = {}, [Check(PARITY, "—", None, not_applicable(device))], []
    else:
        captures = capture_step(kit, present, device, executor)
        parity_found, parity_rows = parity_checks(captures)
    found = (
        run_plan(kit, plan, device, args.repeats)
        if plan
        else run_parts(kit, args.profiles, present, args.device, executor)
    )

    reasons = {name: c[1]["nvml_reason"] for name, c in captures.items() if not isinstance(c, str)}
    checks = [
        *env_checks(env, device, peaks),
        measured_check(found.runs),
        *run_checks(found.runs, device, peaks, reasons, frozenset(found.optional), frozenset(found.scaling)),
        *parity_found,
        *found.checks,
        site_step(kit),
    ]
    text = report(found.runs, parity_rows, checks, skipped, device)
    kit.say("\n" + text)
    (kit.out / "accelerator_kit.txt").write_text(text + "\n")
    summary = {
        "device": device,
        "env": env,
        "skipped": skipped,
        "parity": parity_rows,
        "checks": [asdict(c) | {"outcome": c.outcome} for c in checks],
        "runs": [dict(zip(RUN_HEADER, run_row(c, r), strict=True)) for c, r in found.runs],
    }
    (kit.out / "accelerator_kit.json").write_text(json.dumps(summary, indent=2) + "\n")
    kit.say(f"records in {kit.runs}, site in {kit.out / 'site'}, log {kit.log_file.name}")
    return 1 if any(c.ok is False for c in checks) else 0


def main(argv: list[str] | None = None) -> int:
    """Run the kit, or (``--forward-capture``) be one framework's forward probe."""
    args = parse_args(argv)
    if args.forward_capture:
        forward_capture(args.forward_capture, resolve_device(args.device), args.out)
        return 0
    return run_kit(args)


if __name__ == "__main__":
    sys.exit(main())
