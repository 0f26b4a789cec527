"""Process lifetime: a configuration's whole process tree dies when its block ends and when the matrix dies.

``configuration_process`` starts a configuration's process in a process group of its own, armed with the kernel's
parent-death signal (``die_with_this_thread``), beside a small reaper (``REAPER``) that kills the group when the
matrix is gone, however it went. No process of a configuration outlives the matrix to skew the next measurement
(docs/design.md, "One process per configuration").
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

#: Started beside each configuration: reads its stdin to EOF, then SIGKILLs the process group named by argv[1].
#: EOF comes when the matrix closes the pipe (the configuration is over) or when the matrix dies, however. The
#: matrix writes ``DONE`` before it closes the pipe; without it the matrix died, and the reaper also removes the
#: directories named by argv[2:] (the configuration's scratch), which nobody else is left to remove.
DONE = b"done"
REAPER = f"""import os, shutil, signal, sys, time
done, group = sys.stdin.buffer.read() == {DONE!r}, int(sys.argv[1])
try:
    os.killpg(group, signal.SIGKILL)
    for _ in range(0 if done else 100):  # no removal while a process of the group could still write there
        time.sleep(0.05)
        os.killpg(group, 0)
except ProcessLookupError:
    pass
for path in [] if done else sys.argv[2:]:
    shutil.rmtree(path, ignore_errors=True)
"""


@cache
def _prctl() -> Callable[..., int]:
    # Resolved in the parent: looking a symbol up between fork and exec can deadlock.
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


def die_with_this_thread() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGKILL when the calling thread ends (Linux), else None.

    The kernel sends the parent-death signal when the *thread* that forked the child exits, so call this (and
    start the child) from the thread that outlives the child: the matrix runs configurations on its main thread.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl, parent = _prctl(), os.getpid()

    def arm() -> None:
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the parent died before the signal was armed: nobody will send it
            os.kill(os.getpid(), signal.SIGKILL)

    return arm


@contextmanager
def configuration_process(
    command: list[str], leftovers: tuple[str, ...] = (), **popen_options
) -> Iterator[subprocess.Popen]:
    """Run ``command`` as a configuration's process: when the block ends, normally or not, and when this process
    is SIGKILLed, the configuration's whole process tree dies with it, and the directories ``leftovers`` (its
    scratch, which the caller removes otherwise) go with it.

    - The child leads its own process group (``start_new_session``), which its workers join (Inductor's compile
      workers and their g++, TF's and XLA's helpers). Leaving the block SIGKILLs the group: after a normal end
      (the run exits without its frameworks' teardown, so their workers would linger), a timeout, or Ctrl-C
      (the child has no terminal, so Ctrl-C reaches only the matrix).
    - When the matrix is SIGKILLed, no code of it runs. The kernel's parent-death signal (Linux) then SIGKILLs
      the child, but not the child's workers: the setting is cleared on fork and the frameworks start them, not
      us; and a watcher inside the child cannot act, because that SIGKILL ends the child first. So a small
      reaper outside the group, idle on a pipe that only the matrix holds open, kills the group when the pipe
      closes, which the kernel does when the matrix ends, however it ends. The reaper has its own session, so
      neither Ctrl-C nor a kill of the matrix's group stops it first; the parent-death signal still stops the
      child if the reaper is killed too. Only then does the reaper remove ``leftovers``: a matrix that ends
      otherwise tells it so before closing the pipe, and removes them itself once it has read the record there.
    A worker that starts a session of its own leaves the group and is not covered; none of the frameworks' does.
    """
    process = subprocess.Popen(command, start_new_session=True, preexec_fn=die_with_this_thread(), **popen_options)
    reaper, keep_alive = None, None
    try:
        read_end, keep_alive = os.pipe()
        try:
            reaper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", REAPER, str(process.pid), *leftovers],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            os.close(read_end)
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the child if still running, and whatever it left behind
        process.wait()
        if keep_alive is not None:
            with suppress(BrokenPipeError):  # a reaper killed from outside
                os.write(keep_alive, DONE)  # this process is alive: the leftovers are its to remove
            os.close(keep_alive)  # the reaper finds the group gone and exits
        if reaper is not None:
            reaper.wait()
