"""A warm probe process: import one probe program once, then run each probe in a fork of this process.

Usage (started by runners/probes/capture.py, which speaks its protocol): ``python -m runners.probes.zygote
--program runners.frameworks.torch.probes``

A probe in an interpreter of its own spent more time importing its framework (1.3-5 s a probe on a 2-core CPU)
than running, 30 times over. A fork taken right after the import starts each probe where a fresh interpreter would
be at that point: no framework op has run yet, so no backend, thread pool or compile cache exists (the only threads
are OpenBLAS's, which register fork handlers), the programs seed themselves, and the child's stdout and stderr
start with what the import printed. So a record's outcome, message, traceback, warnings and stderr are what a
fresh process gives (tests/probes/test_probe_real.py and benchmarks/probe_processes.py compare them), and its
seconds to error too, within their noise, but for TensorFlow's compiled probes: 0.02-0.05 s longer (docs/design.md).

Protocol, one JSON object per line. On stdout, first ``{"ready": true, "import_seconds": s}``, or ``{"ready":
false, "output": text}`` (what the failed import printed, its traceback last) before exiting with 1. Then, per
request on stdin ``{"bug", "mode", "tooling", "timeout_s", "environment", "output", "result"}`` (variables to set
in the child, two file paths), one reply ``{"exit_code", "timed_out", "wall_seconds"}`` once the child has ended
or was killed at its timeout; the child wrote what it printed to ``output`` and its result object to ``result``.
End of stdin ends the zygote.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings

from runners.probes.capture import kill_group
from runners.probes.child import import_program, run_probe


def captured_import(module: str) -> tuple[object | None, float, bytes]:
    """Import ``module`` with fds 1 and 2 pointed at a file: the program (None when its import raised), the
    seconds it took, and everything printed meanwhile (the traceback last, when it raised)."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as printed:
        os.dup2(printed.fileno(), 1)
        os.dup2(printed.fileno(), 2)
        program, seconds = None, 0.0
        try:
            program, seconds = import_program(module)
        except BaseException:  # whatever stops the import is the finding, as in a fresh probe process
            traceback.print_exc()
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.dup2(saved, 1)  # stray stdout never reaches the protocol channel, which is a copy of the original fd 1
        os.close(saved)
        printed.seek(0)
        return program, seconds, printed.read()


def become_child(request: dict, import_output: bytes) -> None:
    """In a forked child: a session of its own (so its compile workers can be killed with it), the request's
    environment variables (its compile cache, its temporary directory), and fds 1 and 2 on the request's output
    file, which starts with what the import printed."""
    os.setsid()
    os.environ.update(request["environment"])
    tempfile.tempdir = None  # found again from TMPDIR, which the request may set
    output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(output, import_output)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)


def wait_for(pid: int, timeout_s: float) -> tuple[int, bool]:
    """Wait for child ``pid`` at most ``timeout_s``, killing it at the timeout, then kill what is left of its
    session (torch.compile's workers outlive the probe). Its exit code (negative: the signal) and whether it timed
    out."""
    deadline, timed_out = time.monotonic() + timeout_s, False
    # polled (at most 10 ms late), not a pidfd: Linux before 5.3 (RHEL 8's 4.18) has none
    while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0:
        if time.monotonic() > deadline:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            ended = os.waitpid(pid, 0)
            break
        time.sleep(0.01)
    kill_group(pid)
    return os.waitstatus_to_exitcode(ended[1]), timed_out


def serve(import_output: bytes, requests, replies) -> dict | None:
    """Fork one child per request line and reply with how it ended; return None when the requests end, and in
    each child, its request (the caller runs the probe)."""
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.perf_counter()
        with warnings.catch_warnings():
            # Python 3.12+ warns of forking with threads, and JAX 0.4.26 of every fork once imported; the threads
            # here are OpenBLAS's (numpy's, and SciPy's copy where optax pulls it in), which register fork handlers,
            # and no JAX backend exists before the probe's first op
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.filterwarnings("ignore", "os.fork\\(\\) was called", RuntimeWarning)
            pid = os.fork()
        if pid == 0:
            try:
                replies.close()
                become_child(request, import_output)
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            return request
        exit_code, timed_out = wait_for(pid, request["timeout_s"])
        reply = {"exit_code": exit_code, "timed_out": timed_out, "wall_seconds": time.perf_counter() - started}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point: import the program, say whether it imported, then serve requests until stdin ends."""
    parser = argparse.ArgumentParser(prog="python -m runners.probes.zygote", description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True, help="the probe program's module (catalog.program_module)")
    args = parser.parse_args(argv)
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # print() in the program or a probe goes where the framework's C++ output goes
    program, import_seconds, import_output = captured_import(args.program)
    if program is None:
        replies.write(json.dumps({"ready": False, "output": import_output.decode(errors="replace")}) + "\n")
        replies.flush()
        return 1
    replies.write(json.dumps({"ready": True, "import_seconds": import_seconds}) + "\n")
    replies.flush()
    request = serve(import_output, sys.stdin, replies)
    if request is None:
        return 0
    code = 1  # a forked child from here on
    try:
        # called from main, so the Python stack above the probe (which TensorFlow's messages quote) is as deep as
        # in a fresh child.py process: <module>, main, run_probe
        result = run_probe(program, import_seconds, request["bug"], request["mode"] == "compiled", request["tooling"])
        with open(request["result"], "w", encoding="utf-8") as out:
            json.dump(result, out)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)  # no interpreter teardown: the zygote's atexit handlers and buffers are not the child's


if __name__ == "__main__":
    sys.exit(main())
