"""Run records (fwbench.run/3): the schema accepts what the runners write and rejects what they must not; the
ok record is a pure function of the measurements; committed version-1 and version-2 records read as version 3."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import gen_records
import numpy as np
import pytest

from fwbench.records import RecordError, find_key, read_record, validate, write_record
from fwbench.timestamps import utc_now
from fwbench.upgrade import update_to_3, upgrade
from runners.measure import cpu_identity, host_memory, machine_load, mfu, provenance, record, run
from runners.measure.profiles import expand
from runners.measure.protocol import RECORD_RULES, TIMING_PROTOCOL
from runners.measure.record import Measured, failed_record, ok_record
from runners.workloads.resnet18 import arch, data

CONFIG = expand("smoke", version_of={"torch": "2.14.1"}.get, frameworks=["torch"])[0]
#: the frameworks whose runs were written as ``fwbench.run/2`` records
V2_FRAMEWORKS = ("torch", "tensorflow", "jax")
QUIET = {"load_avg_1m": 0.3, "load_avg_5m": 0.2, "other_cpu_percent": 0.1, "cpu_count": 32}
DURING = {"samples": 110, "interval_seconds": 0.5, "mean_other_cpu_percent": 0.1, "peak_other_cpu_percent": 0.7}
TORCH_FLAGS = {
    "torch.backends.cudnn.allow_tf32": False,
    "torch.backends.cuda.matmul.allow_tf32": False,
    "torch.get_float32_matmul_precision": "highest",
}
RTX_4090 = {
    "machine_id": "nvidia-geforce-rtx-4090",
    "device_kind": "gpu",
    "device_name": "NVIDIA GeForce RTX 4090",
    "device_count": 1,
    "gpu_driver": "550.54.14",
    "cuda": "12.4",
    "cudnn": "8902",
    "cpu_model": "AMD Ryzen 9",
    "cpu_threads": 32,
    "framework_threads": 16,
    "host_memory_bytes": 64 << 30,
    "fingerprint": cpu_identity.cpu_fingerprint(
        "vendor_id : AuthenticAMD\nflags : avx avx2 fma\n", cache_dir=Path("/nonexistent"), kernel="6.8.0"
    ),
}
SOFTWARE = {
    "python": "3.11.7",
    "os": "Linux 6.8.0 (x86_64)",
    "packages": {"torch": "2.4.1"},
    "git_commit": "0" * 40,
    "git_dirty": False,
    "fwbench_version": "0.1.0",
}


def article_record(
    batch_size: int, epoch_seconds: float = 11.0, load: dict | None = None, precision: str = "fp32", **changes
) -> dict:
    """An article-profile torch run on an RTX 4090 at ``precision`` (the article's own is ``default``; fp32 here, whose
    flags TORCH_FLAGS are), built from injected measurements (``changes``: Measured's fields replaced)."""
    (config,) = expand(
        "article",
        version_of={"torch": "2.4.1"}.get,
        frameworks=["torch"],
        modes=["compiled"],
        batch_sizes=[batch_size],
        seeds=[0],
        precision=precision,
    )
    steps = config.epoch_train_images // config.batch_size
    windows = run.window_sizes(steps) * config.epochs
    measured = Measured(
        first_step_seconds=30.0,
        epoch_seconds=[epoch_seconds] * config.epochs,
        window_step_seconds=[epoch_seconds / steps] * len(windows),
        window_steps=windows,
        epochs=[
            {"epoch": e, "train_loss": 1.0, "train_accuracy": 0.6, "test_loss": 1.1, "test_accuracy": 0.6}
            for e in range(1, config.epochs + 1)
        ],
        framework_memory={"allocator_peak_bytes": 3 << 30, "allocator_reserved_bytes": 4 << 30},
        nvml_peak_bytes=5 << 30,
        host_self_peak_bytes=2 << 30,
        host_children_peak_bytes=1 << 30,
        data_bytes=630_000_000,
        load=load or machine_load.load_section(QUIET, QUIET, 0.0, DURING),
        run_order=record.run_order(3, 40),
        first_step_memory={"allocator_peak_bytes": 4 << 30, "allocator_reserved_bytes": 4 << 30},
        memory_peaks_reset=True,
        nvml_first_step_peak_bytes=5 << 30,
        nvml_timed_peak_bytes=4 << 30,
        host_peak_basis=host_memory.basis_text("pss"),
        precision_flags=TORCH_FLAGS,
        compile_cache="cold",
    )
    measured = dataclasses.replace(measured, **changes)
    return ok_record(
        config,
        RTX_4090,
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:02:00.000Z",
        measured,
        software=SOFTWARE,
        command=["runners", "run", "--profile", "article"],
    )


def failed(status="error"):
    return failed_record(
        CONFIG,
        provenance.hardware_info(),
        utc_now(),
        status,
        "RuntimeError",
        "boom <b>&</b>",
        stderr_tail="x" * 10_000,
        exit_code=1,
    )


def test_failed_record_validates_and_keeps_the_error():
    record = failed("oom")
    validate(record)
    assert record["status"] == "oom" and record["timing"] is None
    assert record["framework"]["version"] == "2.14.1"  # the configuration's
    assert record["failure"]["message"] == "boom <b>&</b>"  # raw; escaping is the renderer's job
    assert len(record["failure"]["stderr_tail"]) == 4000
    assert find_key(record, "trainable_params") == 11_173_962


def test_ok_record_without_measurements_is_rejected_naming_the_field(tmp_path):
    record = failed()
    record["status"] = "ok"
    record["failure"] = None
    with pytest.raises(RecordError, match=r"field '(timing|memory|accuracy)'"):
        write_record(tmp_path / "r.json", record)
    assert not list(tmp_path.iterdir()), "an invalid record is never written"


def test_read_record_names_file_and_field(tmp_path):
    path = tmp_path / "bad.json"
    record = failed()
    record["config"]["batch_size"] = "thirty-two"
    path.write_text(json.dumps(record))
    with pytest.raises(RecordError, match=r"bad\.json: field 'config\.batch_size'"):
        read_record(path)
    path.write_text("{ truncated")
    with pytest.raises(RecordError, match=r"bad\.json: not valid JSON"):
        read_record(path)


@pytest.mark.parametrize(
    "framework, exc, oom",
    [
        ("jax", MemoryError(), True),
        ("torch", RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), True),
        ("jax", RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate"), True),
        ("torchax", RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate"), True),
        ("tensorflow", type("ResourceExhaustedError", (Exception,), {})("OOM when allocating tensor"), True),
        ("torch", ValueError("shapes (3,) and (4,) not aligned"), False),
        ("torch", type("ResourceExhaustedError", (Exception,), {})("OOM when allocating tensor"), False),
    ],
)
def test_out_of_memory_is_recognised_in_each_frameworks_words(framework, exc, oom):
    assert run.is_out_of_memory(framework, exc) is oom


def test_mfu_is_null_for_unknown_devices():
    assert mfu.peak_flops("AMD EPYC") is None
    assert mfu.peak_flops("NVIDIA H200") > 0


def test_mfu_divides_by_the_peak_of_the_precision_that_ran_and_says_why_it_is_null():
    fp32 = article_record(256)["mfu"]
    assert (fp32["peak_table"], fp32["peak_flops_per_second"], fp32["reason"]) == ("float32", 8.26e13, None)
    default = article_record(256, precision="default")["mfu"]  # no TF32 figure for the RTX 4090 in the table
    assert default["value"] is None and default["peak_table"] == "tf32"
    assert (
        default["reason"] == "no known peak tf32 FLOP/s for 'NVIDIA GeForce RTX 4090' in device_peaks.json's tf32 table"
    )
    h200 = {"device_kind": "gpu", "device_name": "NVIDIA H200"}
    bf16 = mfu.mfu_section("bf16", h200, 1000.0)
    assert bf16["peak_flops_per_second"] == 9.895e14 and "bfloat16" in bf16["basis"]
    assert bf16["value"] == pytest.approx(3 * arch.flops_per_image() * 1000.0 / 9.895e14)
    cpu = mfu.mfu_section("bf16", {"device_kind": "cpu", "device_name": "AMD EPYC"}, 50.0)
    assert cpu["value"] is None and cpu["reason"] == "no known peak bfloat16 FLOP/s for a CPU"


@pytest.mark.parametrize(
    "batch_size, images_per_epoch, steps, windows",
    [
        (32, 49_984, 1562, [196, 196, 195, 195, 195, 195, 195, 195]),
        (256, 49_920, 195, [25, 25, 25, 24, 24, 24, 24, 24]),
    ],
)
def test_article_profile_record_keeps_requested_and_trained_images(
    tmp_path, batch_size, images_per_epoch, steps, windows
):
    built = article_record(batch_size)
    write_record(tmp_path / "r.json", built)  # validates against fwbench.run/3
    config = built["config"]
    assert built["schema"] == "fwbench.run/3" and "upgraded_from" not in built and built["protocol"] == TIMING_PROTOCOL
    assert (config["train_images"], config["images_per_epoch"], config["steps_per_epoch"]) == (
        50_000,
        images_per_epoch,
        steps,
    )
    assert config["sized_for"] is None and config["test_images"] == 10_000
    assert config["run_order"] == {"position": 3, "total": 40, "scheme": record.RUN_ORDER_SCHEME}
    timing = built["timing"]
    assert timing["window_steps"] == windows * 5 and timing["timed_windows"] == 40
    assert timing["images_per_second"] == pytest.approx(images_per_epoch / 11.0)
    assert timing["compile_seconds"] == pytest.approx(30.0 - 11.0 / steps)
    assert timing["article_epoch_seconds"] == pytest.approx((5 * 11.0 + timing["compile_seconds"]) / 5)
    assert timing["compile_cache"] == "cold"
    assert built["mfu"]["value"] == pytest.approx(3 * 1_110_845_440 * images_per_epoch / 11.0 / 8.26e13)
    memory = built["memory"]
    assert memory["host_peak_rss_bytes"] == 3 << 30 and memory["host_children_peak_rss_bytes"] == 1 << 30
    assert "summed PSS" in memory["host_peak_basis"] and memory["nvml_process_peak_bytes"] == 5 << 30
    # the whole run's allocator peak is the larger phase's: the first step's here, as with autotuning workspaces
    assert (memory["allocator_peak_bytes"], memory["allocator_reserved_bytes"]) == (4 << 30, 4 << 30)
    assert memory["phases"] == {
        "first_step": {"allocator_peak_bytes": 4 << 30, "nvml_peak_bytes": 5 << 30},
        "timed": {"allocator_peak_bytes": 3 << 30, "nvml_peak_bytes": 4 << 30},
    }
    assert built["precision"] == {"policy": "fp32", "compute_dtype": "float32", "flags": TORCH_FLAGS}
    assert config["precision"] == "fp32"
    assert built["load"]["busy"] is False and built["software"]["fwbench_version"] == "0.1.0"
    assert built["framework"] == {"name": "torch", "version": "2.4.1", "mode": "compiled"}
    assert article_record(batch_size) == built, "a pure function of its arguments"


def test_ok_record_rejects_windows_that_do_not_add_up():
    (config,) = expand("smoke", frameworks=["jax"])
    measured = Measured(
        1.0,
        [1.0],
        [0.5],
        [3],
        [{"epoch": 1, "train_loss": 1, "train_accuracy": 0, "test_loss": 1, "test_accuracy": 0}],
        {},
        None,
        0,
        0,
        0,
        machine_load.load_section(QUIET, QUIET, 0.0),
    )
    with pytest.raises(ValueError, match="measured.window_steps"):
        ok_record(config, RTX_4090, "t", "t", measured, software=SOFTWARE, command=[])


def test_busy_load_is_recorded_and_flagged(tmp_path):
    busy = {**QUIET, "other_cpu_percent": 87.5}
    built = article_record(256, load=machine_load.load_section(QUIET, busy, 120.0))
    write_record(tmp_path / "r.json", built)
    assert built["load"]["busy"] is True and built["load"]["waited_seconds"] == 120.0


def test_ok_record_without_load_is_rejected(tmp_path):
    built = article_record(256)
    built["load"] = None
    with pytest.raises(RecordError, match="field 'load'"):
        write_record(tmp_path / "r.json", built)


def test_failed_record_carries_the_same_config_section():
    built = failed_record(
        CONFIG, provenance.hardware_info(), utc_now(), "timeout", "Timeout", "slow", run_order=record.run_order(2, 3)
    )
    validate(built, kind="fwbench.run/3")
    assert built["config"] == record.config_section(CONFIG, record.run_order(2, 3))
    assert built["config"]["train_images"] == 64 and built["load"] is None
    assert built["protocol"] == TIMING_PROTOCOL and built["precision"] == {
        "policy": "fp32",
        "compute_dtype": "float32",
        "flags": None,
    }


def v2_record(framework: str) -> dict:
    """A run as a version-2 runner recorded it (``gen_records.as_v2``), JAX's reserved bytes the 0 it wrote."""
    record = gen_records.as_v2(gen_records.run(framework, 32))
    if framework == "jax":
        record["memory"]["allocator_reserved_bytes"] = 0
    return record


@pytest.mark.parametrize("framework", V2_FRAMEWORKS)
def test_version_2_records_read_as_version_3(framework, tmp_path):
    original = v2_record(framework)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(original))
    upgraded = read_record(path, kind="fwbench.run/3")
    assert upgraded["upgraded_from"] == "fwbench.run/2" and upgraded["protocol"] == 1 and upgraded["rules"] == 1
    assert original["config"]["precision"] == "float32 (TF32 off)" and upgraded["config"]["precision"] == "fp32"
    assert upgraded["precision"] == {"policy": "fp32", "compute_dtype": "float32", "flags": None}
    assert {"precision.flags", "memory.phases", "load.during_clock"} <= set(upgraded["missing"])
    for dotted in upgraded["missing"]:
        section, _, field = dotted.partition(".")
        assert (upgraded[section][field] if field else upgraded[section]) is None, dotted
    timing = original["timing"]
    article = (sum(timing["epoch_seconds_each"]) + timing["compile_seconds"]) / len(timing["epoch_seconds_each"])
    assert upgraded["timing"]["article_epoch_seconds"] == pytest.approx(article)
    assert upgraded["timing"]["epoch_seconds"] == timing["epoch_seconds"]  # every other figure as it was
    assert upgraded["load"]["busy"] == original["load"]["busy"]
    assert upgraded["memory"]["allocator_reserved_bytes"] != 0, "JAX's 0 measured nothing: null"


def test_a_version_2_record_without_a_compile_time_misses_the_articles_epoch_seconds():
    original = v2_record("torch")
    original["timing"]["compile_seconds"] = None
    upgraded = update_to_3(original)
    assert upgraded["timing"]["article_epoch_seconds"] is None and "timing.article_epoch_seconds" in upgraded["missing"]
    validate(upgraded)
    assert original["schema"] == "fwbench.run/2", "the step does not modify its input"


def test_when_the_allocator_cannot_reset_its_peak_the_timed_phase_is_not_measured():
    # JAX: memory() at the end still counts from the start, so it is the whole run's peak and the timed one is unknown
    built = article_record(256, memory_peaks_reset=False)
    assert built["memory"]["allocator_peak_bytes"] == 3 << 30
    assert built["memory"]["phases"]["timed"] == {"allocator_peak_bytes": None, "nvml_peak_bytes": 4 << 30}
    assert built["memory"]["phases"]["first_step"]["allocator_peak_bytes"] == 4 << 30


def test_on_a_cpu_every_phase_figure_is_null_never_0():
    cpu = {**RTX_4090, "device_kind": "cpu", "device_name": "AMD Ryzen 9"}
    nothing = {"allocator_peak_bytes": None, "allocator_reserved_bytes": None}
    measured = Measured(
        1.0,
        [1.0],
        [0.5],
        [2],
        [{"epoch": 1, "train_loss": 1, "train_accuracy": 0, "test_loss": 1, "test_accuracy": 0}],
        nothing,
        None,
        0,
        0,
        0,
        machine_load.load_section(QUIET, QUIET, 0.0),
        first_step_memory=nothing,
        memory_peaks_reset=False,
    )
    (config,) = expand("smoke", frameworks=["jax"], train_images=64, batch_sizes=[32])
    built = ok_record(config, cpu, "t", "t", measured, software=SOFTWARE, command=[])
    validate(built)
    phase = {"allocator_peak_bytes": None, "nvml_peak_bytes": None}
    assert built["memory"]["phases"] == {"first_step": phase, "timed": phase}
    assert built["memory"]["allocator_peak_bytes"] is None and built["memory"]["allocator_reserved_bytes"] is None


def test_a_busy_clock_flags_the_record_though_start_and_end_were_quiet(tmp_path):
    during = {**DURING, "mean_other_cpu_percent": 12.0, "peak_other_cpu_percent": 40.0}
    built = article_record(256, load=machine_load.load_section(QUIET, QUIET, 0.0, during))
    write_record(tmp_path / "r.json", built)
    assert built["load"]["busy"] is True and built["load"]["during_clock"] == during


def test_a_record_that_states_no_rules_has_them_derived_from_its_commit_and_protocol(tmp_path):
    current = article_record(256)
    assert current["rules"] == RECORD_RULES
    unstated = {key: value for key, value in current.items() if key != "rules"}
    commit = "2349e5c2743ff04c29488c8d25539a58c6fe47cd"  # protocol 3, before ids hashed the timing protocol
    before_ids_hashed = {**unstated, "software": {**unstated["software"], "git_commit": commit}}
    for unupgraded, rules in ((unstated, 4), (before_ids_hashed, 3), ({**unstated, "protocol": 2}, 2)):
        write_record(tmp_path / "r.json", unupgraded)
        assert read_record(tmp_path / "r.json")["rules"] == rules


def test_upgrade_checks_the_old_version_first_and_leaves_current_records_alone(tmp_path):
    original = v2_record("torch")
    broken = {**original, "config": {**original["config"], "steps_per_epoch": "eight"}}
    (tmp_path / "old.json").write_text(json.dumps(broken))
    with pytest.raises(RecordError, match=r"old\.json: field 'config\.steps_per_epoch'"):
        read_record(tmp_path / "old.json")
    current = article_record(256)
    assert upgrade(current, check=validate) is current
    assert update_to_3(original)["config"]["images_per_epoch"] == original["config"]["images_per_epoch"]
    assert original["schema"] == "fwbench.run/2", "the step does not modify its input"


def test_failed_version_2_record_upgrades_with_its_null_sections(tmp_path):
    failed_v2 = {
        **v2_record("torch"),
        "status": "timeout",
        "timing": None,
        "memory": None,
        "accuracy": None,
        "mfu": None,
        "failure": {"exception_type": "Timeout", "message": "m", "stderr_tail": "", "exit_code": None},
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(failed_v2))
    upgraded = read_record(path)
    assert upgraded["timing"] is None and upgraded["memory"] is None
    assert "memory.phases" not in upgraded["missing"] and "timing.article_epoch_seconds" not in upgraded["missing"]


def test_version_3_record_round_trips_through_write_and_read(tmp_path):
    path = write_record(tmp_path / "r.json", article_record(64))
    assert read_record(path, kind="fwbench.run/3") == article_record(64)


def test_tuning_variables_become_part_of_the_configuration(monkeypatch):
    for name in ("XLA_FLAGS", "TORCHINDUCTOR_CACHE_DIR", "GITHUB_TOKEN", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    (plain,) = expand("quick", frameworks=["jax"], batch_sizes=[32])
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/tmp/somewhere")  # a cache location changes no code
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")  # never a tuning variable, never recorded
    assert expand("quick", frameworks=["jax"], batch_sizes=[32])[0] == plain
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")
    (tuned,) = expand("quick", frameworks=["jax"], batch_sizes=[32])
    assert tuned.tuning == (("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type="),)
    assert tuned.record_id != plain.record_id  # a tuned run never resumes or replaces an untuned one
    record = failed_record(tuned, provenance.hardware_info(), utc_now(), "error", "E", "m")
    validate(record)
    assert record["config"]["tuning_environment"] == {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}
    assert "ghp_secret" not in json.dumps(record)


@pytest.mark.parametrize(
    ("name", "value"), [("MKL_ENABLE_INSTRUCTIONS", "AVX2"), ("LD_PRELOAD", "/usr/lib/libjemalloc.so.2")]
)
def test_a_math_librarys_kernel_choice_is_tuning(monkeypatch, name, value):
    """An instruction-set cap or a preloaded library changes which kernels run: such a run is shown apart."""
    monkeypatch.delenv(name, raising=False)
    (plain,) = expand("quick", frameworks=["torch"], batch_sizes=[32])
    monkeypatch.setenv(name, value)
    (tuned,) = expand("quick", frameworks=["torch"], batch_sizes=[32])
    assert tuned.tuning == ((name, value),) and tuned.record_id != plain.record_id
    record = failed_record(tuned, provenance.hardware_info(), utc_now(), "error", "E", "m")
    assert record["config"]["tuning_environment"] == {name: value}


def test_git_dirty_means_changed_code_not_new_results(tmp_path, monkeypatch):
    import subprocess

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    (tmp_path / "results").mkdir()
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "run.json").write_text("{}\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "init")
    monkeypatch.setattr(provenance, "REPO_ROOT", tmp_path)
    (tmp_path / "results" / "run.json").write_text('{"new": true}\n')  # a rerun rewrote a committed record
    commit, dirty = provenance.git_commit()
    assert len(commit) == 40 and dirty is False
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.git_commit() == (commit, True)


def test_a_run_that_fails_keeps_its_load_and_place(monkeypatch):
    def broken_data(*args, **kwargs):
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")  # in PyTorch's words: a torch run

    monkeypatch.setattr(run, "framework_environment", lambda device, cache, persistent: {})
    monkeypatch.setattr(data, "load", broken_data)
    failed_run = run.measure_or_fail(CONFIG, progress=False, run_order=record.run_order(1, 2))
    validate(failed_run, kind="fwbench.run/3")
    assert failed_run["status"] == "oom" and failed_run["config"]["run_order"]["position"] == 1
    assert failed_run["load"]["waited_seconds"] == 0 and failed_run["load"]["start"]["cpu_count"] >= 1
    assert failed_run["load"]["during_clock"] is None  # it never reached its clock


def test_the_compile_time_is_the_first_steps_excess_over_its_rerun_kept_below_zero():
    timing = article_record(32, first_step_seconds=0.50, rerun_step_seconds=0.52)["timing"]
    assert timing["compile_seconds"] == pytest.approx(-0.02) and timing["rerun_step_seconds"] == 0.52
    assert len(timing["window_step_seconds"]) == timing["timed_windows"]
    assert timing["step_seconds_p90"] == pytest.approx(float(np.percentile(timing["window_step_seconds"], 90)))


def test_a_record_without_a_rerun_keeps_the_earlier_protocols_estimate_clamped_at_zero():
    timing = article_record(32, first_step_seconds=0.0, rerun_step_seconds=None)["timing"]
    assert timing["compile_seconds"] == 0.0 and timing["rerun_step_seconds"] is None


def test_a_cpu_run_on_an_accelerators_machine_records_none_of_its_fields():
    cpu = provenance.as_cpu_run({**RTX_4090, "device_kind": "tpu", "tpu_topology": "1x1", "libtpu": "0.0.42"})
    assert "tpu_topology" not in cpu and "libtpu" not in cpu and cpu["cuda"] is None and cpu["gpu_driver"] is None
    assert cpu["device_kind"] == "cpu" and cpu["device_name"] == RTX_4090["cpu_model"]
