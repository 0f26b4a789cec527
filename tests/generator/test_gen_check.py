"""`generator check`: a submission's records pass or fail with one line per file naming the rule; a whole results
tree passes; planted bad records each fail with their reason; no input makes it raise."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import bisect_records
import gen_records
import probe_records
import pytest

from fwbench.cliargs import EXIT_USAGE
from fwbench.records import write_record
from generator.cli import main
from generator.records.check import check_paths
from generator.records.check_rules import load_references, record_key
from generator.records.replay import replayed, run_config
from runners.measure import machine_load
from runners.measure.cpu_identity import identity_hash
from runners.measure.profiles import expand
from runners.measure.provenance import hardware_machine_id
from runners.measure.record import config_section, ok_record, run_order

REPO = Path(__file__).resolve().parents[2]
HEAD = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
HEAD_DATE = subprocess.run(
    ["git", "-C", str(REPO), "show", "-s", "--format=%cI", "HEAD"], capture_output=True, text=True
).stdout.strip()
#: a run of HEAD starts at its commit's date at the earliest and ends by now: the tests may run seconds after the
#: commit (CI does), so the run is placed between the two, a minute long where that much time has passed
STARTED = datetime.fromisoformat(HEAD_DATE).astimezone(timezone.utc)
FINISHED = min(STARTED + timedelta(minutes=1), datetime.now(timezone.utc) - timedelta(seconds=1))
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.8, "cpu_count": 2}
H200 = "nvidia-h200"


def utc(moment: datetime) -> str:
    """A record's timestamp."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def hardware(machine_id: str) -> dict:
    """A machine's hardware as the runners record it: a GPU host has a CPU fingerprint too; the fingerprint's hash
    and the machine id are what the runners derive from the rest."""
    fingerprint = gen_records.fingerprint()
    identity = {k: v for k, v in fingerprint.items() if k not in ("kernel", "hash")}
    made = {**gen_records.hardware(machine_id), "fingerprint": {**fingerprint, "hash": identity_hash(identity)}}
    return {**made, "machine_id": hardware_machine_id(made)}


#: the test CPU's machine id, as its hardware makes it
CPU = hardware(gen_records.CPU_MACHINE)["machine_id"]


def submitted(machine_id: str = gen_records.CPU_MACHINE, rate: float = 40.0, **changes) -> dict:
    """A smoke-profile torch run as ``runners run`` records it, its first losses the shipped reference's
    (``changes``: Measured's fields replaced)."""
    device = "gpu" if machine_id in gen_records.GPU_NAMES else "cpu"
    (config,) = expand("smoke", frameworks=["torch"], device=device, version_of={"torch": "2.14.1"}.get)
    key = record_key(config_section(config))
    measured = gen_records.one_epoch(
        config,
        rate,
        **{
            "framework_memory": {"allocator_peak_bytes": 1 << 30, "allocator_reserved_bytes": 1 << 30},
            "nvml_peak_bytes": 2 << 30 if device == "gpu" else None,
            "first_losses": load_references().trajectories[key],
            **changes,
        },
    )
    kernel = gen_records.fingerprint()["kernel"]
    software = {**gen_records.software(), "git_commit": HEAD, "os": f"Linux {kernel} (x86_64)"}
    return ok_record(
        config,
        hardware(machine_id),
        utc(STARTED),
        utc(max(STARTED, FINISHED)),
        measured,
        software=software,
        command=["runners", "run", "--profile", "smoke"],
    )


