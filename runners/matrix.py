"""The benchmark matrix: every configuration in a fresh subprocess, resumable, failures recorded.

The executor boundary is one configuration in, one record out (``LocalExecutor.run``), so another
executor (e.g. one Ray task per configuration with ``num_gpus=1``) can replace it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from fwbench.records import RecordError, read_record, write_record
from runners import provenance
from runners.frameworks import IMPORT_NAMES
from runners.profiles import RunConfig
from runners.record import failed_record, record_path


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


@dataclass
class LocalExecutor:
    """Runs each configuration as ``python -m runners.cli run …`` in its own process group."""

    pythons: dict[str, str] = field(default_factory=dict)  # framework → interpreter; default: this one
    timeout_s: float = 3600
    data_dir: Path | None = None
    _available: dict[tuple[str, str], bool] = field(default_factory=dict)

    def python_for(self, framework: str) -> str:
        return self.pythons.get(framework, sys.executable)

    def available(self, framework: str) -> bool:
        """Whether the framework imports in its interpreter (checked once, without importing it)."""
        python = self.python_for(framework)
        key = (python, framework)
        if key not in self._available:
            module = IMPORT_NAMES[framework]
            probe = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({module!r}) else 3)"
            try:
                self._available[key] = subprocess.run([python, "-c", probe], capture_output=True,
                                                      timeout=120).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                self._available[key] = False
        return self._available[key]

    def run(self, config: RunConfig, out: Path) -> dict:
        """Run one configuration; return its record (written by the child, or here if it died)."""
        started_at = provenance.utc_now()
        command = [self.python_for(config.framework), "-m", "runners.cli", "run", *run_arguments(config),
                   "--out", str(out), "--no-progress"]
        if self.data_dir:
            command += ["--data-dir", str(self.data_dir)]
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
            try:
                stdout, _ = process.communicate(timeout=self.timeout_s)
                status, exit_code = None, process.returncode
            except subprocess.TimeoutExpired:
                stdout, status, exit_code = b"", "timeout", None
            finally:  # also on Ctrl-C: never leave a child training in the background
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            stderr.seek(0)
            stderr_tail = stderr.read()[-8000:].decode(errors="replace")
        written = stdout.decode(errors="replace").strip().splitlines()
        if status is None and written and Path(written[-1]).is_file():
            try:
                return read_record(written[-1], kind="fwbench.run/1")
            except RecordError as exc:
                stderr_tail += f"\n{exc}"
        if status == "timeout":
            message = f"no result after {self.timeout_s:g} s; the process group was killed"
        else:
            killed_by = f"signal {-exit_code}" if exit_code is not None and exit_code < 0 else f"exit code {exit_code}"
            message = f"the run process ended with {killed_by} without writing a record"
        record = failed_record(config, provenance.hardware_info(), started_at, status or "error",
                               "Timeout" if status == "timeout" else "ProcessDied", message, stderr_tail, exit_code,
                               version=provenance.framework_version(config.framework))
        write_record(record_path(out, expected_machine_id(config.device), config), record)
        return record


def completed(config: RunConfig, out: Path) -> dict | None:
    """The existing ``ok`` record of ``config`` on this machine, if there is a valid one."""
    path = record_path(out, expected_machine_id(config.device), config)
    if not path.is_file():
        return None
    try:
        record = read_record(path, kind="fwbench.run/1")
    except RecordError:
        return None  # an unreadable record is simply run again (and replaced atomically)
    return record if record["status"] == "ok" else None


def run_matrix(configs: list[RunConfig], out: Path, executor: LocalExecutor, force: bool = False,
               progress: bool = True) -> list[tuple[RunConfig, dict | None, str]]:
    """Run every configuration not already done; returns (config, record or None, note) per configuration."""
    results = []
    bar = tqdm(configs, desc="matrix", unit="run", disable=not progress, file=sys.stderr)
    for config in bar:
        bar.set_postfix_str(config.label)
        if not executor.available(config.framework):
            python = executor.python_for(config.framework)
            tqdm.write(f"skip {config.label}: {config.framework} is not installed in {python}", file=sys.stderr)
            results.append((config, None, "not installed"))
            continue
        existing = None if force else completed(config, out)
        if existing:
            results.append((config, existing, "done before (resumed)"))
            continue
        record = executor.run(config, out)
        results.append((config, record, ""))
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


TIME_PARTS = {"compile_s": "compile", "warm_up_s": "warm-up steps", "timed_s": "timed epochs",
              "in_run_other_s": "imports, set-up, evaluation, record", "between_runs_s": "between runs"}


def time_breakdown(records: list[dict]) -> dict[str, float]:
    """Where the wall time of ``ok`` run records went, summed (seconds): ``span_s`` from the first start to
    the last finish, split into the parts of ``TIME_PARTS``; ``between_runs_s`` is the span not covered by
    any run (process start-up, the matrix's own work), meaningful for records of one sequential matrix."""
    ok = [r for r in records if r["status"] == "ok"]
    if not ok:
        return {}
    starts = [datetime.fromisoformat(r["started_at"]) for r in ok]
    ends = [datetime.fromisoformat(r["finished_at"]) for r in ok]
    run_s = sum((end - start).total_seconds() for start, end in zip(starts, ends, strict=True))
    span_s = (max(ends) - min(starts)).total_seconds()
    compile_s = sum(r["timing"]["compile_seconds"] for r in ok)
    first_s = sum(r["timing"]["first_step_seconds"] for r in ok)
    timed_s = sum(sum(r["timing"]["epoch_seconds_each"]) for r in ok)
    return {"span_s": span_s, "compile_s": compile_s, "warm_up_s": first_s - compile_s, "timed_s": timed_s,
            "in_run_other_s": run_s - first_s - timed_s, "between_runs_s": span_s - run_s}


def breakdown_line(breakdown: dict[str, float]) -> str:
    """``time_breakdown`` as one line: the span and its parts, in seconds."""
    if not breakdown:
        return "no ok runs to account for"
    parts = " + ".join(f"{label} {breakdown[key]:.0f}" for key, label in TIME_PARTS.items())
    return f"{breakdown['span_s']:.0f} s = {parts}"
