"""No orphans: a configuration's whole process tree dies with `runners matrix`, also when the matrix is SIGKILLed,
and Ctrl-C stops the run in flight without recording it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import psutil
import pytest

from runners.executors.lifetime import REAPER

RUNNERS = [sys.executable, "-m", "runners.cli"]


def start_matrix(out: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``runners matrix`` on the smoke profile, as the real command, in a session of its own (like a shell job)."""
    return subprocess.Popen(
        [*RUNNERS, "matrix", "--profile", "smoke", "--out", str(out), "--no-progress", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # a shell job takes Ctrl-C even when these tests run in a background job, whose SIGINT is ignored (inherited)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def fake_python(tmp_path: Path, body: str) -> Path:
    """An 'interpreter' that passes the framework check and runs ``body`` (bash) as the configuration."""
    script = tmp_path / "fake-python"
    script.write_text(f'#!/usr/bin/env bash\nif [ "$1" = -c ]; then exit 0; fi\n{body}\n')
    script.chmod(0o755)
    return script


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def run_process(matrix: subprocess.Popen) -> psutil.Process | None:
    """The matrix's ``runners run`` child, once it is running."""
    for child in psutil.Process(matrix.pid).children():
        with suppress(psutil.NoSuchProcess):
            if "run" in child.cmdline():
                return child
    return None


def fake_run_started(matrix: subprocess.Popen) -> list[psutil.Process] | None:
    """The matrix's descendants once the fake run has started both its worker and itself and the reaper runs."""
    tree = psutil.Process(matrix.pid).children(recursive=True)
    with suppress(psutil.NoSuchProcess):
        if sum(p.name() == "sleep" for p in tree) == 2 and any(REAPER in p.cmdline() for p in tree):
            return tree
    return None


def living(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those still running; a zombie (dead, waiting for its new parent to reap it) is not."""
    alive = []
    for process in processes:
        with suppress(psutil.NoSuchProcess):
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
    return alive


def survivors(tree: list[psutil.Process], wait_s: float = 5) -> list[str]:
    """What of ``tree`` still lives after up to ``wait_s`` seconds; those are killed (the test leaves no orphans)."""
    deadline = time.monotonic() + wait_s
    while living(tree) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = living(tree)
    for process in left:
        process.kill()
    return [f"{p.pid} {p.name()}" for p in left]


def sigkill(matrix: subprocess.Popen) -> None:
    """SIGKILL the matrix alone, as the OOM killer or ``kill -9 PID`` would."""
    os.kill(matrix.pid, signal.SIGKILL)
    matrix.communicate(timeout=10)


@pytest.mark.slow
def test_sigkilled_matrix_leaves_no_process_of_the_configuration_in_flight(tmp_path):
    matrix = start_matrix(tmp_path, "--frameworks", "jax")
    child = wait_for(lambda: run_process(matrix), timeout=30, what="the matrix to start its run")
    # mid-configuration: JAX imported and at work (the whole smoke run takes about 30 s of CPU here)
    wait_for(lambda: sum(child.cpu_times()[:2]) > 5, timeout=40, what="the run to get going")
    tree = psutil.Process(matrix.pid).children(recursive=True)
    assert child in tree
    sigkill(matrix)
    assert survivors(tree) == []
    assert not list(tmp_path.rglob("*.json")), "the killed configuration wrote no record"


def test_workers_and_scratch_of_the_run_go_with_the_sigkilled_matrix(tmp_path):
    # the 'run' starts a worker in its process group, as torch.compile starts Inductor's compile workers, and leaves
    # a temporary file, as a compiler's cache or TensorFlow's autograph does
    python = fake_python(tmp_path, 'touch "$TMPDIR/left-by-the-run"; sleep 300 & sleep 300')
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    matrix = start_matrix(
        tmp_path / "runs",
        "--frameworks",
        "jax",
        "--python",
        f"jax={python}",
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    tree = wait_for(lambda: fake_run_started(matrix), timeout=30, what="the run, its worker and the reaper")
    assert [p.name for p in temporary.rglob("left-by-the-run")] == ["left-by-the-run"]
    sigkill(matrix)
    assert survivors(tree) == []  # the reaper among them: it has removed the run's scratch by now
    # only the matrix's own temporary directory is left, empty: nothing of the matrix runs to remove it
    (own,) = temporary.iterdir()
    assert own.name.startswith("fwbench-process-") and list(own.iterdir()) == []


def test_ctrl_c_stops_the_run_and_records_nothing(tmp_path):
    python = fake_python(tmp_path, "sleep 300 & sleep 300")
    out = tmp_path / "runs"
    matrix = start_matrix(out, "--frameworks", "jax", "--python", f"jax={python}")
    tree = wait_for(lambda: fake_run_started(matrix), timeout=30, what="the run, its worker and the reaper")
    os.killpg(matrix.pid, signal.SIGINT)  # Ctrl-C: the terminal signals its foreground process group
    _, stderr = matrix.communicate(timeout=20)
    assert survivors(tree) == []
    assert matrix.returncode == 130 and "interrupted" in stderr
    assert not list(out.rglob("*.json")), "an interrupted configuration is not recorded, as ok or otherwise"
