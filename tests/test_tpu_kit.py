"""benchmarks/tpu_kit.sh, with a stand-in python3 that records its calls: what a borrowed TPU machine runs in one
call (docs/design.md, "On a TPU")."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAND_IN = """#!/bin/sh
echo "$*" >> "$CALLS"
echo "$PWD" >> "$CALLS.cwd"
"""


def run_kit(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    checkout = tmp_path / "checkout"
    (checkout / "benchmarks").mkdir(parents=True)
    shutil.copy(REPO / "benchmarks" / "tpu_kit.sh", checkout / "benchmarks")
    (checkout / "README.md").write_text("committed\n")
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "kit"], check=True)
    (checkout / "README.md").write_text("edited, not committed\n")
    (checkout / ".whl-tpu").mkdir()
    (checkout / ".whl-tpu" / "torchax-0.0.13-py3-none-any.whl").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(STAND_IN)
    (bin_dir / "python3").chmod(0o755)
    calls = tmp_path / "calls"
    done = subprocess.run(
        ["bash", str(checkout / "benchmarks" / "tpu_kit.sh")],
        capture_output=True,
        text=True,
        env={
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "CALLS": str(calls),
            "OUT": str(tmp_path / "out"),
            "HOME": str(tmp_path),
            "TPU_KIT_LIB": str(tmp_path / "lib"),
            "TPU_KIT_TREE": str(tmp_path / "tree"),
            **env,
        },
        timeout=60,
    )
    return done, calls.read_text().splitlines()


def test_the_kit_installs_from_the_machines_index_and_the_carried_wheels_then_runs_the_tpu_matrices(tmp_path):
    done, calls = run_kit(tmp_path)
    assert done.returncode == 0, done.stderr
    installs, matrices = calls[:3], calls[3:]
    assert all("pip install" in call for call in installs)
    assert "file:///opt/pypi/simple" in installs[0] and "flax optax" in installs[0]
    assert "--find-links /opt/wheels torch" in installs[1]
    assert ".whl-tpu/torchax-0.0.13-py3-none-any.whl" in installs[2] and "--no-index" in installs[2]
    assert all("--repeats 3" in matrix for matrix in matrices)
    assert [m.split()[:5] for m in matrices] == [["-m", "runners.cli", "matrix", "--device", "tpu"]] * 2
    assert "quick-gpt" in matrices[0] and "--profile quick " in matrices[1]
    deadlines = {matrix.split("--deadline ")[1].split()[0] for matrix in matrices}
    assert len(deadlines) == 1, "every matrix of a call stops by the same deadline"
    seconds_left = datetime.fromisoformat(deadlines.pop()).timestamp() - time.time()
    assert 7 * 60 < seconds_left <= 8 * 60 - 20, "the default 8 minutes, less the packing"
    log = (tmp_path / "out" / "tpu_kit.log").read_text()
    assert "tpu_kit: done in" in log and (tmp_path / "out" / "tpu_kit.tar.gz").is_file()


def test_a_second_call_on_the_same_machine_installs_nothing_and_runs_the_plan_it_is_given_in_order(tmp_path):
    (tmp_path / "lib" / "torchax").mkdir(parents=True)  # what the first call installed
    plan = "--profile quick --precision bf16 --batch-sizes 256;--profile quick-gpt --repeats 5"
    done, calls = run_kit(tmp_path, TPU_KIT_PLAN=plan)
    assert done.returncode == 0 and "installed before" in done.stdout
    assert [call.split(" --deadline")[0] for call in calls] == [
        "-m runners.cli matrix --device tpu --repeats 3 --profile quick --precision bf16 --batch-sizes 256",
        "-m runners.cli matrix --device tpu --repeats 3 --profile quick-gpt --repeats 5",
    ]


def test_a_call_without_time_left_starts_no_matrix_and_says_so(tmp_path):
    done, calls = run_kit(tmp_path, TPU_KIT_MINUTES="1")
    assert done.returncode == 0 and calls[3:] == []
    assert done.stdout.count("tpu_kit: no time left for:") == 2


def test_the_runs_are_made_from_a_clean_checkout_of_the_commit_whatever_the_working_tree_holds(tmp_path):
    done, _calls = run_kit(tmp_path)
    assert done.returncode == 0, done.stderr
    tree = tmp_path / "tree"
    assert set((tmp_path / "calls.cwd").read_text().splitlines()) == {str(tree)}
    assert (tree / "README.md").read_text() == "committed\n"
    assert (tree / ".whl-tpu" / "torchax-0.0.13-py3-none-any.whl").is_file()
