"""The benchmark matrix: every configuration in a fresh process, resumable, failures recorded, here or on a cluster.

The matrix (``run_matrix``) decides what runs — the profile's configurations in their order (``interleaved_order``),
minus those done before (resume) or whose framework is missing — writes every record, draws the progress and makes
the summary. An executor only runs configurations somewhere and hands back their records: the boundary is
``Executor.execute``, jobs in, start and end events out, so that one executor may run several at once.
``LocalExecutor`` runs one at a time in a subprocess here, and no process of a configuration outlives the matrix
(``configuration_process``); ``runners.ray_executor.RayExecutor`` runs each as a Ray task on a cluster's node, which
runs it there exactly as ``LocalExecutor`` does.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import ClassVar, NamedTuple, Protocol

from tabulate import tabulate
from tqdm import tqdm

from fwbench.frameworks import framework
from fwbench.progress import progress_bar
from fwbench.records import RecordError, read_record, write_record
from fwbench.timestamps import utc_now
from runners import provenance
from runners.profiles import RunConfig, expand
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

    frameworks = first_seen((c.framework, c.framework_version) for c in configs)  # each version takes turns too
    batch_sizes = first_seen(c.batch_size for c in configs)
    seeds, modes = first_seen(c.seed for c in configs), first_seen(c.mode for c in configs)

    def place(config: RunConfig) -> tuple[int, int, int, int]:
        rotation = batch_sizes[config.batch_size]
        return (
            rotation,
            seeds[config.seed],
            modes[config.mode],
            (frameworks[config.framework, config.framework_version] - rotation) % len(frameworks),
        )

    return sorted(configs, key=place)


def order_line(order: list[RunConfig]) -> str:
    """The execution order on one line: ``1 torch/compiled bs32 seed0, 2 …``."""
    label = labeller(order)
    return f"order ({RUN_ORDER_SCHEME}): " + ", ".join(f"{k} {label(c)}" for k, c in enumerate(order, 1))


def labeller(configs: Iterable[RunConfig]) -> Callable[[RunConfig], str]:
    """How the matrix names ``configs`` in its lines: with the framework's version when one framework runs in
    several versions (``--versions``), else the plain label."""
    configs = list(configs)
    several = len({(c.framework, c.framework_version) for c in configs}) > len({c.framework for c in configs})
    return (lambda c: c.versioned_label) if several else (lambda c: c.label)


def run_arguments(config: RunConfig) -> list[str]:
    """``runners run`` flags that reproduce ``config`` exactly (same record id)."""
    return [
        "--framework",
        config.framework,
        "--mode",
        config.mode,
        "--batch-size",
        str(config.batch_size),
        "--seed",
        str(config.seed),
        "--profile",
        config.profile,
        "--dataset",
        config.dataset,
        "--epochs",
        str(config.epochs),
        "--train-images",
        str(config.train_images),
        "--test-images",
        str(config.test_images),
        "--device",
        config.device,
    ]


def hardware_for(device: str) -> dict:
    """This machine's hardware as a run on ``device`` records it: the GPU (by name), or the CPU (model and threads)
    also on a GPU machine when the configuration asks for the CPU."""
    hardware = provenance.hardware_info()
    if device == "cpu" and hardware["device_kind"] == "gpu":
        hardware.update(device_kind="cpu", device_name=hardware["cpu_model"])
        hardware["machine_id"] = provenance.machine_id(hardware)
    return hardware


def expected_machine_id(device: str) -> str:
    """The machine id a run on ``device`` will record (GPU name, or CPU model and threads)."""
    return hardware_for(device)["machine_id"]


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
            reaper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", REAPER, str(process.pid)],
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


#: where a framework's interpreter may be set by a machine's environment (``FWBENCH_PYTHON_TORCH``): each node of a
#: cluster names its own, when ``--python`` does not
PYTHON_ENV = "FWBENCH_PYTHON_{}"


@dataclass(frozen=True)
class Target:
    """The machines one matrix runs on, as the matrix needs to know them."""

    machine_ids: tuple[str, ...]  # an ok record under any of these counts as done (resume)
    not_installed: dict[str, str] = field(hash=False)  # framework → why it cannot run there
    label: str = "this machine"
    nodes: tuple[str, ...] = ()  # the executor's names of the machines it may use (Ray node ids); () for this one


@dataclass(frozen=True)
class Job:
    """One configuration to run on ``target``, K/N in its matrix's order (``position``)."""

    config: RunConfig
    position: tuple[int, int]
    target: Target


