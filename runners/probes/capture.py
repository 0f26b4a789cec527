"""Run probes in processes of their own with a timeout, so that hangs, aborts and crashes are captured too.

On Linux each probe runs in a fork of a warm process that imported its program once (``Zygote``,
runners/probes/zygote.py); elsewhere, where a fork of a process that loaded a framework is not safe (macOS), in a
fresh interpreter (``run_child``). ``ProbeProcesses`` picks, and both give the same capture.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from runners.measure.compile_cache import cache_environment, temporary_directory
from runners.probes.catalog import REPO_ROOT, ProbeSpec, program_module
from runners.probes.child import RESULT_PREFIX

#: seconds a probe may take (torch.compile's cold compile included), and a zygote its framework's import
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


def kill_group(leader: int) -> None:
    """Kill the process group (session) that process ``leader`` started, if anything of it is left: torch.compile
    starts compile workers, so a probe's whole group goes, not just the probe's process."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(leader, signal.SIGKILL)


def run_child(
    spec: ProbeSpec, timeout_s: float = DEFAULT_TIMEOUT_S, python: str | None = None, environment: dict | None = None
) -> dict:
    """Run ``spec`` in a fresh interpreter (``python``, default this one) with ``environment`` besides the
    child's; see run_command for what comes back."""
    return run_command(child_command(spec, python), timeout_s, environment)


def run_command(command: list[str], timeout_s: float, environment: dict | None = None) -> dict:
    """Run a probe ``command``; return its result line, or an outcome of ``crash``/``timeout``.

    A non-zero exit or a missing result line is a crash. Every returned dict has ``outcome``,
    ``exit_code``, ``stderr_tail`` and ``wall_seconds``.
    """
    env = {**os.environ, **CHILD_ENVIRONMENT, **(environment or {})}
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
        kill_group(process.pid)
        stdout, stderr = process.communicate()
        timed_out = True
    else:
        kill_group(process.pid)  # compile workers the probe left behind
    wall = time.perf_counter() - started
    result = parse_result(stdout) if process.returncode == 0 else None
    return capture_of(process.returncode, timed_out, stderr, result, wall)


def capture_of(exit_code: int | None, timed_out: bool, stderr: str, result: dict | None, wall_s: float) -> dict:
    """What a probe process gave: its ``result`` object with ``exit_code``, ``stderr_tail`` and ``wall_seconds``;
    an outcome of ``timeout``, or of ``crash`` for a non-zero exit or no result, in place of the result."""
    tail = stderr[-STDERR_TAIL_CHARS:] or None
    common = {"exit_code": exit_code, "stderr_tail": tail, "wall_seconds": round(wall_s, 3)}
    if timed_out:
        return {"outcome": "timeout", **common}
    if exit_code != 0 or result is None:
        return {"outcome": "crash", **common}
    return {**result, **common}


