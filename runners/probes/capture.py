"""Run one probe in a fresh subprocess with a timeout, so that hangs, aborts and crashes are captured too."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

from runners.probes.catalog import REPO_ROOT, ProbeSpec
from runners.probes.child import RESULT_PREFIX

#: seconds a probe may take (framework import and torch.compile's cold compile included)
DEFAULT_TIMEOUT_S = 120.0
STDERR_TAIL_CHARS = 4000

#: only the child gets these: quiet C++ logging, and the CPU for every framework (the suite is CPU-only)
CHILD_ENVIRONMENT = {
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "JAX_PLATFORMS": "cpu",
    "CUDA_VISIBLE_DEVICES": "",
    "PYTHONUNBUFFERED": "1",
}


def child_command(spec: ProbeSpec, python: str | None = None) -> list[str]:
    """The command line that runs ``spec`` in a fresh interpreter: ``python`` (another version's environment,
    which starts in the repository like every run), default this one."""
    return [
        python or sys.executable,
        "-m",
        "runners.probes.child",
        "--framework",
        spec.framework,
        "--bug",
        spec.bug,
        "--mode",
        spec.mode,
        "--tooling",
        "on" if spec.tooling else "off",
    ]


def parse_result(stdout: str) -> dict | None:
    """The child's result object from its stdout, or None when it never printed one."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    return None


def _kill_group(process: subprocess.Popen) -> None:
    # torch.compile starts compile workers: stop the probe's whole process group, not just the child
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def run_child(spec: ProbeSpec, timeout_s: float = DEFAULT_TIMEOUT_S, python: str | None = None) -> dict:
    """Run ``spec`` in a fresh interpreter (``python``, default this one); see run_command for what comes back."""
    return run_command(child_command(spec, python), timeout_s)


def run_command(command: list[str], timeout_s: float) -> dict:
    """Run a probe ``command``; return its result line, or an outcome of ``crash``/``timeout``.

    A non-zero exit or a missing result line is a crash. Every returned dict has ``outcome``,
    ``exit_code``, ``stderr_tail`` and ``wall_seconds``.
    """
    env = {**os.environ, **CHILD_ENVIRONMENT}
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = process.communicate()
        timed_out = True
    else:
        _kill_group(process)  # compile workers the probe left behind
    wall = round(time.perf_counter() - started, 3)
    common = {"exit_code": process.returncode, "stderr_tail": stderr[-STDERR_TAIL_CHARS:] or None, "wall_seconds": wall}
    if timed_out:
        return {"outcome": "timeout", **common}
    result = parse_result(stdout) if process.returncode == 0 else None
    if result is None:
        return {"outcome": "crash", **common}
    return {**result, **common}