@dataclass(frozen=True)
class Started:
    """A job began ``where`` (a node; "" for this machine)."""

    job: Job
    where: str


@dataclass(frozen=True)
class Finished:
    """A job ended ``where`` after ``seconds`` with its record (its ``executor`` filled in); no record when it could
    not run at all, and ``note`` says why."""

    job: Job
    record: dict | None
    where: str
    seconds: float
    note: str = ""


class Executor(Protocol):
    """Runs configurations somewhere and hands back their records; everything else is the matrix's."""

    name: str

    def execute(self, jobs: Iterable[Job]) -> Iterator[Started | Finished]:
        """Run ``jobs``, taking the next one only when there is room for it, and report each start and each end.
        Closing the iterator early (Ctrl-C) stops what is running, and nothing of it is handed back."""
        ...


@dataclass
class LocalExecutor:
    """Runs each configuration as ``python -m runners.cli run …`` in its own process group, one at a time."""

    name: ClassVar[str] = "local"
    pythons: dict[str, str] = field(default_factory=dict)  # framework → interpreter (``python_for``)
    #: (framework, version) → the interpreter of that version's environment (``runners.envs``, ``--versions``)
    interpreters: dict[tuple[str, str], str] = field(default_factory=dict)
    timeout_s: float = 3600
    data_dir: Path | None = None
    dry_run: bool = False  # the runs write a dry-run record without training (``runners.dry_run``)
    _installations: dict[tuple[str, str], Installation] = field(default_factory=dict)

    def python_for(self, name: str, version: str | None = None) -> str:
        """The interpreter that runs framework ``name``'s configurations (at ``version``): the environment of that
        version (``interpreters``), else ``pythons``' entry, else ``$FWBENCH_PYTHON_<NAME>`` (``PYTHON_ENV``), else
        this one."""
        return (
            self.interpreters.get((name, version))
            or self.pythons.get(name)
            or os.environ.get(PYTHON_ENV.format(name.upper()))
            or sys.executable
        )

    def installation(self, name: str) -> Installation:
        """Whether framework ``name`` imports in its interpreter, and its version there: asked once
        (``INSTALLATION_QUERY``), in that interpreter, which may be another environment than this one."""
        python = self.python_for(name)
        key = (python, name)
        if key not in self._installations:
            entry = framework(name)
            try:
                query = subprocess.run(
                    [python, "-c", INSTALLATION_QUERY, entry.import_name, *entry.distributions],
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
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

    def command(self, config: RunConfig, position: tuple[int, int] | None, out: Path) -> list[str]:
        """The ``runners run`` command of one configuration, its record written under ``out``."""
        command = [
            self.python_for(config.framework, config.framework_version),
            "-m",
            "runners.cli",
            "run",
            *run_arguments(config),
            "--out",
            str(out),
            "--no-progress",
        ]
        if position:
            command += ["--run-position", f"{position[0]}/{position[1]}"]
        if self.data_dir:
            command += ["--data-dir", str(self.data_dir)]
        if self.dry_run:
            command.append("--dry-run")
        return command

    def run(self, config: RunConfig, position: tuple[int, int] | None = None) -> dict:
        """Run one configuration in a fresh process here and return its record: the one the run wrote (to a
        directory of its own, which is then removed), or the failed record made here when it died without writing
        one or ran past the timeout. Writes nothing that stays: storing records is the matrix's job.

        ``position`` (K, N): the configuration's 1-based place in the matrix's order, recorded by the run. The run
        starts in the directory that holds this ``runners`` package, so that any interpreter finds the same code.
        """
        started_at = utc_now()
        with tempfile.TemporaryDirectory(prefix="fwbench-run-") as scratch, tempfile.TemporaryFile() as stderr:
            command = self.command(config, position, Path(scratch))
            with configuration_process(
                command, cwd=provenance.REPO_ROOT, stdout=subprocess.PIPE, stderr=stderr
            ) as process:
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
        record = failed_record(
            config,
            hardware_for(config.device),
            started_at,
            status or "error",
            "Timeout" if status == "timeout" else "ProcessDied",
            message,
            stderr_tail,
            exit_code,
            run_order=run_order(*position) if position else None,
        )
        return {**record, "command": command}  # what failed: the run's command, not the matrix's

    def execute(self, jobs: Iterable[Job]) -> Iterator[Started | Finished]:
        """Run ``jobs`` here, one after the other, taking each when the previous one is over."""
        for job in jobs:
            yield Started(job, "")
            started = time.monotonic()
            record = self.run(job.config, job.position)
            yield Finished(job, {**record, "executor": {"name": self.name}}, "", time.monotonic() - started)


@dataclass(frozen=True)
class Survey:
    """A machine as a matrix sees it: its hardware for the matrix's device (machine id included), the frameworks
    that cannot run there and why, and the profile's configurations as they would run there."""

    hardware: dict
    not_installed: dict[str, str]
    configs: list[RunConfig]


def survey(executor: LocalExecutor, profile: str, device: str, selection: dict) -> Survey:
    """Survey this machine for a matrix of ``profile`` narrowed by ``selection`` (``profiles.expand``'s overrides) on
    ``device``. A configuration carries the framework version of the interpreter that will run it and the sizes of
    the device it will use, so it is expanded on the machine that runs it (on each node of a cluster)."""
    configs = expand(profile, version_of=executor.framework_version, **selection)
    in_environments = {name for name, _ in executor.interpreters}  # --versions: checked when they were built
    missing = {
        name: f"{name} is not installed in {executor.python_for(name)}"
        for name in dict.fromkeys(c.framework for c in configs)
        if name not in in_environments and not executor.available(name)
    }
    return Survey(hardware_for(device), missing, configs)


def completed(config: RunConfig, out: Path, machine_ids: Iterable[str]) -> dict | None:
    """The existing ``ok`` record of ``config`` under one of ``machine_ids``, if there is a valid one of the same
    framework version (which the record id's hash holds too)."""
    for machine_id in machine_ids:
        path = record_path(out, machine_id, config)
        if not path.is_file():
            continue
        try:
            record = read_record(path, kind=SCHEMA)
        except RecordError:
            continue  # an unreadable record is simply run again (and replaced atomically)
        if record["status"] == "ok" and record["framework"]["version"] == config.framework_version:
            return record
    return None


def stored_path(out: Path, record: dict) -> Path:
    """Where the matrix keeps ``record``: under the machine id and record id it carries, whichever machine ran it."""
    return Path(out) / record["hardware"]["machine_id"] / f"{record['record_id']}.json"


class Result(NamedTuple):
    """What became of one configuration of the matrix."""

    config: RunConfig
    record: dict | None  # None: not run (not installed, or no machine left to run it)
    note: str  # "" when it ran now
    where: str = ""  # the node that ran it now ("" for this machine)
    seconds: float = 0.0  # how long it ran now


def outcome(record: dict) -> str:
    """A record's outcome in a few words: ``ok`` or its status and failure type."""
    failure = record.get("failure") or {}
    return record["status"] if record["status"] == "ok" else f"{record['status']} ({failure.get('exception_type')})"


def run_matrix(
    plan: list[tuple[Target, list[RunConfig]]],
    out: Path,
    executor: Executor,
    force: bool = False,
    progress: bool = True,
) -> list[Result]:
    """Run every configuration of ``plan`` (one matrix per target, each in its order) not done before, through
    ``executor``; write each record atomically under ``out``/<its machine id>; return the results in plan order.

    Each run is told its place K/N in its matrix's order, also on a resumed matrix. One line per configuration goes
    to stderr; the bar (``progress``), naming what runs where, only on a terminal.
    """
    results: dict[Job, Result | None] = {}  # in plan order: jobs are made in that order
    label = labeller(config for _, order in plan for config in order)
    running: dict[Job, str] = {}
    bar = progress_bar(total=sum(len(order) for _, order in plan), enabled=progress, desc="matrix", unit="run")

    def done(job: Job, result: Result, line: str) -> None:
        results[job] = result
        bar.update()
        where = result.where or (job.target.label if len(plan) > 1 else "")  # which matrix, when there are several
        on = f" on {where}" if where else ""
        tqdm.write(f"[{job.position[0]}/{job.position[1]}] {label(job.config)}{on}: {line}", file=sys.stderr)

    def jobs() -> Iterator[Job]:
        for target, order in plan:
            for position, config in enumerate(order, 1):
                job = Job(config, (position, len(order)), target)
                results[job] = None
                if reason := target.not_installed.get(config.framework):
                    done(job, Result(config, None, "not installed"), f"skipped, {reason}")
                elif existing := (None if force else completed(config, out, target.machine_ids)):
                    done(job, Result(config, existing, "done before (resumed)"), "done before (resumed)")
                else:
                    yield job

    with closing(executor.execute(jobs())) as events:
        for event in events:
            if isinstance(event, Started):
                running[event.job] = event.where
            else:
                running.pop(event.job, None)
                if event.record is not None:
                    write_record(stored_path(out, event.record), event.record)
                line = f"{outcome(event.record)} in {event.seconds:.0f} s" if event.record else f"not run, {event.note}"
                done(event.job, Result(event.job.config, event.record, event.note, event.where, event.seconds), line)
            bar.set_postfix_str(
                "; ".join(label(job.config) + (f" on {where}" if where else "") for job, where in running.items())
            )
    bar.close()
    return list(results.values())


def machine_of(record: dict | None) -> str:
    """The machine id a record carries ("—" for none)."""
    return ((record or {}).get("hardware") or {}).get("machine_id") or "—"


def summary_table(results: list[Result]) -> str:
    """A plain-text table of the matrix: version, status, seconds per epoch, images/s, peak memory; and the machine,
    when the records come from several."""
    several = len({machine_of(r.record) for r in results if r.record}) > 1
    headers = ["framework", "version", "mode", "batch", "seed", "status", "s/epoch", "img/s", "peak MiB", "compile s"]
    rows = []
    for config, record, note, *_ in results:
        timing, memory = (record or {}).get("timing") or {}, (record or {}).get("memory") or {}
        peak = (
            memory.get("allocator_peak_bytes")
            or memory.get("nvml_process_peak_bytes")
            or memory.get("host_peak_rss_bytes")
        )
        why = note or ((record or {}).get("failure") or {}).get("message") or ""
        row = [
            config.framework,
            config.framework_version or "—",
            config.mode,
            str(config.batch_size),
            str(config.seed),
            record["status"] if record else "skipped",
            number(timing.get("epoch_seconds"), 2),
            number(timing.get("images_per_second"), 1),
            number(peak / 2**20 if peak else None, 0),
            number(timing.get("compile_seconds"), 1),
            why[:120],
        ]
        rows.append([machine_of(record), *row] if several else row)
    align = ["left"] * 3 + ["right"] * 2 + ["left"] + ["right"] * 4 + ["left"]
    return tabulate(
        rows,
        headers=(["machine"] if several else []) + headers + ["note"],
        colalign=(["left"] if several else []) + align,
        disable_numparse=True,
    )


def number(value: float | None, decimals: int) -> str:
    """A table cell: ``value`` with ``decimals`` decimals, or — when there is none."""
    return "—" if value is None else f"{value:.{decimals}f}"


def side_by_side(records: list[dict]) -> bool:
    """Whether any two of ``records`` ran at the same time (on a cluster's nodes)."""
    spans = sorted((r["started_at"], r["finished_at"]) for r in records)
    return any(later[0] < earlier[1] for earlier, later in pairwise(spans))


def node_lines(results: list[Result]) -> list[str]:
    """One line per node that ran configurations now: how many, how they ended, and its busy time."""
    by_node = defaultdict(list)
    for result in results:
        if result.where and result.record and not result.note:
            by_node[result.where].append(result)
    lines = []
    for where, ran in sorted(by_node.items()):
        ok = sum(1 for r in ran if r.record["status"] == "ok")
        lines.append(
            f"node {where}: ran {len(ran)} ({ok} ok, {len(ran) - ok} failed) in {sum(r.seconds for r in ran):.0f} s"
        )
    return lines
