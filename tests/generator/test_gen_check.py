"""`generator check`: a submission's records pass or fail with one line per file naming the rule; the committed
records pass; planted bad records each fail with their reason; no input makes it raise."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
from pathlib import Path

import gen_records
import pytest

from fwbench.cliargs import EXIT_USAGE
from generator.cli import main
from generator.records.check import check_paths
from generator.records.check_rules import load_references, record_key
from runners.profiles import expand
from runners.record import config_section, ok_record

REPO = Path(__file__).resolve().parents[2]
HEAD = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
QUIET = {"load_avg_1m": 0.2, "load_avg_5m": 0.2, "other_cpu_percent": 0.8, "cpu_count": 2}
H200 = "nvidia-h200"


def hardware(machine_id: str) -> dict:
    """A machine's hardware as the runners record it: a GPU host has a CPU fingerprint too."""
    return {**gen_records.hardware(machine_id), "fingerprint": gen_records.fingerprint()}


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
    software = {**gen_records.software(), "git_commit": HEAD}
    return ok_record(
        config,
        hardware(machine_id),
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:01:00.000Z",
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


def test_the_committed_records_pass():
    report = check_paths([REPO / "results" / "runs"], repo=REPO)
    assert report.files and not report.failure_lines()
    notes = "\n".join(report.note_lines())
    assert "same work: not checkable" in notes and "MFU not checked" in notes


def test_a_whole_results_folder_passes_with_its_probes_bisect_reports_and_the_runs_behind_them():
    """What the build reads (results/): the probe records and bisect reports valid against their own schemas, the
    runs behind a bisect (bisect/<machine>/runs/) in their machine's place, sharing ids with that machine's runs."""
    results = REPO / "results"
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
    probe = next((REPO / "results" / "probes").rglob("*.json"))
    root = tmp_path / "results"
    among_runs = root / "runs" / "some-machine" / probe.name
    in_probes = root / "probes" / "some-machine" / probe.name
    for path in (among_runs, in_probes):
        path.parent.mkdir(parents=True)
        path.write_text(probe.read_text())
    expected = "schema: field 'schema' is 'fwbench.probe/1', expected 'fwbench.run/3'"
    assert [line for _, line in zip_lines(check_paths([root], repo=REPO))] == [f"{among_runs}: {expected}"]
    assert zip_lines(check_paths([in_probes], repo=REPO)) == [(in_probes, f"{in_probes}: {expected}")]
    in_probes.write_text(json.dumps({**json.loads(probe.read_text()), "framework": 3}))
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
        "schema: field 'timing.compile_seconds': -1.0 is less than the minimum of 0",
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
    path = place(tmp_path, build(), folder=gen_records.CPU_MACHINE, name="r.json")
    assert failures(tmp_path) == {path.name: line}


def test_a_record_under_another_machines_folder_fails(tmp_path):
    path = place(tmp_path, submitted(), folder=H200)
    assert failures(tmp_path) == {path.name: f"place: a record of machine {gen_records.CPU_MACHINE} under {H200}/"}


def test_a_duplicate_record_id_fails_once(tmp_path):
    record = submitted()
    copy_ = place(tmp_path, record, name="copy.json")  # read first: its name sorts first
    original = place(tmp_path, record)
    assert failures(tmp_path) == {original.name: f"place: duplicate record id {record['record_id']} (also {copy_})"}


def test_several_failures_of_one_file_share_its_line(tmp_path):
    record = tampered(submitted(H200, rate=40_000.0), "model", "trainable_params", 1)
    place(tmp_path, record, folder=gen_records.CPU_MACHINE)
    (line,) = failures(tmp_path).values()
    assert "physically possible:" in line and "same work:" in line and "place:" in line


def corrupt_corpus() -> dict[str, tuple[bytes, str]]:
    """The malformed files ``tests/test_records_robust.py`` shows the reader refusing."""
    spec = importlib.util.spec_from_file_location("records_robust", REPO / "tests" / "test_records_robust.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CORRUPT


def test_every_malformed_file_gets_one_line_and_never_a_crash(tmp_path, capsys):
    folder = tmp_path / gen_records.CPU_MACHINE
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
