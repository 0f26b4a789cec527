"""The benchmark matrix: every configuration in a fresh subprocess, resumable, failures recorded.

The executor boundary is one configuration in, one record out (``LocalExecutor.run``), so another
executor (e.g. one Ray task per configuration with ``num_gpus=1``) can replace it. Configurations run
interleaved (``interleaved_order``) and no process of a configuration outlives the matrix
(``configuration_process``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tqdm import tqdm

from fwbench.frameworks import framework
from fwbench.progress import progress_bar
from fwbench.records import RecordError, read_record, write_record
from fwbench.timestamps import utc_now
from runners import provenance
from runners.profiles import RunConfig
from runners.record import RUN_ORDER_SCHEME, SCHEMA, failed_record, record_path, run_order


def interleaved_order(configs: list[RunConfig]) -> list[RunConfig]:
    """The order the matrix runs ``configs`` in (``RUN_ORDER_SCHEME``): batch sizes as given; within one, rounds
    over seeds (then modes), each round one configuration per framework; the first framework of the rounds
    rotates by one from one batch size to the next.

    Run back to back, one framework's configurations would share whatever the machine went through at that
    time (a neighbour's load, heat, a cache warmed by the previous run); interleaved, such drift spreads over
    all frameworks, and no framework always goes first.
    """
    def first_seen(values) -> dict:
        return {value: index for index, value in enumerate(dict.fromkeys(values))}

    frameworks = first_seen(c.framework for c in configs)
    batch_sizes = first_seen(c.batch_size for c in configs)
    seeds, modes = first_seen(c.seed for c in configs), first_seen(c.mode for c in configs)

    def place(config: RunConfig) -> tuple[int, int, int, int]:
        rotation = batch_sizes[config.batch_size]
        return (rotation, seeds[config.seed], modes[config.mode],
                (frameworks[config.framework] - rotation) % len(frameworks))

    return sorted(configs, key=place)


def order_line(order: list[RunConfig]) -> str:
    """The execution order on one line: ``1 torch/compiled bs32 seed0, 2 …``."""
    return f"order ({RUN_ORDER_SCHEME}): " + ", ".join(f"{k} {c.label}" for k, c in enumerate(order, 1))


def run_arguments(config: RunConfig) -> list[str]:
    """``runners run`` flags that reproduce ``config`` exactly (same record id)."""
    return ["--framework", config.framework, "--mode", config.mode, "--batch-size", str(config.batch_size),
            "--seed", str(config.seed), "--profile", config.profile, "--dataset", config.dataset,
            "--epochs", str(config.epochs), "--train-images", str(config.train_images),
            "--test-images", str(config.test_images), "--device", config.device]


def expected_machine_id(device: str) -> str:
    """The machine id a run on ``device`` will record (GPU name, or CPU model and threads)."""
    hardware = provenance.hardware_info()
    if device == "cpu" and hardware["device_kind"] == "gpu":
        hardware.update(device_kind="cpu", device_name=hardware["cpu_model"])
    return provenance.machine_id(hardware)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

#: Started beside each configuration: reads its stdin to EOF, then SIGKILLs the process group named by argv[1].
#: EOF comes when the matrix closes the pipe (the configuration is over) or when the matrix dies, however.
REAPER = """import os, signal, sys
sys.stdin.buffer.read()
try:
    os.killpg(int(sys.argv[1]), signal.SIGKILL)
except ProcessLookupError:
    pass
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
def configuration_process(command: list[str], **popen_options) -> Iterator[subprocess.Popen]:
    """Run ``command`` as a configuration's process: when the block ends, normally or not, and when this process
    is SIGKILLed, the configuration's whole process tree dies with it.

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
      child if the reaper is killed too.
    A worker that starts a session of its own leaves the group and is not covered; none of the frameworks' does.
    """
    process = subprocess.Popen(command, start_new_session=True, preexec_fn=die_with_this_thread(), **popen_options)
    reaper, keep_alive = None, None
    try:
        read_end, keep_alive = os.pipe()
        try:
            reaper = subprocess.Popen([sys.executable, "-I", "-S", "-c", REAPER, str(process.pid)], stdin=read_end,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the child if still running, and whatever it left behind
        process.wait()
        if keep_alive is not None:
            os.close(keep_alive)  # the reaper finds the group gone and exits
        if reaper is not None:
            reaper.wait()


#: Run by a framework's interpreter with its module and distributions as arguments: exit 3 when the module cannot
#: be found, else print the version of the first distribution installed (nothing when none is). Finding a
#: dotted module imports its parent package (``flax`` for ``flax.nnx``); the version comes from the metadata.
INSTALLATION_QUERY = """import importlib.metadata, importlib.util, sys
if importlib.util.find_spec(sys.argv[1]) is None:
    sys.exit(3)
for distribution in sys.argv[2:]:
    try:
        print(importlib.metadata.version(distribution))
        break
    except importlib.metadata.PackageNotFoundError:
        pass
"""


@dataclass(frozen=True)
class Installation:
    """A framework as its interpreter has it."""

    available: bool
    version: str | None


@dataclass
class LocalExecutor:
    """Runs each configuration as ``python -m runners.cli run …`` in its own process group."""

    pythons: dict[str, str] = field(default_factory=dict)  # framework → interpreter; default: this one
    timeout_s: float = 3600
    data_dir: Path | None = None
    _installations: dict[tuple[str, str], Installation] = field(default_factory=dict)

    def python_for(self, name: str) -> str:
        """The interpreter that runs framework ``name``'s configurations."""
        return self.pythons.get(name, sys.executable)

    def installation(self, name: str) -> Installation:
        """Whether framework ``name`` imports in its interpreter, and its version there: asked once
        (``INSTALLATION_QUERY``), in that interpreter, which may be another environment than this one."""
        python = self.python_for(name)
        key = (python, name)
        if key not in self._installations:
            entry = framework(name)
            try:
                query = subprocess.run([python, "-c", INSTALLATION_QUERY, entry.import_name, *entry.distributions],
                                       capture_output=True, text=True, timeout=120)
                found = Installation(query.returncode == 0, query.stdout.strip() or None)
            except (OSError, subprocess.TimeoutExpired):
                found = Installation(False, None)
            self._installations[key] = found
        return self._installations[key]

    def available(self, name: str) -> bool:
        """Whether framework ``name`` imports in its interpreter."""
        return self.installation(name).available

    def framework_version(self, name: str) -> str | None:
        """Framework ``name``'s version in its interpreter (None when not installed there)."""
        return self.installation(name).version

    def run(self, config: RunConfig, out: Path, position: tuple[int, int] | None = None) -> dict:
        """Run one configuration; return its record (written by the child, or here if it died).

        ``position`` (K, N): the configuration's 1-based place in the matrix's order, recorded by the run.
        """
        started_at = utc_now()
        command = [self.python_for(config.framework), "-m", "runners.cli", "run", *run_arguments(config),
                   "--out", str(out), "--no-progress"]
        if position:
            command += ["--run-position", f"{position[0]}/{position[1]}"]
        if self.data_dir:
            command += ["--data-dir", str(self.data_dir)]
        with tempfile.TemporaryFile() as stderr:
            with configuration_process(command, stdout=subprocess.PIPE, stderr=stderr) as process:
                try:
                    stdout, _ = process.communicate(timeout=self.timeout_s)
                    status, exit_code = None, process.returncode
                except subprocess.TimeoutExpired:
                    stdout, status, exit_code = b"", "timeout", None
            stderr.seek(0)
            stderr_tail = stderr.read()[-8000:].decode(errors="replace")
        written = stdout.decode(errors="replace").strip().splitlines()
        if status is None and written and Path(written[-1]).is_file():
            try:
                return read_record(written[-1], kind=SCHEMA)
            except RecordError as exc:
                stderr_tail += f"\n{exc}"
        if status == "timeout":
            message = f"no result after {self.timeout_s:g} s; the process group was killed"
        else:
            killed_by = f"signal {-exit_code}" if exit_code is not None and exit_code < 0 else f"exit code {exit_code}"
            message = f"the run process ended with {killed_by} without writing a record"
        record = failed_record(config, provenance.hardware_info(), started_at, status or "error",
                               "Timeout" if status == "timeout" else "ProcessDied", message, stderr_tail, exit_code,
                               run_order=run_order(*position) if position else None)
        write_record(record_path(out, expected_machine_id(config.device), config), record)
        return record


def completed(config: RunConfig, out: Path) -> dict | None:
    """The existing ``ok`` record of ``config`` on this machine, if there is a valid one of the same framework
    version (which the record id's hash holds too)."""
    path = record_path(out, expected_machine_id(config.device), config)
    if not path.is_file():
        return None
    try:
        record = read_record(path, kind=SCHEMA)
    except RecordError:
        return None  # an unreadable record is simply run again (and replaced atomically)
    return record if record["status"] == "ok" and record["framework"]["version"] == config.framework_version \
        else None


def outcome(record: dict) -> str:
    """A record's outcome in a few words: ``ok`` or its status and failure type."""
    failure = record.get("failure") or {}
    return record["status"] if record["status"] == "ok" else f"{record['status']} ({failure.get('exception_type')})"


def run_matrix(order: list[RunConfig], out: Path, executor: LocalExecutor, force: bool = False,
               progress: bool = True) -> list[tuple[RunConfig, dict | None, str]]:
    """Run every configuration of ``order`` not already done, in that order; returns (config, record or None,
    note) per configuration.

    Each run is told its place K/N in the whole order, also on a resumed matrix. One line per configuration
    goes to stderr; the bar (``progress``) only on a terminal.
    """
    results = []
    total = len(order)
    bar = progress_bar(order, enabled=progress, desc="matrix", unit="run")
    for position, config in enumerate(bar, 1):
        bar.set_postfix_str(config.label)
        started = time.monotonic()
        if not executor.available(config.framework):
            python = executor.python_for(config.framework)
            record, note, line = None, "not installed", f"skipped, {config.framework} is not installed in {python}"
        elif existing := (None if force else completed(config, out)):
            record, note, line = existing, "done before (resumed)", "done before (resumed)"
        else:
            record, note = executor.run(config, out, position=(position, total)), ""
            line = f"{outcome(record)} in {time.monotonic() - started:.0f} s"
        results.append((config, record, note))
        tqdm.write(f"[{position}/{total}] {config.label}: {line}", file=sys.stderr)
    return results


def summary_table(results: list[tuple[RunConfig, dict | None, str]]) -> str:
    """A plain-text table of the matrix: status, seconds per epoch, images/s, peak memory."""
    header = f"{'framework':<11}{'mode':<9}{'batch':>6}{'seed':>5}  {'status':<8}{'s/epoch':>9}{'img/s':>9}" \
             f"{'peak MiB':>10}{'compile s':>10}  note"
    lines = [header, "-" * len(header)]
    for config, record, note in results:
        status = record["status"] if record else "skipped"
        timing, memory = (record or {}).get("timing") or {}, (record or {}).get("memory") or {}
        peak = memory.get("allocator_peak_bytes") or memory.get("nvml_process_peak_bytes") \
            or memory.get("host_peak_rss_bytes")

        def cell(value, fmt):
            return format(value, fmt) if value is not None else "—"

        lines.append(f"{config.framework:<11}{config.mode:<9}{config.batch_size:>6}{config.seed:>5}  {status:<8}"
                     f"{cell(timing.get('epoch_seconds'), '9.2f')}{cell(timing.get('images_per_second'), '9.1f')}"
                     f"{cell(peak / 2**20 if peak else None, '10.0f')}{cell(timing.get('compile_seconds'), '10.1f')}"
                     f"  {note or ((record or {}).get('failure') or {}).get('message') or ''}"[:200])
    return "\n".join(lines)
