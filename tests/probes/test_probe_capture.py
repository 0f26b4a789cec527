"""The parent side of a probe: result lines, crashes and timeouts, with stand-in child commands."""

import sys

from runners.probes.capture import RESULT_PREFIX, run_command


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