def place(root: Path, record: dict, folder: str | None = None, name: str | None = None) -> Path:
    """Write ``record`` where the runners would (or under ``folder``, as ``name``), as it is: a planted record may
    break the schema."""
    path = root / (folder or record["hardware"]["machine_id"]) / (name or f"{record['record_id']}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))
    return path


def failures(root: Path) -> dict[str, str]:
    """File name -> its failure line (after the path), for every failing file under ``root``."""
    report = check_paths([root], repo=REPO)
    return {path.name: line.removeprefix(f"{path}: ") for path, line in zip_lines(report)}


def zip_lines(report) -> list[tuple[Path, str]]:
    """(file, its failure line) of every failing file."""
    return list(zip(sorted(report.failures), report.failure_lines(), strict=True))


def test_a_whole_results_folder_passes_with_its_probes_bisect_reports_and_the_runs_behind_them(tmp_path):
    """What the build reads (results/): the probe records and bisect reports valid against their own schemas, the
    runs behind a bisect (bisect/<machine>/runs/) in their machine's place, sharing ids with that machine's runs.
    (`make test` checks the committed results/ this way too.)"""
    results = tmp_path / "results"
    run = submitted()
    place(results / "runs", run)
    place(results / "bisect", run, folder=f"{CPU}/runs")
    place(results / "bisect", submitted(rate=30.0), folder=f"{CPU}/runs")
    write_record(results / "bisect" / CPU / bisect_records.REPORT_NAME, bisect_records.bisect_report(CPU))
    probe_records.write_machine(results)
    write_record(results / "ecosystem" / "2026-11-30.json", gen_records.snapshot())
    report = check_paths([results], repo=REPO)
    assert not report.failure_lines()
    assert len(report.files) == len(list(results.rglob("*.json")))
    notes = "\n".join(report.note_lines())
    probes = len(list((results / "probes").rglob("*.json")))
    assert f"note: {probes} files: not a run record: valid fwbench.probe/1 records in probes/" in notes
    assert "valid fwbench.bisect/1 records in bisect/" in notes


def test_a_record_of_another_kind_is_a_run_record_wherever_a_submission_puts_it(tmp_path):
    """Only the results layout's own folders hold other kinds: a probe record among a submission's runs, or named on
    the command line, fails as a run record would; a bad one in probes/ fails against the probe schema."""
    probe = probe_records.machine_records()[0]
    root = tmp_path / "results"
    among_runs = root / "runs" / "some-machine" / f"{probe['record_id']}.json"
    in_probes = root / "probes" / "some-machine" / among_runs.name
    for path in (among_runs, in_probes):
        write_record(path, probe)
    expected = "schema: field 'schema' is 'fwbench.probe/1', expected 'fwbench.run/3'"
    assert [line for _, line in zip_lines(check_paths([root], repo=REPO))] == [f"{among_runs}: {expected}"]
    assert zip_lines(check_paths([in_probes], repo=REPO)) == [(in_probes, f"{in_probes}: {expected}")]
    in_probes.write_text(json.dumps({**probe, "framework": 3}))
    (failing,) = zip_lines(check_paths([root / "probes"], repo=REPO))
    assert failing[0] == in_probes and "schema" in failing[1] and "framework" in failing[1]


def test_a_record_that_trained_the_same_network_passes_without_a_same_work_note(tmp_path):
    place(tmp_path, submitted())
    place(tmp_path, submitted(H200, rate=5000.0))
    report = check_paths([tmp_path], repo=REPO)
    assert not report.failure_lines()
    assert not [line for line in report.note_lines() if "same work" in line]


def tampered(record: dict, section: str, name: str, value) -> dict:
    """A record with one field changed after the run: what a planted bad submission does."""
    changed = copy.deepcopy(record)
    changed[section][name] = value
    return changed


PLANTED = {
    "tampered-loss": (
        lambda: submitted(first_losses=[loss * 1.01 for loss in submitted()["training"]["first_losses"]]),
        "same work: training.first_losses[0]",
    ),
    "impossible-mfu": (lambda: submitted(H200, rate=40_000.0), "physically possible: 40,000 images/s is MFU"),
    "allocator-above-nvml": (
        lambda: submitted(H200, rate=5000.0, nvml_peak_bytes=1 << 29),
        "physically possible: the allocator's peak 1,073,741,824 bytes is above NVML's 536,870,912",
    ),
    "nvml-above-device-memory": (
        lambda: tampered(submitted(H200, rate=5000.0), "hardware", "device_memory_bytes", 1 << 30),
        "physically possible: NVML's peak 2,147,483,648 bytes is above the device's 1,073,741,824",
    ),
    "wrong-parameter-count": (
        lambda: tampered(submitted(), "model", "trainable_params", 11_000_000),
        "same work: model.trainable_params 11000000 is not fwbench's 11173962",
    ),
    "unknown-commit": (
        lambda: tampered(submitted(), "software", "git_commit", "f" * 40),
        f"provenance: software.git_commit {'f' * 40} is not in this repository's history",
    ),
    "negative-compile": (
        lambda: tampered(submitted(), "timing", "compile_seconds", -1.0),
        "derived: timing.compile_seconds: stored -1, recomputed 5",
    ),
    "no-driver": (
        lambda: tampered(submitted(H200, rate=5000.0), "hardware", "gpu_driver", None),
        "provenance: missing hardware.gpu_driver",
    ),
    "zero-epoch-seconds": (
        lambda: tampered(submitted(), "timing", "epoch_seconds", 0.0),
        "physically possible: timing.epoch_seconds is 0 in a run that ended ok",
    ),
    "zero-images-per-second": (
        lambda: tampered(submitted(), "timing", "images_per_second", 0.0),
        "physically possible: timing.images_per_second is 0 in a run that ended ok",
    ),
    "negative-epoch-seconds": (
        lambda: tampered(submitted(), "timing", "epoch_seconds", -1.6),
        "schema: field 'timing.epoch_seconds': -1.6 is less than the minimum of 0",
    ),
}


@pytest.mark.parametrize("case", PLANTED)
def test_a_planted_bad_submission_fails_with_its_reason(tmp_path, case):
    build, reason = PLANTED[case]
    planted = build()
    gpu = planted["hardware"]["machine_id"] == H200
    path = place(tmp_path, planted)
    place(tmp_path, submitted() if gpu else submitted(H200, rate=5000.0))  # a good neighbour keeps passing
    assert list(failures(tmp_path)) == [path.name]
    assert reason in failures(tmp_path)[path.name]


def without(record: dict, name: str) -> dict:
    """A record with one top-level field removed."""
    changed = copy.deepcopy(record)
    del changed[name]
    return changed


#: a record that breaks the schema -> its whole line: the field and its bad value, not the section around it (the
#: anyOf of an ok run's throughputs) nor what the bad value makes another field owe (a failed run's failure)
SCHEMA_CAUSES = {
    "throughput-in-words": (
        lambda: tampered(submitted(), "timing", "images_per_second", "fast"),
        "schema: field 'timing.images_per_second': 'fast' is not of type 'number', 'null' (and 1 more problem)",
    ),
    "unknown-status": (
        lambda: gen_records.with_changes(submitted(), status="weird"),
        "schema: field 'status': 'weird' is not one of ['ok', 'oom', 'error', 'timeout'] (and 1 more problem)",
    ),
    "no-schema": (
        lambda: without(submitted(), "schema"),
        "schema: field 'schema' is missing, expected 'fwbench.run/3'",
    ),
}


@pytest.mark.parametrize("case", SCHEMA_CAUSES)
def test_a_schema_failure_names_the_field_and_its_bad_value(tmp_path, case):
    build, line = SCHEMA_CAUSES[case]
    path = place(tmp_path, build(), folder=CPU, name="r.json")
    assert failures(tmp_path) == {path.name: line}


def test_a_record_under_another_machines_folder_fails(tmp_path):
    path = place(tmp_path, submitted(), folder=H200)
    assert failures(tmp_path) == {path.name: f"place: a record of machine {CPU} under {H200}/"}


def test_a_duplicate_record_id_fails_once(tmp_path):
    record = submitted()
    copy_ = place(tmp_path, record, name="copy.json")  # read first: its name sorts first
    original = place(tmp_path, record)
    assert failures(tmp_path) == {original.name: f"place: duplicate record id {record['record_id']} (also {copy_})"}


def test_several_failures_of_one_file_share_its_line(tmp_path):
    record = tampered(submitted(H200, rate=40_000.0), "model", "trainable_params", 1)
    place(tmp_path, record, folder=CPU)
    (line,) = failures(tmp_path).values()
    assert "physically possible:" in line and "same work:" in line and "place:" in line


def corrupt_corpus() -> dict[str, tuple[bytes, str]]:
    """The malformed files ``tests/test_records_robust.py`` shows the reader refusing."""
    spec = importlib.util.spec_from_file_location("records_robust", REPO / "tests" / "test_records_robust.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CORRUPT


def test_every_malformed_file_gets_one_line_and_never_a_crash(tmp_path, capsys):
    folder = tmp_path / CPU
    folder.mkdir()
    corpus = corrupt_corpus()
    for number, (data, _reason) in enumerate(corpus.values()):
        (folder / f"bad-{number}.json").write_bytes(data)
    (folder / "folder.json").mkdir()
    (folder / "link.json").symlink_to(place(tmp_path, submitted()))
    (folder / "huge.json").write_bytes(b'{"a": "' + b"x" * 3_000_000 + b'"}')
    (folder / "notes.txt").write_text("not a record")
    given = [tmp_path, folder / "notes.txt"]
    assert main(["check", *map(str, given), "--repo", str(REPO)]) == 1
    lines = capsys.readouterr().out.splitlines()
    failing = [line for line in lines if line.startswith(str(folder))]
    assert len(failing) == len(corpus) + 4
    for number, (_data, reason) in enumerate(corpus.values()):
        reason = reason.split(", expected")[0]  # the check asks for a run record: it says which schema it expected
        assert any(line.startswith(f"{folder / f'bad-{number}.json'}: schema: ") and reason in line for line in lines)
    assert f"{folder / 'link.json'}: schema: a link, not a record file" in "\n".join(lines)
    assert lines[-1] == f"generator check: {len(corpus) + 5} files, 1 pass, {len(corpus) + 4} fail"


def test_exit_codes(tmp_path, capsys):
    place(tmp_path, submitted())
    assert main(["check", str(tmp_path), "--repo", str(REPO)]) == 0
    assert main(["check", str(tmp_path / "missing")]) == EXIT_USAGE
    assert "PATH" in capsys.readouterr().err


def test_one_file_is_counted_in_the_singular(tmp_path, capsys):
    place(tmp_path, submitted())
    assert main(["check", str(tmp_path)]) == 0  # the commit is looked up in this checkout by default
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "generator check: 1 file, 1 pass, 0 fail"
    assert "note: 1 file: physically possible: MFU not checked" in out[0] and "not looked up" not in "".join(out)


@pytest.mark.parametrize("holds", [None, "notes.txt", "some-machine/notes.txt"])
def test_a_folder_without_records_is_a_usage_error_not_a_pass(tmp_path, capsys, holds):
    """A check of nothing would pass: a folder given that holds no *.json is named, even beside one that does."""
    folder = tmp_path / "my-results"
    folder.mkdir()
    if holds:
        (folder / holds).parent.mkdir(exist_ok=True)
        (folder / holds).write_text("not a record")
    place(tmp_path / "good", submitted())
    assert main(["check", str(tmp_path / "good"), str(folder)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert not captured.out
    assert captured.err.splitlines() == [f"generator check: error: PATH {folder}: no record (*.json) found under it"]


def test_a_repo_that_is_not_a_git_checkout_is_a_usage_error(tmp_path, capsys):
    place(tmp_path / "records", submitted())
    assert main(["check", str(tmp_path / "records"), "--repo", str(tmp_path)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert not captured.out
    assert captured.err.splitlines() == [
        f"generator check: error: --repo {tmp_path}: not a git checkout (no .git in it)"
    ]


def test_without_a_checkout_the_commit_is_not_looked_up_and_the_output_says_so(tmp_path):
    place(tmp_path, tampered(submitted(), "software", "git_commit", "f" * 40))
    report = check_paths([tmp_path], repo=tmp_path)
    assert not report.failure_lines()
    assert any("the commit was not looked up" in line for line in report.note_lines())


def test_an_older_record_without_first_losses_is_noted_not_failed(tmp_path):
    record = submitted()
    del record["training"]
    place(tmp_path, record)
    report = check_paths([tmp_path], repo=REPO)
    assert not report.failure_lines()
    assert any("no first losses" in line for line in report.note_lines())


def test_the_check_never_reads_a_record_through_a_folder_link(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    place(tmp_path / "elsewhere", submitted())
    os.symlink(tmp_path / "elsewhere", tmp_path / "linked")
    report = check_paths([tmp_path / "linked"], repo=REPO)
    assert [line.split(": ", 2)[1] for line in report.failure_lines()] == ["schema"]


def test_a_framework_imported_without_its_bytecode_is_noted_not_failed(tmp_path):
    def bytecode_notes(had_bytecode: bool, root: Path) -> list[str]:
        place(
            root,
            tampered(submitted(), "software", "bytecode", {"written": False, "framework_had_bytecode": had_bytecode}),
        )
        report = check_paths([root], repo=REPO)
        assert not report.failure_lines()
        return [line for line in report.note_lines() if "bytecode" in line]

    assert not bytecode_notes(True, tmp_path / "compiled")
    assert bytecode_notes(False, tmp_path / "from-source") == [
        "note: 1 file: provenance: the framework was imported without its bytecode: set-up and compile times "
        "include compiling its Python (make setup compiles it)"
    ]


#: two of the flags PyTorch reads back under fp32 (``TorchTrainer.precision_flags``): TF32 off, no autocast
TORCH_FP32_FLAGS = {"torch.backends.cudnn.allow_tf32": False, "torch.get_autocast_dtype": None}


def gpu_run() -> dict:
    """An H200 run whose memory was measured in two phases, the allocator's peaks reset between them."""
    return submitted(
        H200,
        rate=5000.0,
        first_step_memory={"allocator_peak_bytes": 3 << 29, "allocator_reserved_bytes": 1 << 31},
        memory_peaks_reset=True,
        nvml_first_step_peak_bytes=2 << 30,
        nvml_timed_peak_bytes=3 << 29,
    )


def edited(build, dotted: str, change) -> dict:
    """The record ``build()`` makes with the field at ``dotted`` replaced by ``change(old value)``: one field
    edited after the run, the fields derived from it kept."""
    record = build()
    *path, last = dotted.split(".", dotted.count(".") if not dotted.startswith("precision.flags") else 2)
    section = record
    for part in path:
        section = section[part]
    section[last] = change(section[last])
    return record


def with_flags(**flags) -> dict:
    return submitted(precision_flags={**TORCH_FP32_FLAGS, **flags})


def in_a_matrix() -> dict:
    """The third of 40 runs of a matrix, the load sampled across its clock."""
    during = {"samples": 3, "interval_seconds": 0.5, "mean_other_cpu_percent": 1.0, "peak_other_cpu_percent": 2.0}
    load = machine_load.load_section(QUIET, QUIET, waited_seconds=0.0, during_clock=during)
    return submitted(run_order=run_order(3, 40), load=load)


#: a derived field, a fact stated twice or a time -> (the record made, the field edited alone, the edit, the field
#: the rejection names)
DERIVATIONS = {
    "record id": (submitted, "record_id", lambda v: v[:-8] + "00000000", "record_id"),
    "configuration, id kept": (submitted, "config.seed", lambda v: v + 1, "record_id"),
    "steps per epoch": (submitted, "config.steps_per_epoch", lambda v: v + 1, "config.steps_per_epoch"),
    "images per epoch": (submitted, "config.images_per_epoch", lambda v: v + 32, "config.images_per_epoch"),
    "learning-rate schedule": (submitted, "config.lr_schedule", lambda v: {**v, "peak_lr": 1.0}, "config.lr_schedule"),
    "compute dtype": (submitted, "precision.compute_dtype", lambda v: "bfloat16", "precision.compute_dtype"),
    "model name": (submitted, "model.name", lambda v: "resnet50", "model.name"),
    "model MACs": (submitted, "model.macs_per_image", lambda v: v + 1, "model.macs_per_image"),
    "epoch seconds": (submitted, "timing.epoch_seconds", lambda v: v * 0.9, "timing.epoch_seconds"),
    "throughput": (submitted, "timing.images_per_second", lambda v: v * 1.1, "timing.images_per_second"),
    "compile seconds": (submitted, "timing.compile_seconds", lambda v: v / 2, "timing.compile_seconds"),
    "article seconds": (submitted, "timing.article_epoch_seconds", lambda v: v - 1, "timing.article_epoch_seconds"),
    "window count": (submitted, "timing.timed_windows", lambda v: v + 1, "timing.timed_windows"),
    "window sizes": (submitted, "timing.window_steps", lambda v: [1, *v[1:]], "timing.window_steps"),
    "epochs timed": (submitted, "timing.epoch_seconds_each", lambda v: v * 2, "timing.epoch_seconds_each"),
    "step p90": (submitted, "timing.step_seconds_p90", lambda v: v * 2, "timing.step_seconds_p90"),
    "window times": (
        submitted,
        "timing.window_step_seconds",
        lambda v: [2 * t for t in v],
        "timing.step_seconds_median",
    ),
    "rerun step": (submitted, "timing.rerun_step_seconds", lambda v: v * 2, "timing.compile_seconds"),
    "final accuracy": (submitted, "accuracy.final_test_accuracy", lambda v: 0.9, "accuracy.final_test_accuracy"),
    "final loss": (submitted, "accuracy.final_train_loss", lambda v: 0.1, "accuracy.final_train_loss"),
    "epoch numbers": (submitted, "accuracy.epochs", lambda v: [{**v[0], "epoch": 2}], "accuracy.epochs"),
    "allocator peak": (gpu_run, "memory.allocator_peak_bytes", lambda v: v // 2, "memory.allocator_peak_bytes"),
    "NVML peak": (gpu_run, "memory.nvml_process_peak_bytes", lambda v: 1 << 30, "memory.nvml_process_peak_bytes"),
    "host peak": (submitted, "memory.host_children_peak_rss_bytes", lambda v: 1 << 40, "memory.host_peak_rss_bytes"),
    "MFU alone on a GPU": (gpu_run, "mfu.value", lambda v: v * 0.8, "mfu.value"),
    "MFU's peak": (gpu_run, "mfu.peak_flops_per_second", lambda v: v * 2, "mfu.peak_flops_per_second"),
    "MFU's table": (gpu_run, "mfu.peak_table", lambda v: "tf32", "mfu.peak_table"),
    "MFU on a CPU": (submitted, "mfu.value", lambda v: 0.5, "mfu.value"),
    "busy flag": (submitted, "load.busy", lambda v: not v, "load.busy"),
    "busy threshold": (submitted, "load.threshold_cpu_percent", lambda v: 50.0, "load.threshold_cpu_percent"),
    "busy samples": (submitted, "load.start", lambda v: {**v, "other_cpu_percent": 40.0}, "load.busy"),
    "machine id": (submitted, "hardware.machine_id", lambda v: "my-fast-machine", "hardware.machine_id"),
    "CPU threads, id kept": (submitted, "hardware.cpu_threads", lambda v: 64, "hardware.machine_id"),
    "fingerprint, hash kept": (submitted, "hardware.fingerprint", lambda v: {**v, "family": "26"}, "fingerprint.hash"),
    "CPU device name": (submitted, "hardware.device_name", lambda v: "Faster CPU", "hardware.device_name"),
    "framework version": (submitted, "framework.version", lambda v: "2.15.0", "framework.version"),
    "precision twice": (submitted, "config.precision", lambda v: "bf16", "config.precision"),
    "TF32 under fp32": (with_flags, "precision.flags.torch.backends.cudnn.allow_tf32", lambda v: True, "allow_tf32"),
    "autocast under fp32": (
        with_flags,
        "precision.flags.torch.get_autocast_dtype",
        lambda v: "bfloat16",
        "precision.flags.torch.get_autocast_dtype",
    ),
    "step p90 below its median": (submitted, "timing.step_seconds_p90", lambda v: v / 2, "timing.step_seconds_p90"),
    "load's mean above its peak": (
        in_a_matrix,
        "load.during_clock",
        lambda v: {**v, "mean_other_cpu_percent": 3.0},
        "load.during_clock.peak_other_cpu_percent",
    ),
    "place beyond the matrix": (in_a_matrix, "config.run_order", lambda v: {**v, "position": 41}, "run_order.total"),
    "kernel twice": (submitted, "software.os", lambda v: "Linux 6.9.0 (x86_64)", "hardware.fingerprint.kernel"),
    "finished before started": (submitted, "finished_at", lambda v: "2026-01-01T00:00:00.000Z", "finished_at"),
    "no time": (submitted, "started_at", lambda v: "yesterday", "started_at"),
    "finished in the future": (submitted, "finished_at", lambda v: "2099-01-01T00:00:00.000Z", "finished_at"),
    "started before its commit": (submitted, "started_at", lambda v: "2026-01-01T00:00:00.000Z", "started_at"),
}


@pytest.mark.parametrize("case", DERIVATIONS)
def test_a_field_edited_alone_is_rejected_naming_it(tmp_path, case):
    build, dotted, change, named = DERIVATIONS[case]
    assert not failures(place(tmp_path / "kept", build()).parent.parent)
    path = place(tmp_path / "edited", edited(build, dotted, change), folder=build()["hardware"]["machine_id"])
    (line,) = failures(path.parent.parent).values()
    derived = [part for part in line.split("; ") if part.startswith("derived: ")]
    assert any(named in part.split(": stored")[0] and ", recomputed " in part for part in derived), line


def test_a_rejection_names_the_file_the_field_and_both_values(tmp_path):
    record = gpu_run()
    recomputed = record["mfu"]["value"]
    record["mfu"]["value"] = 0.9
    path = place(tmp_path, record)
    (line,) = check_paths([tmp_path], repo=REPO).failure_lines()
    assert line == f"{path}: derived: mfu.value: stored 0.9, recomputed {recomputed:.10g}"


#: ``generator check`` with every framework's import refused: what the submission workflow installs (no [cpu] extra)
WITHOUT_FRAMEWORKS = """
import sys
class Refuse:
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("torch", "tensorflow", "jax", "jaxlib", "flax", "keras", "optax"):
            raise ImportError(f"{name}: not installed in the submission workflow")
sys.meta_path.insert(0, Refuse())
from generator.cli import main
sys.exit(main(["check", *sys.argv[1:]]))
"""


def test_the_derivations_replay_the_runner_without_any_framework(tmp_path):
    good, bad = (
        place(tmp_path / "good", gpu_run()),
        place(tmp_path / "bad", edited(gpu_run, "mfu.value", lambda v: 0.9)),
    )
    check = [sys.executable, "-c", WITHOUT_FRAMEWORKS, "--repo", str(REPO)]
    assert subprocess.run([*check, str(good)], cwd=REPO, capture_output=True).returncode == 0
    done = subprocess.run([*check, str(bad)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1 and f"{bad}: derived: mfu.value: stored 0.9" in done.stdout


def test_a_record_of_rules_before_ids_hashed_the_timing_protocol_may_carry_the_id_it_was_given_then():
    record = submitted()
    config = run_config(record)
    then = {**record, "record_id": dataclasses.replace(config, timing_protocol=None).record_id}
    assert then["record_id"] != record["record_id"]
    assert [m.field for m in replayed({**then, "rules": 3})] == []
    assert [m.field for m in replayed(then)] == ["record_id"]  # current rules: only the hashed id is the runner's


def test_harness_checks_pass_as_what_they_are_and_a_bad_one_is_named_with_its_field(tmp_path):
    from fwbench.harness_checks import checks_path, write_checks

    check = {
        "framework": "jax",
        "workload": "resnet18",
        "device_kind": "tpu",
        "device_name": "TPU v5 lite",
        "machine_id": "tpu-v5-lite-1x1",
        "precision": "bf16",
        "batch_size": 256,
        "harness": "0123456789ab",
        "reference": "Flax NNX performance-guide loop",
        "ratio": 0.99,
        "ratio_interval": [0.98, 1.0],
        "pairs": 5,
    }
    good = write_checks(checks_path(tmp_path, "tpu-v5-lite-1x1", "2026-12-07T00:39:08Z"), [check], "idiomatic_loop")
    bad = good.with_name("bad.json")
    bad.write_text(good.read_text().replace('"ratio": 0.99', '"ratio": "fast"'))
    report = check_paths([tmp_path], repo=None)
    assert not report.failures.get(good) and "valid harness checks" in " ".join(n[1] for n in report.notes)
    assert "field 'checks[0].ratio': expected a number" in " ".join(f[1] for f in report.failures[bad])


def test_a_commit_only_on_a_side_branch_is_not_in_the_history(tmp_path):
    """A record made from a commit that never reached the main line fails, although the checkout holds its object:
    a clean clone of the main line would not."""
    repo = tmp_path / "repo"

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    repo.mkdir()
    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "main line")
    main_line = git("rev-parse", "HEAD")
    git("checkout", "-q", "-b", "side")
    git("commit", "-q", "--allow-empty", "-m", "side branch")
    side = git("rev-parse", "HEAD")
    git("checkout", "-q", "main")
    place(tmp_path / "on-main", tampered(submitted(), "software", "git_commit", main_line))
    place(tmp_path / "on-side", tampered(submitted(), "software", "git_commit", side))
    history = [line for line in check_paths([tmp_path / "on-main"], repo=repo).failure_lines() if "history" in line]
    assert not history
    assert any(
        f"software.git_commit {side} is not in this repository's history" in line
        for line in check_paths([tmp_path / "on-side"], repo=repo).failure_lines()
    )
