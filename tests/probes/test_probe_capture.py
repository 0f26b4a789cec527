"""The parent side of a probe: result lines, crashes and timeouts, with stand-in child commands, and the same
through forks of a zygote of a stand-in program (tests/probes/standin_program.py)."""

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from runners.probes import capture
from runners.probes.capture import RESULT_PREFIX, ProbeProcesses, Zygote, run_command
from runners.probes.catalog import ProbeSpec

STANDIN = "tests.probes.standin_program"


def python(code):
    return [sys.executable, "-c", code]


def test_result_line_is_parsed_and_other_stdout_ignored():
    code = f'print(\'noise\'); print({RESULT_PREFIX!r} + \'{{"outcome": "no_error", "result": "ok"}}\')'
    captured = run_command(python(code), timeout_s=30)
    assert captured["outcome"] == "no_error"
    assert captured["result"] == "ok"
    assert captured["exit_code"] == 0


def test_an_abort_is_a_crash_with_the_stderr_tail():
    code = "import os, sys; sys.stderr.write('fatal: <core> & dumped\\n'); sys.stderr.flush(); os.abort()"
    captured = run_command(python(code), timeout_s=30)
    assert captured["outcome"] == "crash"
    assert captured["exit_code"] < 0
    assert "fatal: <core> & dumped" in captured["stderr_tail"]


def test_an_exit_without_a_result_line_is_a_crash():
    captured = run_command(python("print('no result here')"), timeout_s=30)
    assert captured["outcome"] == "crash"
    assert captured["exit_code"] == 0


def test_a_hanging_probe_is_stopped_and_recorded_as_a_timeout():
    # the grandchild stands for torch.compile's workers: the whole process group must go
    code = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    )
    captured = run_command(python(code), timeout_s=1.5)
    assert captured["outcome"] == "timeout"
    assert captured["wall_seconds"] < 20


@pytest.fixture
def zygote(tmp_path, monkeypatch):
    # what a fork writes to be deleted at exit stays (forks skip atexit): into the test's folder, not /tmp
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    started = Zygote(STANDIN, None, timeout_s=60, workdir=tmp_path)
    yield started
    started.close()


def probe(bug, tooling=None):
    return ProbeSpec("torch", bug, "eager", tooling)


def test_a_forked_probe_returns_its_result_after_what_the_import_printed(zygote):
    captured = zygote.run(probe("dtype"), timeout_s=30)
    assert captured["outcome"] == "no_error" and captured["exit_code"] == 0
    assert captured["result"].startswith("loss=0.5 tooling=False pid=")
    assert captured["framework_version"] == "0.0-standin"
    assert 0 <= captured["import_seconds"] < 30
    # a fresh process would have printed the import's lines first, then the probe's
    assert captured["stderr_tail"].splitlines() == [
        "standin: imported (stdout)",
        "standin: imported (stderr)",
        "standin: step ran",
    ]


def test_each_probe_is_a_fork_of_its_own_and_tooling_does_not_leak(zygote):
    on = zygote.run(probe("dtype", tooling=True), timeout_s=30)
    off = zygote.run(probe("dtype", tooling=False), timeout_s=30)
    assert "tooling=True" in on["result"] and "tooling=False" in off["result"]
    assert on["result"].split("pid=")[1].split()[0] != off["result"].split("pid=")[1].split()[0]
    assert zygote.running


def test_a_forked_probe_that_raises_is_described(zygote):
    captured = zygote.run(probe("dense_shape"), timeout_s=30)
    assert captured["outcome"] == "error"
    assert captured["exception_type"] == "ValueError"
    assert captured["message"] == "head expects 64 features, got 128"


def test_an_abort_in_a_fork_is_a_crash_and_the_zygote_serves_the_next_probe(zygote):
    crashed = zygote.run(probe("loss_shape"), timeout_s=30)
    assert crashed["outcome"] == "crash" and crashed["exit_code"] < 0
    assert "fatal: <core> & dumped" in crashed["stderr_tail"]
    assert zygote.run(probe("dtype"), timeout_s=30)["outcome"] == "no_error"


def running(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_a_hanging_fork_is_killed_with_its_workers_and_recorded_as_a_timeout(tmp_path, monkeypatch):
    pidfile = tmp_path / "worker.pid"
    monkeypatch.setenv("STANDIN_PIDFILE", str(pidfile))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    hung = Zygote(STANDIN, None, timeout_s=60, workdir=tmp_path)  # the variable must be there when it starts
    try:
        captured = hung.run(probe("nan", tooling=False), timeout_s=1.5)
        assert captured["outcome"] == "timeout"
        assert captured["wall_seconds"] < 20
        deadline = time.monotonic() + 10
        while running(int(pidfile.read_text())) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running(int(pidfile.read_text()))
        assert hung.run(probe("dtype"), timeout_s=30)["outcome"] == "no_error"
    finally:
        hung.close()


def test_a_program_that_does_not_import_makes_every_probe_a_crash_with_the_traceback(tmp_path):
    broken = Zygote("tests.probes.no_such_program", None, timeout_s=60, workdir=tmp_path)
    assert not broken.running
    for bug in ("dense_shape", "dtype"):
        captured = broken.run(probe(bug), timeout_s=30)
        assert captured["outcome"] == "crash" and captured["exit_code"] == 1
        assert "ModuleNotFoundError: No module named 'tests.probes.no_such_program'" in captured["stderr_tail"]


def test_a_killed_zygote_makes_its_probe_a_crash(zygote):
    os.kill(zygote.process.pid, 9)
    zygote.process.wait()
    captured = zygote.run(probe("dtype"), timeout_s=30)
    assert captured["outcome"] == "crash" and captured["exit_code"] == -9
    assert not zygote.running


def test_each_probe_compiles_into_an_empty_cache_of_its_own(monkeypatch):
    monkeypatch.setattr(capture, "program_module", lambda framework: STANDIN)
    with ProbeProcesses() as processes:
        first, second = (processes.run(probe("dtype", tooling)) for tooling in (False, True))
    assert first["compile_cache"] == second["compile_cache"] == "cold"
    first_cache, second_cache = (captured["result"].split("cache=")[1].split()[0] for captured in (first, second))
    assert first_cache != second_cache and first_cache.startswith(tempfile.gettempdir())
    assert "cache_files=0" in first["result"] and "cache_files=0" in second["result"]


def test_each_probe_has_a_temporary_directory_of_its_own_that_goes_with_the_pool(tmp_path, monkeypatch):
    # a fork ends without atexit handlers, which is where TensorFlow's autograph deletes the files it wrote
    monkeypatch.setattr(capture, "program_module", lambda framework: STANDIN)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with ProbeProcesses() as processes:
        written = [Path(processes.run(probe("dtype", tooling))["result"].split("tmp=")[1]) for tooling in (False, True)]
        pool = Path(processes.workdir.name)
        assert all(path.is_file() and pool in path.parents for path in written)
        # each probe's own folder, as Inductor's precompiled header would be: a later probe compiles without it
        assert written[0].parent != written[1].parent and list(written[1].parent.iterdir()) == [written[1]]
    assert not any(tmp_path.iterdir()), "nothing is left where the pool started"
