"""The accelerator kit (runners.kit: ``runners kit`` and accelerator_kit.sh): each cross-check on hand-made records,
a TPU's plan of matrices with the matrix call faked, the GPU-only pieces of the runners it relies on (with NVML
faked), the shell entry with a stand-in python3 that records its calls (what a borrowed machine runs in one call), and
one whole run on the CPU, so that the kit cannot rot between loans of a GPU or TPU."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import types
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from fwbench.records import write_record
from runners.cli import build_parser as runners_parser
from runners.kit import carried
from runners.kit.call import SITE_RESERVE_S, KitCall
from runners.kit.carried import kit_paths, site_missing
from runners.kit.checks import (
    ALLOCATOR,
    COMPILE,
    DEVICE,
    ENV,
    FORWARD_PARITY_BOUND,
    MFU,
    NVML,
    SCALING,
    SITE,
    STATUS,
    VERDICT_STOPPED,
    Check,
    check_allocator,
    check_compile,
    check_device,
    check_env,
    check_mfu,
    check_nvml,
    check_peak_table,
    check_scaling,
    check_verdicts,
    env_checks,
    measured_check,
    not_applicable,
    parity_checks,
    record_checks,
    run_checks,
)
from runners.kit.cli import PEAKS_FILE
from runners.kit.forward_probe import nvml_null_reason
from runners.kit.plan import (
    DEFAULT_PARTS,
    ENTRY_MIN_S,
    PARTS,
    PLAN,
    PLAN_REPEATS,
    TPU_PLAN,
    VERDICT_RUNS,
    entry_configs,
    expected_configs,
    plan_entries,
    step_frameworks,
    steps_of,
)
from runners.kit.report import report
from runners.kit.steps import NO_TIME, matrix_step, run_plan, site_step
from runners.matrix.store import stored_path
from runners.measure import gpu_memory, provenance, run
from runners.measure.profiles import expand

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "generator"))
import gen_records  # noqa: E402


def kit_args(argv: list[str]) -> argparse.Namespace:
    """What ``runners kit`` makes of ``argv``."""
    return runners_parser().parse_args(["kit", *argv])


FLOAT32_PEAKS = {"NVIDIA H200": 6.7e13, "NVIDIA H100 PCIe": 5.1e13}
PEAKS = {"float32": FLOAT32_PEAKS, "bfloat16": {"NVIDIA H200": 9.895e14}}
GPU_ENV = {
    "hardware": {
        "device_kind": "gpu",
        "device_name": "NVIDIA H200",
        "gpu_driver": "580.159.04",
        "cuda": "13.0.96",
        "cudnn": "9.13.0.50",
    }
}


def gpu_record(framework: str = "torch", batch_size: int = 256, mode: str = "compiled", **changes) -> dict:
    """An ok quick run on an H200 whose figures pass every check; ``changes`` set fields by dotted path
    (``memory__nvml_process_peak_bytes=None``)."""
    record = gen_records.run(framework, batch_size, mode=mode, machine_id="nvidia-h200", nvml=6 << 30)
    record["memory"]["allocator_peak_bytes"] = 4 << 30
    record["timing"]["first_step_seconds"] = 30.0
    record["mfu"] = {"value": 0.4, "peak_flops_per_second": 6.7e13, "basis": "3 × forward FLOPs × images/s ÷ peak"}
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        section = record
        for key in parents:
            section = section[key]
        section[leaf] = value
    return record


# --- env and the peak table ----------------------------------------------------------------------------------------


def test_env_passes_with_gpu_driver_cuda_and_cudnn():
    check = check_env(GPU_ENV)
    assert check.ok and "NVIDIA H200" in check.detail and "cuDNN 9.13.0.50" in check.detail


def test_env_without_cudnn_fails_naming_it():
    env = copy.deepcopy(GPU_ENV)
    env["hardware"]["cudnn"] = None
    check = check_env(env)
    assert check.ok is False and check.detail.endswith("missing: cuDNN")


def test_env_on_a_machine_without_gpu_fails():
    env = {
        "hardware": {"device_kind": "cpu", "device_name": "AMD EPYC", "gpu_driver": None, "cuda": None, "cudnn": None}
    }
    assert check_env(env).ok is False


def test_peak_table_has_the_h200_under_the_name_nvml_reports():
    check = check_peak_table("NVIDIA H200", json.loads(PEAKS_FILE.read_text())["float32"])
    assert check.ok and "6.7e+13" in check.detail


@pytest.mark.parametrize("reported", ["NVIDIA H200 NVL", "nvidia h200", "NVIDIA-H200"])
def test_a_near_miss_in_the_peak_table_fails_naming_the_entry(reported):
    check = check_peak_table(reported, FLOAT32_PEAKS)
    assert check.ok is False and "nearest entry 'NVIDIA H200'" in check.detail


def test_an_unknown_gpu_fails_without_a_guess():
    check = check_peak_table("Radeon Instinct MI300X", FLOAT32_PEAKS)
    assert check.ok is False and "nearest" not in check.detail


# --- per-run checks ---------------------------------------------------------------------------------------------


def test_a_good_gpu_run_passes_every_check():
    checks = record_checks(gpu_record(), "gpu", PEAKS, nvml_reason=None)
    assert [c.name for c in checks] == [STATUS, DEVICE, COMPILE, NVML, ALLOCATOR, MFU]
    assert all(c.ok for c in checks), checks


def test_a_failed_run_fails_with_its_exception_and_nothing_else_is_checked():
    record = gen_records.run("torch", 256, status="oom", machine_id="nvidia-h200")
    (check,) = record_checks(record, "gpu", PEAKS, nvml_reason=None)
    assert check.name == STATUS and check.ok is False and "OutOfMemoryError" in check.detail


def test_a_run_on_the_cpu_when_the_gpu_was_asked_for_fails():
    record = gpu_record(hardware__device_kind="cpu")
    assert check_device(record, "gpu").ok is False


@pytest.mark.parametrize("changes", [{"timing__compile_seconds": 0.0}, {"timing__first_step_seconds": 0.001}])
def test_no_compile_time_or_a_first_step_no_slower_than_steady_fails(changes):
    assert check_compile(gpu_record(**changes)).ok is False


def test_nvml_peak_null_passes_only_with_a_reason():
    record = gpu_record(memory__nvml_process_peak_bytes=None)
    explained = check_nvml(record, "NVML lists PIDs [1] but not this process's 42: a PID namespace of its own")
    assert explained.ok and explained.detail.startswith("null: NVML lists")
    unexplained = check_nvml(record, None)
    assert unexplained.ok is False and "no reason" in unexplained.detail


def test_allocator_peak_above_nvml_fails():
    assert check_allocator(gpu_record(memory__allocator_peak_bytes=7 << 30)).ok is False


def test_allocator_check_is_not_applicable_without_an_nvml_peak_and_fails_without_an_allocator_peak():
    assert check_allocator(gpu_record(memory__nvml_process_peak_bytes=None)).ok is None
    assert check_allocator(gpu_record(memory__allocator_peak_bytes=None)).ok is False


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"mfu__value": None}, "null: device_peaks.json's float32 table has no entry 'NVIDIA H100 80GB HBM3'"),
        ({"mfu__value": 1.2}, "1.200"),
        ({"mfu__value": 0.0}, "0.000"),
        ({"mfu__peak_flops_per_second": 5.1e13}, "table: 6.7e+13 float32"),
        ({"mfu__peak_table": "bfloat16"}, "table: 9.9e+14 bfloat16"),
    ],
)
def test_mfu_null_outside_zero_one_or_from_another_peak_fails(changes, says):
    record = gpu_record(**changes)
    if changes.get("mfu__value", 0.4) is None:
        record["hardware"]["device_name"] = "NVIDIA H100 80GB HBM3"
    check = check_mfu(record, PEAKS)
    assert check.ok is False and says in check.detail


def test_mfu_of_a_bf16_run_is_checked_against_the_bfloat16_peak():
    record = gpu_record(mfu__peak_table="bfloat16", mfu__peak_flops_per_second=9.895e14, mfu__value=0.1)
    record["config"]["precision"] = "bf16"
    check = check_mfu(record, PEAKS)
    assert check.ok and check.subject == "quick torch/compiled bs256 bf16" and "bfloat16" in check.detail


def test_the_precisions_part_runs_bf16_and_fp32_of_torch_and_jax_at_256_first_then_what_time_allows():
    steps = steps_of("precisions")
    assert [(s.precision, s.batch_sizes, s.optional) for s in steps] == [
        ("bf16", (256,), False),
        ("bf16", (32,), True),
        ("fp32", (256,), True),
    ]
    assert step_frameworks(steps[0], ["torch", "tensorflow", "jax"]) == ["torch", "jax"]
    executor = types.SimpleNamespace(framework_version=lambda name: "1.0")
    configs = [c for s in steps for c in expected_configs(s, ["torch", "jax"], "gpu", executor.framework_version)]
    assert [(c.framework, c.precision, c.batch_size, c.mode) for c in configs] == [
        (f, p, b, "compiled") for p, b in (("bf16", 256), ("bf16", 32), ("fp32", 256)) for f in ("torch", "jax")
    ]
    (quick,) = steps_of("quick")  # quick at the profile's precision on the device, without its extra bf16 runs
    quick_configs = expected_configs(quick, ["torch"], "gpu", executor.framework_version)
    assert {(c.precision, c.batch_size, c.mode) for c in quick_configs} == {
        ("default", b, m) for b in (32, 256) for m in ("compiled", "eager")
    }


def test_the_verdicts_part_repeats_quicks_configurations_after_the_required_steps_and_before_the_optional_ones():
    assert [(s.part, s.optional) for s in PLAN] == [
        ("quick", False),
        ("precisions", False),
        ("transformer", False),
        ("verdicts", True),
        ("precisions", True),
        ("precisions", True),
        ("smoke", False),
    ]
    assert "smoke" not in DEFAULT_PARTS and set(DEFAULT_PARTS) | {"smoke"} == set(PARTS)
    executor = types.SimpleNamespace(framework_version=lambda name: "1.0")
    (quick,), (verdicts,) = steps_of("quick"), steps_of("verdicts")
    assert verdicts.repeats == VERDICT_RUNS == 3 and quick.repeats == 1
    assert expected_configs(verdicts, ["torch", "jax"], "gpu", executor.framework_version) == expected_configs(
        quick, ["torch", "jax"], "gpu", executor.framework_version
    )


def test_a_matrix_step_asks_for_its_steps_runs_within_the_kits_budget(tmp_path, monkeypatch):
    made = KitCall(tmp_path, budget_s=300)
    asked = []
    monkeypatch.setattr(made, "child", lambda command, timeout_s: asked.append((command, timeout_s)))
    matrix_step(made, steps_of("verdicts")[0], ["torch", "jax"], "gpu")
    command, timeout_s = asked[0]
    flags = {flag: value for flag, value in zip(command, command[1:], strict=False) if flag.startswith("--")}
    assert flags["--repeats"] == "3" and flags["--batch-sizes"] == "32,256" and flags["--modes"] == "compiled,eager"
    assert flags["--frameworks"] == "torch,jax" and 0 < float(flags["--budget"]) * 60 <= 300 - SITE_RESERVE_S
    assert timeout_s <= 300 - SITE_RESERVE_S


def repeated(config, rates: list[float]) -> list[dict]:
    """``config``'s first run and repeats at ``rates`` images/s, as ``runners run`` writes them."""
    return [
        gen_records.as_recorded(
            dataclasses.replace(config, repeat=k), gen_records.one_epoch(config, rate), ["runners", "run"]
        )
        for k, rate in enumerate(rates)
    ]