class Zygote:
    """A warm process of one probe ``program`` (a module) in one interpreter (``python``, default this one):
    started here, ``run`` forks it once per probe (runners/probes/zygote.py has the protocol)."""

    def __init__(self, program: str, python: str | None, timeout_s: float, workdir: Path) -> None:
        self.workdir = workdir
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [python or sys.executable, "-m", "runners.probes.zygote", "--program", program],
            cwd=REPO_ROOT,
            env={**os.environ, **CHILD_ENVIRONMENT},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        ready = select.select([self.process.stdout], [], [], timeout_s)[0]
        hello = json.loads(self.process.stdout.readline() or "null") if ready else None
        #: what each probe gets when the import failed or hung (each probe starts a new zygote, as each would a
        #: fresh interpreter); None when it is ready
        self.failure = None
        if not (hello and hello["ready"]):
            self.close()
            output = (hello or {}).get("output", "")
            self.failure = capture_of(self.process.returncode, not ready, output, None, time.perf_counter() - started)

    @property
    def running(self) -> bool:
        """Whether the zygote is still there to fork probes (not after a failed import, nor killed since)."""
        return self.process.poll() is None

    def run(self, spec: ProbeSpec, timeout_s: float, environment: dict | None = None) -> dict:
        """Run ``spec`` in a fork with ``environment`` set in it (read after the import: not the framework's own
        settings), stopped after ``timeout_s``; the same capture as ``run_command``'s."""
        if self.failure:
            return self.failure
        output, result = self.workdir / f"{spec.record_id}.out", self.workdir / f"{spec.record_id}.json"
        request = {"bug": spec.bug, "mode": spec.mode, "tooling": bool(spec.tooling), "timeout_s": timeout_s}
        request["environment"] = environment or {}
        started = time.perf_counter()
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.write(json.dumps(request | {"output": str(output), "result": str(result)}) + "\n")
            self.process.stdin.flush()
        line = self.process.stdout.readline()
        printed = output.read_text(errors="replace") if output.exists() else ""
        returned = json.loads(result.read_text()) if result.exists() else None
        output.unlink(missing_ok=True)
        result.unlink(missing_ok=True)
        if not line:  # the zygote itself was killed: the probe is a crash, and the next one starts a new zygote
            self.close()
            return capture_of(self.process.returncode, False, printed, None, time.perf_counter() - started)
        reply = json.loads(line)
        return capture_of(reply["exit_code"], reply["timed_out"], printed, returned, reply["wall_seconds"])

    def close(self) -> None:
        """End the zygote (end of its stdin) and whatever it left running."""
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_group(self.process.pid)
            self.process.wait()
        self.process.stdout.close()


class ProbeProcesses:
    """Where ``runners probes`` runs each probe: on Linux in a fork of the zygote of its program and interpreter,
    one zygote alive at a time (probes come grouped by framework and version), else in a fresh interpreter.

    Either way each probe compiles into an empty cache directory of its own (``compile_cache.cache_environment``,
    as a run without ``--compile-cache``), with an empty temporary directory in it: Inductor's cache otherwise
    persists in /tmp between processes, and the five compiled PyTorch 2.14 probes took 27 s to their errors with
    empty ones, 10 s where earlier probes had filled it (benchmarks/probe_processes.py). Its capture says so
    (``compile_cache``: ``cold``).
    """

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S, fork: bool = sys.platform == "linux") -> None:
        self.timeout_s, self.fork = timeout_s, fork
        self.zygote: Zygote | None = None
        self.key: tuple[str, str | None] | None = None
        self.workdir = tempfile.TemporaryDirectory(prefix="fwbench-probes-")

    def run(self, spec: ProbeSpec, python: str | None = None) -> dict:
        """Run ``spec`` in ``python``'s environment (default this interpreter's); see ``capture_of``."""
        cache = Path(self.workdir.name) / f"{spec.record_id}-cache"
        shutil.rmtree(cache, ignore_errors=True)
        # temporary files in the probe's cache directory, as a run's: Inductor's precompiled C++ header is built
        # there, and a probe that found an earlier probe's would not compile cold; the pool's directory holds it,
        # so it goes with the pool (a forked probe ends without the atexit handlers that delete what TensorFlow's
        # autograph writes there)
        environment = cache_environment(str(cache), persistent=False) | {"TMPDIR": temporary_directory(str(cache))}
        if not self.fork:
            return run_child(spec, self.timeout_s, python, environment) | {"compile_cache": "cold"}
        if self.key != (spec.framework, python) or not self.zygote.running:
            self.close_zygote()
            self.zygote = Zygote(program_module(spec.framework), python, self.timeout_s, Path(self.workdir.name))
            self.key = (spec.framework, python)
        return self.zygote.run(spec, self.timeout_s, environment) | {"compile_cache": "cold"}

    def close_zygote(self) -> None:
        """End the current zygote, if any."""
        if self.zygote:
            self.zygote.close()
        self.zygote = self.key = None

    def __enter__(self) -> ProbeProcesses:
        return self

    def __exit__(self, *exc) -> None:
        self.close_zygote()
        self.workdir.cleanup()
