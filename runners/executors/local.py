"""The local executor: each configuration in a fresh process on this machine, one at a time, its record handed back.

A configuration runs as ``python -m runners.cli run --config-json '<RunConfig>'`` in the interpreter of its framework
(``runners.envs.interpreters``), in a process group that dies with the matrix (``runners.executors.lifetime``), writing
its record into a scratch directory that is removed once the record is read. Every run passes ``--compile-cache`` a
persistent directory of its machine and configuration (``compile_cache_dir``): a first run gets it emptied, so it
compiles cold and leaves the cache its repeats use; a repeat finds what the configuration's earlier runs left there, in
an earlier matrix too, unless other code left it (``runners.measure.compile_cache.prepare_directory``). The Ray executor
runs each configuration through ``LocalExecutor.run`` on a node, so a configuration's process is the same wherever it
runs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from fwbench.records import RecordError, read_record
from fwbench.timestamps import utc_now
from runners.envs.interpreters import Interpreters
from runners.executors.boundary import Finished, Job, Started
from runners.executors.lifetime import configuration_process
from runners.measure import provenance
from runners.measure.compile_cache import prepare_directory
from runners.measure.profiles import RunConfig
from runners.measure.record import SCHEMA, failed_record, run_order


@dataclass
class LocalExecutor(Interpreters):
    """Runs each configuration as ``python -m runners.cli run …`` in its own process group, one at a time, in the
    interpreter of its framework (``Interpreters``)."""

    name: ClassVar[str] = "local"
    timeout_s: float = 3600
    data_dir: Path | None = None
    #: the runs write a placeholder record without training (``runners.measure.placeholder_record``)
    placeholder_records: bool = False

    def command(
        self, config: RunConfig, position: tuple[int, int] | None, out: Path, compile_cache: Path | None = None
    ) -> list[str]:
        """The ``runners run`` command of one configuration, its record written under ``out``, its compilers'
        caches kept in ``compile_cache`` when one is given."""
        command = [
            self.python_for(config.framework, config.framework_version),
            "-m",
            "runners.cli",
            "run",
            "--config-json",
            config.to_json(),
            "--out",
            str(out),
            "--no-progress",
        ]
        if position:
            command += ["--run-position", f"{position[0]}/{position[1]}"]
        if self.data_dir:
            command += ["--data-dir", str(self.data_dir)]
        if compile_cache:
            command += ["--compile-cache", str(compile_cache)]
        if self.placeholder_records:
            command.append("--placeholder-record")
        return command

    def run(self, config: RunConfig, position: tuple[int, int] | None = None) -> dict:
        """Run one configuration in a fresh process here and return its record: the one the run wrote (to a
        directory of its own, which is then removed), or the failed record made here when it died without writing
        one or ran past the timeout. Writes nothing that stays: storing records is the matrix's job.

        ``position`` (K, N): the configuration's 1-based place in the matrix's order, recorded by the run. The run
        keeps its compilers' caches in this machine's ``compile_cache_dir`` of the configuration (created here),
        emptied first unless the run is a repeat and the same code filled it (``prepare_directory``). The run starts
        in the directory that holds this ``runners`` package, so that any interpreter finds the same code.
        """
        started_at = utc_now()
        cache = compile_cache_dir(config, provenance.hardware_for(config.device)["machine_id"])
        prepare_directory(cache, repeat=config.repeat > 0)
        with tempfile.TemporaryDirectory(prefix="fwbench-run-") as scratch, tempfile.TemporaryFile() as stderr:
            command = self.command(config, position, Path(scratch), cache)
            # its temporary files go in the scratch directory too, so that a run killed at its timeout leaves none
            # (those of the training itself go in the cache's folder: runners.measure.compile_cache.temporary_folder)
            environment = {**os.environ, "TMPDIR": scratch}
            with configuration_process(
                command, (scratch,), cwd=provenance.REPO_ROOT, env=environment, stdout=subprocess.PIPE, stderr=stderr
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
            provenance.hardware_for(config.device),
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


#: replaces ``~/.cache/fwbench/compile-cache``, where the matrix keeps its repeats' compile caches
COMPILE_CACHE_ENV = "FWBENCH_CACHE_DIR"


def compile_cache_dir(config: RunConfig, machine_id: str) -> Path:
    """The persistent compile-cache directory of one configuration on the machine ``machine_id``:
    ``<$FWBENCH_CACHE_DIR or ~/.cache/fwbench/compile-cache>/<machine>/<config_id>``. One per configuration, its
    precision and tuning included: two configurations sharing a directory would empty each other's caches (a bf16
    run's first run emptying the fp32 one's) and a repeat would find the other's code there."""
    root = Path(os.environ.get(COMPILE_CACHE_ENV) or Path.home() / ".cache" / "fwbench" / "compile-cache")
    return root / machine_id / config.config_id