def test_verdicts_pass_where_decided_fail_where_the_budget_stopped_them_and_a_lone_framework_has_none(tmp_path):
    executor = types.SimpleNamespace(framework_version=gen_records.VERSIONS.get)
    configs = expected_configs(steps_of("verdicts")[0], ["torch", "jax"], "cpu", executor.framework_version)
    by = {(c.framework, c.mode, c.batch_size): c for c in configs}
    records = [
        *repeated(by["torch", "compiled", 32], [100.0, 101.0, 99.0]),  # ahead of JAX at n = 3 paired rounds
        *repeated(by["jax", "compiled", 32], [50.0, 51.0, 49.0]),
        *repeated(by["torch", "compiled", 256], [100.0, 101.0]),  # the budget stopped these at n = 2
        *repeated(by["jax", "compiled", 256], [50.0, 51.0]),
        *repeated(by["torch", "eager", 32], [80.0, 81.0, 79.0]),  # eager: PyTorch alone
    ]
    for record in records:
        write_record(stored_path(tmp_path, record), record)
    checks = {c.subject: c for c in check_verdicts(configs, tmp_path)}
    assert {s: c.ok for s, c in checks.items()} == {
        "quick compiled bs32 fp32": True,
        "quick eager bs32 fp32": None,
        "quick compiled bs256 fp32": False,
        "quick eager bs256 fp32": None,
    }
    assert checks["quick compiled bs32 fp32"].detail == (
        "bs 32 compiled: PyTorch ahead of JAX 2.00× (1.95–2.05×) at n = 3 in this sitting; replicate on another boot "
        "or machine"
    )
    assert checks["quick compiled bs256 fp32"].detail == f"bs 256 compiled: undecided at n = 2 ({VERDICT_STOPPED})"
    assert checks["quick eager bs32 fp32"].detail == "bs 32 eager: only PyTorch ran ok, nothing to compare (n=3)"
    assert checks["quick eager bs256 fp32"].detail == f"bs 256 eager: not run yet ({VERDICT_STOPPED})"


