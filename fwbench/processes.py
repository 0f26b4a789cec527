"""Process pools that are safe to start from a process that has loaded a framework.

The generator reads records and draws charts in a pool of processes, forked from its own: quick, as the children
inherit its imports. A test worker that has imported a framework in-process carries that framework's native thread
pools, and a child forked from a multithreaded process can deadlock on a lock one of those threads held; there the pool
starts its processes from a fork server instead.
"""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor

#: the modules that start native thread pools on import or first use (Flax and torchax load one of them; numpy's BLAS
#: threads, in every process, are left to fork, as they always were)
THREADED_RUNTIMES = ("jax", "tensorflow", "torch")


def start_method() -> str:
    """How a pool started now starts its processes: a fork server where a framework is loaded (and the platform has
    one), else the platform's default (fork on Linux, spawn on macOS)."""
    loaded = any(name in sys.modules for name in THREADED_RUNTIMES)
    forkserver = loaded and "forkserver" in multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if forkserver else None).get_start_method()


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, started as ``start_method`` says."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(start_method()))
