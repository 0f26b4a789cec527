"""One writer per output folder (``runners.measure.output_lock``): a second taker exits 2 naming the holder's PID and
command, a holder killed with SIGKILL leaves a lock the next taker takes over with a line saying so, and a released
lock leaves nothing behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fwbench.cliargs import EXIT_USAGE
from runners.measure.output_lock import LOCK_FILE, FolderInUse, output_lock

REPO = Path(__file__).resolve().parents[2]
#: a process that takes the folder's lock as ``runners matrix`` would, says so and waits to be ended
HOLDER = """
import sys, time
from pathlib import Path
from runners.measure.output_lock import output_lock
with output_lock(Path(sys.argv[1]), command=["runners", "matrix", "--out", sys.argv[1]]):
    print("held", flush=True)
    time.sleep(300)
"""


@pytest.fixture
def holder(tmp_path):
    """A live process holding ``tmp_path / "out"``'s lock; killed at the end if still alive."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "out")], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert process.stdout.readline().strip() == "held"
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


def test_a_second_runner_exits_2_naming_the_holders_pid_and_command(tmp_path, holder):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "runners.cli", "run", "--framework", "torch", "--profile", "smoke", "--out", str(out)]
        + ["--placeholder-record", "--no-progress"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr.splitlines() == [
        f"runners run: error: --out {out}: in use by PID {holder.pid} (runners matrix --out {out}), which holds its "
        f"lock ({out / LOCK_FILE}); wait for it to end or give another folder"
    ]
    assert not list(out.rglob("*.json"))  # nothing written
    assert holder.poll() is None  # and the holder untouched


def test_a_lock_whose_holder_was_killed_is_taken_over_with_a_line_saying_so(tmp_path, holder):
    out = tmp_path / "out"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    said: list[str] = []
    with output_lock(out, command=["runners", "matrix", "--out", "again"], say=said.append):
        assert json.loads((out / LOCK_FILE).read_text()) == {
            "pid": os.getpid(),
            "command": ["runners", "matrix", "--out", "again"],
        }
    assert said == [
        f"--out {out}: took over the lock of PID {holder.pid} (runners matrix --out {out}), which ended without "
        "releasing it"
    ]


def test_a_held_lock_refuses_another_taker_and_a_released_one_leaves_nothing(tmp_path):
    out, said = tmp_path / "out", []
    refused = pytest.raises(FolderInUse, match=rf"^--out-dir {out}: in use by PID {os.getpid()} \(first\)")
    first, second = (output_lock(out, flag="--out-dir", command=[name], say=said.append) for name in ("first", "2nd"))
    with first, refused, second:
        pass
    assert not (out / LOCK_FILE).exists()
    with output_lock(out, say=said.append):
        pass
    assert said == []