def test_an_optional_run_left_unrun_is_not_applicable_and_a_required_one_fails():
    executor = types.SimpleNamespace(framework_version=lambda name: "1.0")
    required, optional = (
        expected_configs(s, ["jax"], "gpu", executor.framework_version)[0] for s in steps_of("precisions")[:2]
    )
    missing = "no record (the matrix did not get to it)"
    checks = run_checks([(required, missing), (optional, missing)], "cpu", PEAKS, {}, frozenset({optional.config_id}))
    assert [(c.subject, c.ok) for c in checks[:2]] == [
        ("quick jax/compiled bs256 bf16", False),
        ("quick jax/compiled bs32 bf16", None),
    ]


def test_scaling_passes_when_batch_256_is_faster_and_fails_when_slower_or_missing():
    fast, slow = gpu_record(batch_size=256), gpu_record(batch_size=32)
    slow["timing"]["images_per_second"] = fast["timing"]["images_per_second"] / 4
    eager = gpu_record(batch_size=256, mode="eager")
    eager["timing"]["images_per_second"] = 10.0
    eager_small = gpu_record(batch_size=32, mode="eager")
    jax_only_small = gpu_record("jax", batch_size=32)
    checks = {c.subject: c for c in check_scaling([fast, slow, eager, eager_small, jax_only_small])}
    assert checks["quick torch/compiled"].ok
    assert checks["quick torch/eager"].ok is False
    assert checks["quick jax/compiled"].ok is False and "no ok run at bs256" in checks["quick jax/compiled"].detail


def test_gpu_only_checks_are_not_applicable_on_a_cpu():
    record = gen_records.run("torch", 32)
    record["timing"]["first_step_seconds"] = 30.0
    checks = record_checks(record, "cpu", PEAKS, nvml_reason=None)
    by_name = {c.name: c for c in checks}
    assert by_name[STATUS].ok and by_name[DEVICE].ok and by_name[COMPILE].ok
    for name in (NVML, ALLOCATOR, MFU):
        assert by_name[name].ok is None and by_name[name].detail == "not applicable on a CPU"


# --- parity ----------------------------------------------------------------------------------------------------


def capture(scale: float = 1.0) -> tuple[dict, dict]:
    logits = np.linspace(-3, 3, 160, dtype=np.float32).reshape(16, 10)
    return {"logits.eval": logits * scale, "logits.train": logits}, {"nvml_reason": None}


def test_parity_within_the_float32_bound_passes_and_beyond_it_fails():
    checks, rows = parity_checks({"torch": capture(), "jax": capture(1 + 1e-6), "tensorflow": capture(1.01)})
    outcomes = {c.subject: c.ok for c in checks}
    assert outcomes == {"torch vs jax": True, "torch vs tensorflow": False, "jax vs tensorflow": False}
    assert rows[0]["pair"] == "torch vs jax" and rows[0]["logits.eval"] < FORWARD_PARITY_BOUND


