"""The generator's process pools fork while no framework is loaded (the children inherit the imports: quick), and
start their processes from a fork server once one is: a child forked from a framework's native threads can deadlock,
as a test worker that trained in-process and then built a site showed (JAX's warning: "os.fork() was called")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fwbench.processes import THREADED_RUNTIMES

PROBE = """
import fwbench.processes as processes
print(processes.start_method())
import {module}
print(processes.start_method())
with processes.process_pool(2) as pool:
    print(sum(pool.map(abs, [-2, -1])))
"""


@pytest.mark.parametrize("module", ["jax", "torch"])
def test_a_pool_forks_until_a_framework_is_loaded_then_starts_from_a_fork_server(module):
    assert module in THREADED_RUNTIMES
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["fork", "forkserver", "3"]
    assert "os.fork() was called" not in done.stderr
