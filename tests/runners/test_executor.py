"""The executor boundary (runners/executors/boundary.py): the matrix resumes, stores every record under the machine that
ran it, keeps plan order and shows where each configuration ran, whatever order an executor finishes in; the local
executor runs the same child command as always; placeholder records cannot pass for measurements."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from fwbench.cliargs import UsageError
from fwbench.records import read_record, validate
from runners import cli
from runners.executors.boundary import Finished, Job, Started, Target
from runners.executors.local import COMPILE_CACHE_ENV, LocalExecutor
from runners.matrix import driver as matrix
from runners.matrix import store
from runners.matrix.summary import node_lines, side_by_side, summary_table
from runners.measure import placeholder_record, profiles, provenance
from runners.measure.record import record_path


def configs(*seeds: int) -> list[profiles.RunConfig]:
    return profiles.expand("smoke", version_of={"torch": "2.4.1"}.get, frameworks=["torch"], seeds=list(seeds))


def dry_record(config: profiles.RunConfig, machine_id: str) -> dict:
    record = placeholder_record.placeholder_record(config)
    record["hardware"]["machine_id"] = machine_id
    return record


class Concurrent:
    """Starts every job at once and finishes them last first, each on a node of its own."""

    name = "ray"

    def __init__(self):
        self.closed = False

    def execute(self, jobs):
        try:
            taken = list(jobs)
            for k, job in enumerate(taken):
                yield Started(job, f"node-{k}")
            for k, job in reversed(list(enumerate(taken))):
                if job.config.seed == 2:
                    yield Finished(job, None, f"node-{k}", 0.0, "no node of kind-b is left")
                else:
                    record = {**dry_record(job.config, f"kind-{k}"), "executor": {"name": "ray", "node": f"node-{k}"}}
                    yield Finished(job, record, f"node-{k}", 2.0)
        finally:
            self.closed = True


def test_records_of_an_executor_that_finishes_out_of_order_land_per_machine_in_plan_order(tmp_path, capsys):
    order = configs(0, 1, 2)
    target = Target(("kind-0", "kind-1"), {}, "kind-0, kind-1", ("a", "b"))
    executor = Concurrent()
    results = matrix.run_matrix([(target, order)], tmp_path, executor, progress=False).results
    assert [r.config for r in results] == order and executor.closed
    assert [(r.where, r.record is None, r.note) for r in results] == [
        ("node-0", False, ""),
        ("node-1", False, ""),
        ("node-2", True, "no node of kind-b is left"),
    ]
    stored = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert stored == [f"kind-0/{order[0].record_id}.json", f"kind-1/{order[1].record_id}.json"]
    assert read_record(tmp_path / stored[1])["executor"] == {"name": "ray", "node": "node-1"}
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "[3/3] torch/compiled bs32 seed2 on node-2: not run, no node of kind-b is left",
        "[2/3] torch/compiled bs32 seed1 on node-1: error (PlaceholderRecord) in 2 s",
        "[1/3] torch/compiled bs32 seed0 on node-0: error (PlaceholderRecord) in 2 s",
    ]
    assert node_lines(results) == [
        "node node-0: ran 1 (0 ok, 1 failed) in 2 s",
        "node node-1: ran 1 (0 ok, 1 failed) in 2 s",
    ]
    table = summary_table(results).splitlines()
    assert table[0].startswith("machine ") and table[2].startswith("kind-0 ") and table[4].startswith("— ")
    assert "no node of kind-b is left" in table[4]
    assert not summary_table(results[:1]).startswith("machine"), "one machine: no machine column"


def test_runs_side_by_side_are_told_apart_from_runs_one_after_the_other():
    def ran(start: str, end: str) -> dict:
        return {"started_at": f"2026-12-01T10:00:{start}.000Z", "finished_at": f"2026-12-01T10:00:{end}.000Z"}

    assert not side_by_side([ran("10", "20"), ran("00", "10"), ran("21", "30")])
    assert side_by_side([ran("00", "10"), ran("05", "20")])


def test_an_ok_record_under_any_machine_of_the_target_is_resumed(tmp_path):
    (config,) = configs(0)
    path = record_path(tmp_path, "kind-b", config)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"status": "ok"}))
    found = {"status": "ok", "framework": {"name": "torch", "version": "2.4.1", "mode": "compiled"}}
    assert store.completed(config, tmp_path, ["kind-a"]) is None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "stored_record", lambda path, kind: found if path.is_file() else None)
        assert store.completed(config, tmp_path, ["kind-a", "kind-b"]) is found


def test_ctrl_c_closes_the_executor_and_stores_nothing_of_what_ran(tmp_path, monkeypatch):
    class Interrupted(Concurrent):
        def execute(self, jobs):
            try:
                for job in jobs:
                    yield Started(job, "node-0")
                    raise KeyboardInterrupt
            finally:
                self.closed = True

    executor = Interrupted()
    with pytest.raises(KeyboardInterrupt):
        matrix.run_matrix([(Target(("m",), {}), configs(0, 1))], tmp_path, executor, progress=False)
    assert executor.closed and not any(tmp_path.iterdir())


def test_the_local_executor_runs_the_child_and_keeps_nothing_of_it(tmp_path):
    (config,) = profiles.expand("smoke", frameworks=["torch"])
    executor = LocalExecutor(placeholder_records=True)
    scratch = Path(tempfile.gettempdir())
    before = set(scratch.glob("fwbench-run-*"))
    (started, finished) = list(executor.execute([Job(config, (1, 1), Target(("m",), {}))]))
    assert isinstance(started, Started) and started.where == ""
    record = finished.record
    validate(record)
    assert record["executor"] == {"name": "local"} and record["record_id"] == config.record_id
    assert record["failure"]["exception_type"] == placeholder_record.PLACEHOLDER_FAILURE and record["timing"] is None
    assert set(scratch.glob("fwbench-run-*")) == before, "its directory is gone"


def test_a_run_killed_at_its_timeout_leaves_no_temporary_file(tmp_path, monkeypatch):
    # the run's process writes a temporary file and hangs: the executor kills it, and removes its scratch directory
    interpreter = tmp_path / "fake-python"
    checked = 'if [ "$1" = -c ]; then exit 0; fi'  # the framework check passes
    interpreter.write_text(f'#!/usr/bin/env bash\n{checked}\necho x > "$TMPDIR/left"\nsleep 60\n')
    interpreter.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv(COMPILE_CACHE_ENV, str(tmp_path / "caches"))
    (config,) = profiles.expand("smoke", frameworks=["torch"])
    record = LocalExecutor(pythons={"torch": str(interpreter)}, timeout_s=3).run(config)
    assert record["status"] == "timeout"
    assert not any(scratch.iterdir())


def test_a_framework_interpreter_may_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("FWBENCH_PYTHON_JAX", "/opt/jax/bin/python")
    executor = LocalExecutor(pythons={"torch": "/opt/torch/bin/python"})
    assert executor.python_for("jax") == "/opt/jax/bin/python"
    assert executor.python_for("torch") == "/opt/torch/bin/python"  # --python wins over the environment
    assert executor.python_for("tensorflow") == sys.executable


def test_the_machine_id_may_be_set_by_the_environment(monkeypatch):
    hardware = provenance.hardware_info()
    monkeypatch.setenv(provenance.MACHINE_ID_ENV, "Rack 7 / VM 3")
    assert provenance.machine_id(hardware) == "rack-7-vm-3" == provenance.hardware_for("cpu")["machine_id"]


@pytest.mark.parametrize("out", ["results", "results/runs", "{repo}/results/runs/x"])
def test_a_dry_run_never_writes_under_results(out, capsys):
    out = out.format(repo=provenance.REPO_ROOT)
    with pytest.raises(UsageError, match="placeholder record"):
        placeholder_record.refuse_results_dir(Path(out))
    assert cli.main(["matrix", "--placeholder-record", "--profile", "smoke", "--out", out]) == 2
    assert "--out" in capsys.readouterr().err