def test_parity_with_a_failed_probe_fails_and_with_one_framework_is_not_applicable():
    (check,) = parity_checks({"torch": capture(), "jax": "jax probe failed (exit 1): ImportError"})[0]
    assert check.ok is False and "ImportError" in check.detail
    (alone,) = parity_checks({"jax": capture()})[0]
    assert alone.ok is None and alone.detail == "needs two frameworks"


# --- the kit's own machinery -------------------------------------------------------------------------------------


def test_a_missing_record_fails_and_on_a_cpu_the_machine_and_scaling_checks_are_not_applicable():
    (config,) = expand("smoke", frameworks=["jax"], device="cpu")
    checks = run_checks([(config, "no record (the matrix did not get to it)")], "cpu", PEAKS, {})
    assert [(c.name, c.subject, c.ok) for c in checks] == [
        (STATUS, "smoke jax/compiled bs32", False),
        (SCALING, "quick", None),
    ]
    assert [c.ok for c in env_checks(None, "cpu", PEAKS)] == [None, None]
    assert [c.ok for c in env_checks(None, "gpu", PEAKS)] == [False]


def test_a_child_past_its_time_is_killed_with_its_process_group(tmp_path):
    runner = KitCall(tmp_path, budget_s=60)
    started = time.monotonic()
    code, output = runner.child(["bash", "-c", "echo started; sleep 30 & sleep 30"], timeout_s=1)
    assert code is None and output == "started\n" and time.monotonic() - started < 10
    assert "killed after 1 s" in (tmp_path / "accelerator_kit.log").read_text()
    assert runner.child(["true"], timeout_s=0) == (None, "")


def test_the_report_tallies_the_checks():
    checks = [
        Check(STATUS, "a", True, "ok"),
        Check(MFU, "a", False, "null"),
        Check(NVML, "a", None, not_applicable("cpu")),
    ]
    text = report([], [], checks, {"tensorflow": "tensorflow is not importable by python3"}, "gpu")
    assert "FAIL     MFU in (0, 1)" in text and "skipped: tensorflow (tensorflow is not importable" in text
    assert text.endswith("accelerator_kit: 1 passed, 1 failed, 1 not applicable")


# --- NVML visibility, the carried folder ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("processes", "says"),
    [
        (None, "cannot be queried"),
        ([], "lists no compute process"),
        ([(7, 1 << 30)], "not this process's 42"),
        ([(42, None)], "without its memory"),
        ([(7, 1), (42, 1 << 30)], None),
    ],
)
def test_nvml_null_reason(processes, says):
    reason = nvml_null_reason(42, processes)
    assert reason is None if says is None else says in reason


def test_the_carried_folder_goes_on_the_path_only_where_a_module_is_missing(tmp_path):
    assert kit_paths(tmp_path, []) == []
    assert kit_paths(tmp_path, ["mkdocs"]) == [str(tmp_path)]
    assert kit_paths(tmp_path / "absent", ["mkdocs"]) == []


# --- the runners' GPU-only pieces the kit relies on ---------------------------------------------------------------

GPU = {"device_name": "NVIDIA H200", "device_count": 1, "gpu_driver": "580.159.04"}


