"""One writer per output folder: ``runners matrix``, ``runners run --out``, ``runners probes`` and the bisect
benchmark hold an exclusive lock on the folder they write while they run, so that two matrices started into one
folder do not both run every configuration and compete for the CPU.

The lock is ``fcntl.flock`` on ``<folder>/.fwbench.lock``, a file that names its holder (PID and command line).
flock rather than a file created with O_EXCL and a liveness check of the PID in it: the kernel releases a flock when
its holder's process ends, however it ends (SIGKILL and the out-of-memory killer included), so no liveness is ever
guessed, and a PID reused by another process cannot keep a dead holder's folder locked. The file's contents only
name the holder: a taker that finds the lock free but the file still naming someone knows that holder died without
releasing it, and says so. A holder removes the file before it releases the lock; a taker that then holds a lock on
the removed file sees that the path no longer leads to it and tries again.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from fwbench.cliargs import UsageError

LOCK_FILE = ".fwbench.lock"


class FolderInUse(UsageError):
    """Another live process holds the folder's lock: the command exits 2 with this one line."""


def holder_text(contents: str) -> str:
    """``PID 1234 (runners matrix --out results/runs)`` from a lock file's contents; what a half-written file says."""
    try:
        holder = json.loads(contents)
        return f"PID {holder['pid']} ({shlex.join(holder['command'])})"
    except (ValueError, KeyError, TypeError):
        return "a process that has not yet written its PID"


def _open_locked(path: Path, folder: Path, flag: str) -> int:
    """A descriptor of the lock file at ``path``, locked; FolderInUse naming the holder when another process holds
    it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = holder_text(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
            os.close(fd)
            raise FolderInUse(
                f"{flag} {folder}: in use by {holder}, which holds its lock ({path}); wait for it to end or give "
                "another folder"
            ) from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # the holder removed the file between our open and our lock: take the new one


@contextlib.contextmanager
def output_lock(
    folder: Path,
    flag: str = "--out",
    command: list[str] | None = None,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> Iterator[None]:
    """Hold ``folder``'s lock (creating the folder) for the ``with`` block, naming this process and ``command``
    (default ``sys.argv``) in it. FolderInUse (one line naming the holder's PID and command) when a live process
    holds it; ``say`` gets one line when the last holder died without releasing it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = _open_locked(path, folder, flag)
    try:
        left = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        if left.strip():
            say(f"{flag} {folder}: took over the lock of {holder_text(left)}, which ended without releasing it")
        mine = json.dumps({"pid": os.getpid(), "command": list(sys.argv if command is None else command)})
        os.ftruncate(fd, 0)
        os.pwrite(fd, mine.encode(), 0)
        os.fsync(fd)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # before the release: a waiter locking the old file then sees it is gone
        os.close(fd)
