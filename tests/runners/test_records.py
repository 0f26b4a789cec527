"""Run records: the schema accepts what the runners write and rejects what they must not."""

from __future__ import annotations

import json

import pytest

from fwbench.records import RecordError, find_key, read_record, validate, write_record
from runners import provenance, run
from runners.profiles import expand
from runners.record import failed_record

CONFIG = expand("smoke", frameworks=["torch"])[0]


def failed(status="error"):
    return failed_record(CONFIG, provenance.hardware_info(), provenance.utc_now(), status, "RuntimeError",
                         "boom <b>&</b>", stderr_tail="x" * 10_000, exit_code=1, version="2.14.1")


def test_failed_record_validates_and_keeps_the_error():
    record = failed("oom")
    validate(record)
    assert record["status"] == "oom" and record["timing"] is None
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


@pytest.mark.parametrize("exc, oom", [
    (MemoryError(), True),
    (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), True),
    (RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate"), True),
    (type("ResourceExhaustedError", (Exception,), {})("OOM when allocating tensor"), True),
    (ValueError("shapes (3,) and (4,) not aligned"), False),
])
def test_out_of_memory_is_recognised_in_each_frameworks_words(exc, oom):
    assert run.is_out_of_memory(exc) is oom


def test_mfu_is_null_for_unknown_devices():
    assert run.peak_flops("AMD EPYC") is None
    assert run.peak_flops("NVIDIA H200") > 0


def test_tuning_variables_become_part_of_the_configuration(monkeypatch):
    for name in ("XLA_FLAGS", "TORCHINDUCTOR_CACHE_DIR", "GITHUB_TOKEN", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    (plain,) = expand("quick", frameworks=["jax"], batch_sizes=[32])
    # out-of-the-box ids are those of the records already committed under results/
    assert plain.record_id == "jax-compiled-synthetic-bs32-seed0-f4f59c56"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/tmp/somewhere")  # a cache location changes no code
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")  # never a tuning variable, never recorded
    assert expand("quick", frameworks=["jax"], batch_sizes=[32])[0] == plain
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")
    (tuned,) = expand("quick", frameworks=["jax"], batch_sizes=[32])
    assert tuned.tuning == (("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type="),)
    assert tuned.record_id != plain.record_id  # a tuned run never resumes or replaces an untuned one
    record = failed_record(tuned, provenance.hardware_info(), provenance.utc_now(), "error", "E", "m")
    validate(record)
    assert record["config"]["tuning_environment"] == {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}
    assert "ghp_secret" not in json.dumps(record)


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