def fake_distribution(name: str, version: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(metadata={"Name": name}, version=version)


def test_env_on_a_gpu_names_the_cuda_runtime_and_cudnn_installed(monkeypatch):
    monkeypatch.setattr(provenance, "nvidia_info", lambda: GPU)
    monkeypatch.setattr(
        provenance.metadata,
        "distributions",
        lambda: [
            fake_distribution("numpy", "2.4"),
            fake_distribution("nvidia_cuda_runtime", "13.0.96"),
            fake_distribution("nvidia-cudnn-cu13", "9.13.0.50"),
        ],
    )
    hardware = provenance.hardware_info()
    assert (hardware["cuda"], hardware["cudnn"]) == ("13.0.96", "9.13.0.50")
    monkeypatch.setattr(provenance, "nvidia_info", lambda: None)
    assert (provenance.hardware_info()["cuda"], provenance.hardware_info()["cudnn"]) == (None, None)


def test_a_cpu_run_on_a_gpu_machine_keeps_none_of_the_gpus_fields(monkeypatch):
    monkeypatch.setattr(provenance, "nvidia_info", lambda: GPU)
    monkeypatch.delenv("FWBENCH_MACHINE_ID", raising=False)  # the ids below are the hardware's own
    cpu = {"device_kind": "cpu", "device_name": None, "cuda": None, "cudnn": None, "framework_threads": 2}
    hardware = run.run_hardware(cpu)
    assert hardware["device_name"] == hardware["cpu_model"] and hardware["machine_id"].startswith("cpu-")
    assert (hardware["gpu_driver"], hardware["device_count"], hardware["cuda"]) == (None, None, None)
    gpu = {
        "device_kind": "gpu",
        "device_name": "NVIDIA H200",
        "cuda": "13.0",
        "cudnn": "91300",
        "framework_threads": 16,
    }
    assert run.run_hardware(gpu)["machine_id"] == "nvidia-h200"


def test_nvml_sampler_counts_memory_taken_after_its_last_sample(monkeypatch):
    """A block shorter than one sampling interval: the sample at exit sees what the block took."""
    taken = []
    fake = types.SimpleNamespace(
        nvmlInit=lambda: None,
        nvmlShutdown=lambda: None,
        nvmlDeviceGetCount=lambda: 1,
        nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetComputeRunningProcesses=lambda handle: [
            types.SimpleNamespace(pid=os.getpid(), usedGpuMemory=used) for used in taken
        ],
    )
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    with gpu_memory.NvmlPeakSampler(interval_s=60) as sampler:
        taken.append(3 << 30)
    assert sampler.peak_bytes == 3 << 30


# --- a TPU: the plan of matrices, its checks -----------------------------------------------------------------------

REAL_PEAKS = json.loads(PEAKS_FILE.read_text())
TPU = "TPU v5 lite"
USED_ON_A_TPU = (
    "--profile quick --precision default --batch-sizes 256;--profile quick-gpt --precision default --batch-sizes 64"
)


def fake_matrix(made, monkeypatch) -> list[tuple[list[str], float]]:
    """Kit ``made``'s child processes, recorded instead of run: (command, timeout)."""
    asked = []
    monkeypatch.setattr(made, "child", lambda command, timeout_s: asked.append((command, timeout_s)))
    return asked


def planned(text: str, repeats: int = PLAN_REPEATS) -> list:
    return [(a, *entry_configs(a, "tpu", repeats, gen_records.VERSIONS.get)) for a in plan_entries(text)]


def test_a_plans_matrices_run_in_order_under_one_deadline_with_the_repeats_unless_an_entry_gives_its_own(
    tmp_path, monkeypatch
):
    made = KitCall(tmp_path, budget_s=600)
    asked = fake_matrix(made, monkeypatch)
    plan = planned(USED_ON_A_TPU + " --repeats 5", repeats=6)
    assert [rounds for _, _, rounds in plan] == [6, 5]
    assert [(c.framework, c.workload, c.batch_size, c.precision) for c in plan[1][1]] == [
        ("jax", "gpt", 64, "default"),
        ("torchax", "gpt", 64, "default"),
    ]
    run_plan(made, plan, "tpu", 6)
    commands = [command[1:] for command, _ in asked]
    assert [" ".join(c[: c.index("--deadline")]) for c in commands] == [
        "-m runners.cli matrix --device tpu --repeats 6 --profile quick --precision default --batch-sizes 256",
        "-m runners.cli matrix --device tpu --repeats 6 --profile quick-gpt --precision default --batch-sizes 64 "
        "--repeats 5",
    ]
    deadlines = {c[c.index("--deadline") + 1] for c in commands}
    assert len(deadlines) == 1, "every matrix of a call stops by the same deadline"
    seconds_left = datetime.fromisoformat(deadlines.pop()).timestamp() - time.time()
    assert 600 - made.reserve - 10 < seconds_left <= 600 - made.reserve, "the kit's time, less the site's"
    assert all(c[-2:] == ["--out", str(made.runs)] for c in commands)
    assert all(timeout <= 600 for _, timeout in asked)


def test_a_plan_entry_without_a_minute_left_does_not_start_and_says_so(tmp_path, monkeypatch):
    made = KitCall(tmp_path, budget_s=ENTRY_MIN_S + made_reserve() - 1)
    asked = fake_matrix(made, monkeypatch)
    found = run_plan(made, planned(TPU_PLAN), "tpu", 3)
    assert asked == [] and found.runs == []
    assert [(c.subject, c.ok, c.detail) for c in found.checks] == [
        ("--profile quick-gpt", None, NO_TIME),
        ("--profile quick", None, NO_TIME),
    ]
    assert (tmp_path / "accelerator_kit.log").read_text().count("accelerator_kit: no time left for: --profile") == 2


def made_reserve() -> float:
    return 0.0 if site_missing() else SITE_RESERVE_S


def test_a_plan_entry_the_matrix_would_refuse_stops_the_kit_before_anything_runs():
    with pytest.raises(SystemExit) as stopped:
        entry_configs(["--profile", "no-such-profile"], "tpu", 3, gen_records.VERSIONS.get)
    assert stopped.value.code == 2


def test_a_plans_runs_are_checked_from_the_newest_record_of_each_configuration_and_none_is_required(
    tmp_path, monkeypatch
):
    made = KitCall(tmp_path, budget_s=600)
    fake_matrix(made, monkeypatch)
    plan = planned("--profile smoke --frameworks jax")
    (config,) = plan[0][1]
    earlier, now = repeated(config, [100.0, 101.0])  # an earlier sitting's first run, and this call's repeat
    for record in (earlier, now):
        write_record(stored_path(made.runs, record), record)
    made.started = datetime.fromisoformat(now["started_at"])  # the repeat is this call's
    found = run_plan(made, plan, "cpu", 3)
    ((_, newest),) = found.runs
    assert newest["config"]["repeat"] == 1 and found.optional == {config.config_id}
    assert measured_check(found.runs).ok is True


def test_a_kit_that_finds_every_run_made_before_it_says_it_measured_nothing_and_fails(tmp_path, monkeypatch):
    made = KitCall(tmp_path, budget_s=600)  # started now: the records below are older
    fake_matrix(made, monkeypatch)  # the matrix resumes: it runs nothing
    plan = planned("--profile smoke --frameworks jax")
    (config,) = plan[0][1]
    for record in repeated(config, [100.0]):
        write_record(stored_path(made.runs, record), record)
    found = run_plan(made, plan, "cpu", 1)
    ((_, why),) = found.runs
    assert why.startswith("not measured by this call: its newest record started")
    check = measured_check(found.runs)
    assert check.ok is False and check.detail.startswith("measured nothing")
    assert run_checks(found.runs, "cpu", PEAKS, {}, frozenset(found.optional))[0].outcome == "n/a"
    assert "already had its runs" in check.detail


def test_a_kit_whose_matrix_started_nothing_before_its_deadline_says_so(tmp_path, monkeypatch):
    made = KitCall(tmp_path, budget_s=600)
    fake_matrix(made, monkeypatch)  # the matrix starts nothing (as when its rounds would end past the deadline)
    plan = planned("--profile smoke --frameworks jax")
    found = run_plan(made, plan, "cpu", 3)
    check = measured_check(found.runs)
    assert check.ok is False and check.detail.startswith("measured nothing: the matrix started no run before")
    assert "KIT_MINUTES" in check.detail and "already had" not in check.detail


def tpu_record(**changes) -> dict:
    peak = REAL_PEAKS["float32"][TPU]
    return gpu_record(
        "jax",
        hardware__device_kind="tpu",
        hardware__device_name=TPU,
        mfu__peak_flops_per_second=peak,
        memory__nvml_process_peak_bytes=None,
        **changes,
    )


def test_on_a_tpu_a_run_is_checked_for_status_device_compile_and_mfu_and_not_for_nvml():
    checks = {c.name: c for c in record_checks(tpu_record(), "tpu", REAL_PEAKS, nvml_reason=None)}
    assert all(checks[name].ok for name in (STATUS, DEVICE, COMPILE, MFU)), checks
    assert checks[NVML].ok is None and checks[NVML].detail == "not applicable on a TPU"
    assert checks[ALLOCATOR].ok is None
    assert check_mfu(tpu_record(mfu__value=1.5), REAL_PEAKS).ok is False


def test_on_a_tpu_the_peak_table_names_the_chip_and_the_gpus_env_and_parity_checks_do_not_apply():
    env = {"hardware": {"device_kind": "tpu", "device_name": TPU}}
    found, table = env_checks(env, "tpu", REAL_PEAKS)
    assert found.ok is None and found.detail == "not applicable on a TPU" and table.ok
    (scaling,) = run_checks([], "tpu", REAL_PEAKS, {})
    assert scaling.ok is None


def test_without_mkdocs_the_site_is_skipped_with_one_line_and_no_time_is_kept_for_it(tmp_path, monkeypatch):
    monkeypatch.setattr(carried, "SITE_MODULES", ("fwbench_no_such_module",))
    made = KitCall(tmp_path, budget_s=60)
    check = site_step(made)
    assert made.reserve == 0 and check.ok is None and check.detail.startswith("skipped: fwbench_no_such_module")
    assert "accelerator_kit: no site: skipped" in (tmp_path / "accelerator_kit.log").read_text()


# --- the shell entry: one call of a borrowed machine ---------------------------------------------------------------

#: a python3 that records each call (its arguments one a line, then a blank line, and its working directory) and, as
#: the kit, writes a record into the checkout it runs in
STAND_IN = """#!/bin/sh
printf '%s\\n' "$@" >> "$CALLS"; echo >> "$CALLS"
echo "$PWD" >> "$CALLS.cwd"
if [ "$*" != "${*#-m runners.cli kit }" ]; then
  mkdir -p results/runs/tpu-v5-lite-1x1 && echo '{}' > results/runs/tpu-v5-lite-1x1/new.json
fi
"""


def run_shell(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
    """runners/kit/accelerator_kit.sh, copied into a git checkout whose working tree is edited after its commit, with
    the stand-in python3 and ``KIT_REF=HEAD`` (the commit, the edits aside) unless ``env`` says otherwise; (the call,
    the stand-in's calls but its look for the carried folder)."""
    checkout = tmp_path / "checkout"
    if not checkout.is_dir():
        (checkout / "runners" / "kit").mkdir(parents=True)
        shutil.copy(REPO / "runners" / "kit" / "accelerator_kit.sh", checkout / "runners" / "kit")
        (checkout / "README.md").write_text("committed\n")
        (checkout / "results" / "runs" / "cpu-old").mkdir(parents=True)
        (checkout / "results" / "runs" / "cpu-old" / "old.json").write_text("{}\n")
        git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "kit"], check=True)
        (checkout / "README.md").write_text("edited, not committed\n")
        (checkout / ".whl-tpu").mkdir()
        (checkout / ".whl-tpu" / "torchax-0.0.13-py3-none-any.whl").write_text("")
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "python3").write_text(STAND_IN)
        (tmp_path / "bin" / "python3").chmod(0o755)
    calls = tmp_path / "calls"
    calls.unlink(missing_ok=True)
    done = subprocess.run(
        ["bash", str(checkout / "runners" / "kit" / "accelerator_kit.sh"), *args],
        capture_output=True,
        text=True,
        env={
            "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
            "CALLS": str(calls),
            "OUT": str(tmp_path / "out"),
            "HOME": str(tmp_path),
            "KIT_LIB": str(tmp_path / "lib"),
            "KIT_TREE": str(tmp_path / "tree"),
            "KIT_WORK": str(tmp_path / "work"),
            "KIT_REF": "HEAD",
            **env,
        },
        timeout=60,
    )
    made = [call.splitlines() for call in calls.read_text().split("\n\n") if call] if calls.exists() else []
    return done, [call for call in made if call != ["-m", "runners.kit.carried"]]


