"""`runners matrix --executor ray` on a real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``): each
node one CPU and its own machine kind (``FWBENCH_MACHINE_ID``: kind-a, the head, and kind-b). Configurations spread
over the nodes and their records land per machine, as local ones would; a rerun resumes; a node lost mid-configuration
means a second try elsewhere, or a "node lost" record; Ctrl-C leaves no record and no run behind. Most runs write
placeholder records (``runners.measure.placeholder_record``): they test the executor, not the frameworks, in seconds.
Without Ray, the flag is a usage error.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from fwbench.records import read_record
from runners import cli
from runners.executors.ray_cluster import (
    ONE_MACHINE_ENV,
    RAY_EXTRA,
    Node,
    eligible_nodes,
    node_environment,
    plan_of,
    task_resources,
)
from runners.matrix.survey import Survey
from runners.measure import provenance

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=f"Ray is not installed ({RAY_EXTRA})")
HANG_ENV = "FWBENCH_TEST_HANG"  # set on a node: its runs hang, their PIDs appended to the file it names


def node_args(kind: str, **env: str) -> dict:
    return {
        "num_cpus": 1,
        "resources": {kind.replace("-", "_"): 1},
        "include_dashboard": False,
        "env_vars": {provenance.MACHINE_ID_ENV: kind, **env},
    }


@pytest.fixture(scope="module")
def cluster():
    """kind-a (the head) and kind-b, one CPU each, on this machine."""
    # read when Ray is first imported: loopback addresses, unless an earlier test imported Ray without it, in which
    # case the nodes take the address of the default route's interface (the assertions accept either)
    os.environ.setdefault(*ONE_MACHINE_ENV)
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args=node_args("kind-a"))
    cluster.add_node(**node_args("kind-b"))
    yield cluster
    cluster.shutdown()


def hanging_python(tmp_path: Path, everywhere: bool = False) -> Path:
    """An interpreter whose runs hang (on nodes that set ``HANG_ENV``, or ``everywhere``); otherwise this one."""
    script = tmp_path / "python"
    condition = f'[ "$3" = run ] && [ -n "${HANG_ENV}" ]' if not everywhere else '[ "$3" = run ]'
    pids = tmp_path / "hung"
    script.write_text(
        f'#!/usr/bin/env bash\nif {condition}; then echo $$ >> "${{{HANG_ENV}:-{pids}}}"; '
        f'exec sleep 300; fi\nexec {sys.executable} "$@"\n'
    )
    script.chmod(0o755)
    return script


def start_matrix(cluster, out: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "runners.cli",
            "matrix",
            "--executor",
            "ray",
            "--ray-address",
            cluster.address,
            "--profile",
            "smoke",
            "--out",
            str(out),
            "--no-progress",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # a shell job takes Ctrl-C even when these tests run in a background job, whose SIGINT is ignored (inherited)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def matrix_on(cluster, out: Path, *args: str) -> subprocess.CompletedProcess:
    process = start_matrix(cluster, out, *args)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def records_in(out: Path) -> dict[str, dict]:
    """Records by ``<machine>/<file>``; no other file may be there (nothing half-written)."""
    files = [p for p in out.rglob("*") if p.is_file()]
    assert all(p.suffix == ".json" and not p.name.startswith(".") for p in files), files
    return {p.relative_to(out).as_posix(): read_record(p) for p in sorted(files)}


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


@needs_ray
@pytest.mark.slow
def test_configurations_spread_over_the_nodes_land_per_machine_and_a_rerun_resumes(cluster, tmp_path):
    out = tmp_path / "runs"
    configurations = ["--frameworks", "torch", "--modes", "eager", "--seeds", "0,1"]
    configurations += ["--batch-sizes", "8", "--train-images", "16", "--test-images", "8"]  # real runs, seconds each
    first = matrix_on(cluster, out, *configurations)
    assert first.returncode == 0, first.stderr[-3000:]
    found = records_in(out)
    assert sorted(path.split("/")[0] for path in found) == ["kind-a", "kind-b"], "one configuration on each node"
    for path, record in found.items():
        assert record["status"] == "ok" and record["hardware"]["machine_id"] == path.split("/")[0]
        assert record["model"]["trainable_params"] == 11_173_962 and record["timing"]["images_per_second"] > 0
        assert record["executor"]["name"] == "ray" and record["executor"]["attempt"] == 1
        assert record["config"]["tuning_environment"] == {}, "Ray's thread count for its tasks did not leak in"
    assert len({r["executor"]["node_id"] for r in found.values()}) == 2
    # the nodes' address is the one Ray picks for this machine: loopback, or the interface of its default route
    assert re.search(r"ray: 2 node\(s\): [\d.]+ \(kind-a, node ", first.stdout), first.stdout
    assert re.search(r"node [\d.]+ \(kind-b", first.stdout), first.stdout
    mtimes = {path: (out / path).stat().st_mtime_ns for path in found}

    again = matrix_on(cluster, out, *configurations)
    assert again.returncode == 0 and again.stderr.count("done before (resumed)") == 2, again.stderr[-3000:]
    assert {path: (out / path).stat().st_mtime_ns for path in found} == mtimes


@needs_ray
def test_per_kind_runs_the_matrix_on_every_kind_and_records_match_local_ones(cluster, tmp_path):
    out = tmp_path / "runs"
    result = matrix_on(cluster, out, "--frameworks", "torch", "--per-kind", "--placeholder-record")
    assert result.returncode == 1, result.stderr[-3000:]  # a placeholder record is a failure, never a measurement
    found = records_in(out)
    (record_id,) = {path.split("/")[1] for path in found}
    assert sorted(found) == [f"kind-a/{record_id}", f"kind-b/{record_id}"]
    assert "kind-a: order (" in result.stdout and "kind-b: order (" in result.stdout

    local = tmp_path / "local"
    assert (
        cli.main(
            [
                "matrix",
                "--profile",
                "smoke",
                "--frameworks",
                "torch",
                "--placeholder-record",
                "--out",
                str(local),
                "--no-progress",
            ]
        )
        == 1
    )
    (here,) = records_in(local).values()
    on_ray = found[f"kind-a/{record_id}"]
    assert here["record_id"] == on_ray["record_id"] and set(here) == set(on_ray)
    assert here["config"] == on_ray["config"] and here["software"] == on_ray["software"]
    assert here["executor"] == {"name": "local"} and on_ray["executor"]["name"] == "ray"


@needs_ray
def test_a_node_lost_mid_configuration_is_tried_again_on_another_node(cluster, tmp_path):
    hung = tmp_path / "hung-on-doomed-node"
    doomed = cluster.add_node(**node_args("kind-b", **{HANG_ENV: str(hung)}))
    out = tmp_path / "runs"
    matrix = start_matrix(
        cluster,
        out,
        "--frameworks",
        "torch",
        "--seeds",
        "0,1,2",
        "--placeholder-record",
        "--python",
        f"torch={hanging_python(tmp_path)}",
    )
    wait_for(hung.exists, timeout=60, what="a configuration to start on the doomed node")
    cluster.remove_node(doomed)
    stdout, stderr = matrix.communicate(timeout=120)
    found = records_in(out)
    assert len(found) == 3, stderr[-3000:]
    (retried,) = [r for r in found.values() if r["executor"]["attempt"] == 2]
    assert retried["executor"]["node_id"] != doomed.node_id
    assert retried["failure"]["exception_type"] == "PlaceholderRecord"


@needs_ray
def test_the_only_node_of_a_kind_lost_leaves_a_node_lost_record(cluster, tmp_path):
    hung = tmp_path / "hung-on-doomed-node"
    doomed = cluster.add_node(**node_args("kind-c", **{HANG_ENV: str(hung)}))
    out = tmp_path / "runs"
    matrix = start_matrix(
        cluster,
        out,
        "--frameworks",
        "torch",
        "--per-kind",
        "--placeholder-record",
        "--python",
        f"torch={hanging_python(tmp_path)}",
    )
    wait_for(hung.exists, timeout=60, what="the configuration of kind-c to start")
    cluster.remove_node(doomed)
    stdout, stderr = matrix.communicate(timeout=120)
    found = records_in(out)
    assert sorted(path.split("/")[0] for path in found) == ["kind-a", "kind-b", "kind-c"], stderr[-3000:]
    (lost,) = [r for path, r in found.items() if path.startswith("kind-c/")]
    assert lost["status"] == "error" and lost["failure"]["exception_type"] == "NodeLost"
    assert re.match(r"node lost: [\d.]+ \(kind-c, node ", lost["failure"]["message"]), lost["failure"]["message"]
    assert lost["executor"]["node_id"] == doomed.node_id
    assert "no other node of kind-c to try" in lost["failure"]["message"]


@needs_ray
def test_ctrl_c_cancels_the_tasks_and_leaves_no_record_and_no_run(cluster, tmp_path):
    python = hanging_python(tmp_path, everywhere=True)
    out = tmp_path / "runs"
    matrix = start_matrix(
        cluster, out, "--frameworks", "torch", "--seeds", "0,1", "--placeholder-record", "--python", f"torch={python}"
    )
    hung = tmp_path / "hung"
    pids = wait_for(
        lambda: hung.exists() and len(hung.read_text().split()) == 2 and hung.read_text().split(),
        timeout=60,
        what="a run to hang on each node",
    )
    os.killpg(matrix.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the foreground process group
    _, stderr = matrix.communicate(timeout=60)
    assert matrix.returncode == 130 and "interrupted" in stderr
    assert not out.exists() or records_in(out) == {}
    wait_for(lambda: not any(psutil.pid_exists(int(pid)) for pid in pids), timeout=30, what="the runs to die")


def test_without_ray_the_ray_executor_is_a_one_line_usage_error(monkeypatch, tmp_path, capsys):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "ray" else real_find_spec(name))
    out = tmp_path / "runs"
    assert cli.main(["matrix", "--executor", "ray", "--profile", "smoke", "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert RAY_EXTRA in line and "--executor ray" in line
    assert not out.exists()


@pytest.mark.parametrize("flag", [["--ray-address", "auto"], ["--per-kind"], ["--accelerator-type", "H100"]])
def test_ray_flags_need_the_ray_executor(flag, tmp_path, capsys):
    assert cli.main(["matrix", *flag, "--out", str(tmp_path / "runs")]) == 2
    assert f"{flag[0]}: only with --executor ray" in capsys.readouterr().err


def ray_node(node_id: str, **resources: float) -> dict:
    return {"NodeID": node_id, "Alive": True, "NodeManagerAddress": "10.0.0.1", "Resources": resources}


H100 = ray_node("h100", CPU=32, GPU=8, **{"accelerator_type:H100": 1})
A10G = ray_node("a10g", CPU=8, GPU=1, **{"accelerator_type:A10G": 1})
CPU_ONLY = ray_node("cpu", CPU=16)


def test_gpu_configurations_take_one_gpu_each_and_cpu_ones_a_whole_node():
    assert eligible_nodes([H100, A10G, CPU_ONLY], "auto", None) == ([H100, A10G], True)
    assert eligible_nodes([H100, A10G, CPU_ONLY], "auto", "H100") == ([H100], True)
    assert task_resources(H100, True, "H100") == (8, {"num_gpus": 1, "accelerator_type": "H100"})
    assert task_resources(A10G, True, None) == (1, {"num_gpus": 1})
    assert eligible_nodes([H100, CPU_ONLY], "cpu", None) == ([H100, CPU_ONLY], False)
    assert task_resources(H100, False, None) == (1, {"num_cpus": 32})  # the whole node: nothing shares its CPUs
    assert eligible_nodes([CPU_ONLY, {**H100, "Alive": False}], "auto", None) == ([CPU_ONLY], False)


@pytest.mark.parametrize(
    "device, accelerator, message",
    [
        ("gpu", None, "--device gpu: no node of the cluster has a GPU"),
        ("auto", "V100", "--accelerator-type V100: no node of the cluster has one (its GPU kinds: A10G)"),
        ("cpu", "A10G", "--accelerator-type A10G: the configurations run on the CPU"),
    ],
)
def test_a_cluster_without_the_nodes_asked_for_is_a_usage_error(device, accelerator, message):
    nodes = [CPU_ONLY] if device == "gpu" else [CPU_ONLY, A10G]
    with pytest.raises(cli.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        eligible_nodes(nodes, device, accelerator)


def test_per_kind_makes_one_matrix_per_machine_kind():
    from runners.measure.profiles import expand

    configs = expand("smoke", version_of={"jax": "0.4.26"}.get, frameworks=["jax"])

    def node(node_id: str, machine_id: str) -> Node:
        return Node(node_id, "10.0.0.1", 1, {}, Survey({"machine_id": machine_id}, {}, configs))

    nodes = [node("1", "kind-a"), node("2", "kind-a"), node("3", "kind-b")]
    (everywhere,) = plan_of(nodes, per_kind=False)
    assert everywhere[0].machine_ids == ("kind-a", "kind-b") and everywhere[0].nodes == ("1", "2", "3")
    per_kind = plan_of(nodes, per_kind=True)
    assert [(t.label, t.nodes, len(order)) for t, order in per_kind] == [
        ("kind-a", ("1", "2"), 1),
        ("kind-b", ("3",), 1),
    ]


def test_a_run_sees_the_nodes_environment_not_the_thread_count_ray_sets_for_its_tasks(monkeypatch, tmp_path):
    starting = tmp_path / "environ"
    starting.write_bytes(b"PATH=/bin\0MKL_NUM_THREADS=4\0")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as Ray sets it for a task on a node that sets none
    with node_environment(starting):
        assert "OMP_NUM_THREADS" not in os.environ
    assert os.environ["OMP_NUM_THREADS"] == "1", "Ray's value is back for Ray"
    starting.write_bytes(b"OMP_NUM_THREADS=8\0")
    with node_environment(starting):
        assert os.environ["OMP_NUM_THREADS"] == "8"