def test_on_a_tpu_the_call_installs_from_the_machines_index_and_the_carried_wheels_then_runs_the_kit(tmp_path):
    done, calls = run_shell(tmp_path, KIT_DEVICE="tpu")
    assert done.returncode == 0, done.stderr
    installs, (kit_call,) = calls[:4], calls[4:]
    assert all(call[:3] == ["-m", "pip", "install"] and "--isolated" in call for call in installs)
    assert all(call[call.index("--target") + 1] == str(tmp_path / "lib") for call in installs)
    assert "file:///opt/pypi/simple" in installs[0] and {"flax", "optax", "jsonschema"} <= set(installs[0])
    assert installs[1][-3:] == ["--find-links", "/opt/wheels", "torch"]
    assert installs[2][-1] == ".whl-tpu/torchax-0.0.13-py3-none-any.whl" and "--no-index" in installs[2]
    assert installs[3][-3:] == ["mkdocs", "mkdocs-material", "mkdocs-gen-files"], "for the site, where the index has it"
    assert kit_call[:3] == ["-m", "runners.cli", "kit"]
    args = kit_args(kit_call[3:])  # what the kit makes of them
    assert (args.device, args.out, args.results) == ("tpu", tmp_path / "work", Path("results"))
    assert args.plan is None and args.repeats == PLAN_REPEATS, "the kit's own defaults: the TPU plan, 3 rounds"
    assert 7 * 60 - 20 - 5 < args.deadline - time.time() <= 8 * 60 - 20, "the default 8 minutes, less the packing"
    log = (tmp_path / "out" / "accelerator_kit.log").read_text()
    assert "accelerator_kit.sh: installing into" in log and "accelerator_kit.sh: exit 0 in" in log


def test_a_later_call_on_the_same_machine_installs_nothing_and_gives_the_kit_the_plan_and_repeats(tmp_path):
    (tmp_path / "lib" / "torchax").mkdir(parents=True)  # what the first call installed
    plan = USED_ON_A_TPU
    done, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_MINUTES="10", KIT_REPEATS="6", KIT_PLAN=plan)
    assert done.returncode == 0 and "installed before" in done.stdout
    (kit_call,) = calls
    assert kit_call[:3] == ["-m", "runners.cli", "kit"]
    args = kit_args(kit_call[3:])
    assert plan_entries(args.plan) == [entry.split() for entry in plan.split(";")] and args.repeats == 6
    assert 10 * 60 - 20 - 5 < args.deadline - time.time() <= 10 * 60 - 20
    assert kit_args([*kit_call[3:], "--repeats", "auto"]).repeats == "auto", "as runners matrix takes it"


def test_files_newer_than_the_checkouts_commit_stop_the_kit_before_it_installs_or_measures_unless_kit_ref_is_set(
    tmp_path,
):
    # a machine handed the tree with an older .git: measuring HEAD would measure the old trainers
    done, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_REF="")
    assert done.returncode == 2 and calls == []
    assert "files differ from HEAD" in done.stdout and "run make tpu-wheels (which carries HEAD)" in done.stdout
    assert "measured nothing (KIT_REF=HEAD measures HEAD's code anyway)" in done.stdout
    assert not (tmp_path / "tree").exists()
    unknown, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_REF="no-such-ref")
    assert unknown.returncode == 2 and calls == [] and "KIT_REF=no-such-ref: no such commit here" in unknown.stdout


def test_a_carried_bundle_of_the_files_commit_is_measured_where_the_checkouts_git_lags_them(tmp_path):
    run_shell(tmp_path, KIT_DEVICE="tpu", KIT_REF="", KIT_PLAN="none")  # makes the checkout
    checkout = tmp_path / "checkout"
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    (checkout / "runners" / "added.py").write_text("a file the older commit lacks\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "newer"], check=True)
    subprocess.run([*git, "bundle", "create", "-q", str(checkout / ".whl-tpu" / "head.bundle"), "HEAD"], check=True)
    newer = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    # the machine's copy: the newer files, its .git and index at the older commit
    subprocess.run([*git, "reset", "-q", "HEAD~1"], check=True)
    done, _calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_REF="", KIT_PLAN="none", KIT_TREE=str(tmp_path / "t2"))
    assert done.returncode == 0, done.stdout
    assert f"measuring the carried commit {newer}, whose files these are" in done.stdout
    assert (tmp_path / "t2" / "runners" / "added.py").is_file()
    assert (tmp_path / "t2" / "README.md").read_text() == "edited, not committed\n"
    (checkout / "README.md").write_text("edited after the bundle\n")  # a bundle older than the files: stop
    stale, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_REF="", KIT_PLAN="none", KIT_TREE=str(tmp_path / "t3"))
    assert stale.returncode == 2 and calls == [] and "run make tpu-wheels (which carries HEAD)" in stale.stdout


def test_the_kit_runs_from_a_clean_checkout_of_the_commit_and_packs_what_this_call_wrote(tmp_path):
    done, _calls = run_shell(tmp_path, KIT_DEVICE="tpu")
    assert done.returncode == 0, done.stderr
    tree = tmp_path / "tree"
    assert set((tmp_path / "calls.cwd").read_text().splitlines()) == {str(tree)}
    assert (tree / "README.md").read_text() == "committed\n"
    log = (tmp_path / "out" / "accelerator_kit.log").read_text()
    assert "this checkout's files differ from HEAD" in log and "the runs measure HEAD's code, not the edits" in log
    assert (tree / ".whl-tpu" / "torchax-0.0.13-py3-none-any.whl").is_file()
    with tarfile.open(tmp_path / "out" / "accelerator_kit-runs.tar.gz") as packed:
        assert packed.getnames() == ["results/runs/tpu-v5-lite-1x1", "results/runs/tpu-v5-lite-1x1/new.json"]
    # no site was built (the stand-in kit builds none), so no site archive
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "accelerator_kit-runs.tar.gz",
        "accelerator_kit.log",
    ]
    (tree / "kept.txt").write_text("from the first call\n")
    again, _calls = run_shell(tmp_path, KIT_DEVICE="tpu")  # the same machine: the worktree is reused
    assert again.returncode == 0 and (tree / "kept.txt").is_file()


def test_harness_checks_run_first_each_from_its_commit_and_kit_plan_none_runs_no_matrix(tmp_path):
    run_shell(tmp_path, KIT_DEVICE="tpu")  # the checkout, its worktree and the installs, as a first call makes them
    checkout = tmp_path / "checkout"
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "switch", "-q", "-c", "trainer-b"], check=True)
    (checkout / "README.md").write_text("trainer B\n")
    subprocess.run([*git, "commit", "-q", "-am", "trainer B"], check=True)
    subprocess.run([*git, "switch", "-q", "-"], check=True)
    (tmp_path / "calls.cwd").unlink()
    (tmp_path / "lib" / "torchax").mkdir(parents=True)  # installed by the first call
    entry = "--workload gpt --frameworks jax --batch-sizes 8"
    done, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_PLAN="none", KIT_HARNESS=f"{entry} ; @trainer-b {entry}")
    assert done.returncode == 0, done.stderr
    out, tree = tmp_path / "out", tmp_path / "tree"
    assert calls == [
        ["benchmarks/idiomatic_loop.py", "--device", "tpu", *entry.split(), "--out", str(out / f"harness-{k}.json")]
        for k in (1, 2)
    ]  # and no `runners kit`: KIT_PLAN=none
    *_carried, first, second = map(Path, (tmp_path / "calls.cwd").read_text().splitlines())
    assert first == tree and (tree / "README.md").read_text() == "committed\n"
    assert second.name.startswith("tree-") and (second / "README.md").read_text() == "trainer B\n"
    log = (out / "accelerator_kit.log").read_text()
    assert log.count("accelerator_kit.sh: harness check ") == 2 and "(@trainer-b --workload gpt" in log


def test_kit_parity_runs_the_attention_parity_before_the_harness_checks_with_its_arguments(tmp_path):
    run_shell(tmp_path, KIT_DEVICE="tpu")  # the checkout, its worktree and the installs, as a first call makes them
    (tmp_path / "lib" / "torchax").mkdir(parents=True)  # installed by the first call
    out = tmp_path / "out"
    entry = "--workload gpt --frameworks jax --batch-sizes 8"
    done, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_PLAN="none", KIT_PARITY="", KIT_HARNESS=entry)
    assert done.returncode == 0, done.stderr
    assert calls == [
        ["benchmarks/attention_parity.py", "--device", "tpu", "--out", str(out / "parity.json")],
        ["benchmarks/idiomatic_loop.py", "--device", "tpu", *entry.split(), "--out", str(out / "harness-1.json")],
    ]
    assert "accelerator_kit.sh: attention parity (its defaults): exit 0" in (out / "accelerator_kit.log").read_text()
    _done, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_PLAN="none", KIT_PARITY="--frameworks jax --steps 2")
    assert calls == [
        ["benchmarks/attention_parity.py", "--device", "tpu", "--frameworks", "jax", "--steps", "2", "--out",
         str(out / "parity.json")],
    ]  # fmt: skip
    late, calls = run_shell(tmp_path, KIT_DEVICE="tpu", KIT_PLAN="none", KIT_PARITY="", KIT_MINUTES="1")
    assert calls == [] and "no time left for the attention parity" in late.stdout  # 40 s: never `timeout 0`


def test_elsewhere_the_call_installs_nothing_and_hands_its_arguments_to_the_kit(tmp_path):
    done, calls = run_shell(tmp_path, "--frameworks", "torch,jax")
    assert done.returncode == 0, done.stderr
    (kit_call,) = calls
    assert kit_call[:3] == ["-m", "runners.cli", "kit"]
    args = kit_args(kit_call[3:])
    assert args.device == "auto" and args.frameworks == ["torch", "jax"] and args.plan is None


# --- the whole kit on the CPU ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_kit_runs_end_to_end_on_the_cpu(tmp_path):
    out = tmp_path / "kit"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners.cli",
            "kit",
            "--out",
            str(out),
            "--device",
            "cpu",
            "--profiles",
            "smoke",
            "--frameworks",
            "jax",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = json.loads((out / "accelerator_kit.json").read_text())
    outcomes = {(c["name"], c["subject"]): c["outcome"] for c in summary["checks"]}
    assert outcomes[(STATUS, "smoke jax/compiled bs32")] == "pass"
    assert outcomes[(COMPILE, "smoke jax/compiled bs32")] == "pass"
    assert outcomes[(MFU, "smoke jax/compiled bs32")] == "n/a"
    assert outcomes[(ENV, "runners env")] == "n/a"
    assert outcomes[(SITE, "generator build")] == "pass"
    assert "FAIL" not in outcomes.values()
    assert "not applicable on a CPU" in done.stdout and "accelerator_kit: " in done.stdout
    assert len(list((out / "results" / "runs").glob("*/jax-compiled-synthetic-bs32-*.json"))) == 1
    assert (out / "site" / "index.html").is_file() and (out / "accelerator_kit.log").stat().st_size > 0
    text = (out / "accelerator_kit.txt").read_text()
    assert summary["runs"][0]["status"] == "ok" and text.startswith("runs on the cpu")
