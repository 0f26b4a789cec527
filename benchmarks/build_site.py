"""Benchmark `generator build`: N run records (default 1,000; 4 % failed) over five machines, plus probes and
ten weekly ecosystem snapshots. Target: 10,000 run records in at most 30 s, growing linearly.

Usage: .venv/bin/python benchmarks/build_site.py [--runs 1000] [--keep DIR]

Run records are built the way ``runners run`` builds them — ``runners.measure.record.ok_record`` and ``failed_record``
from a profile's configurations (``runners.measure.profiles.expand``) and injected measurements — so nothing here comes
from the tests and no framework is imported. Probes and snapshots are minimal schema-valid records.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from tqdm import tqdm

from fwbench.frameworks import FRAMEWORKS, REGISTRY
from fwbench.records import write_record
from generator.cli import main as generator_main
from runners.measure import cpu_identity, machine_load, run
from runners.measure.profiles import RunConfig, expand
from runners.measure.record import Measured, failed_record, ok_record, record_path, run_order

VERSIONS = {"torch": "2.14.1", "tensorflow": "2.21.0", "jax": "0.10.2"}
QUIET = {"load_avg_1m": 0.3, "load_avg_5m": 0.3, "other_cpu_percent": 2.0, "cpu_count": 8}
SOFTWARE = {
    "python": "3.11.7",
    "os": "Linux 6.5.0 (x86_64)",
    "packages": dict(VERSIONS),
    "git_commit": "0" * 40,
    "git_dirty": False,
    "fwbench_version": "0.1.0",
}
STARTED, FINISHED = "2026-12-01T10:00:00.000Z", "2026-12-01T10:01:00.000Z"
BUGS = ("dense_shape", "dtype", "loss_shape", "nan")


def hardware(machine_id: str, threads: int, gpu: str | None = None) -> dict:
    """A hardware section as ``provenance.hardware_info()`` shapes it."""
    fingerprint = cpu_identity.cpu_fingerprint(
        f"vendor_id : AuthenticAMD\nflags : avx avx2 fma\nmodel : {threads}\n",
        cache_dir=Path("/nonexistent"),
        kernel="6.5.0",
    )
    return {
        "machine_id": machine_id,
        "device_kind": "gpu" if gpu else "cpu",
        "device_name": gpu or "AMD EPYC",
        "device_count": 1 if gpu else None,
        "gpu_driver": "535.129.03" if gpu else None,
        "cuda": "12.2" if gpu else None,
        "cudnn": "8.9.7" if gpu else None,
        "cpu_model": "AMD EPYC",
        "cpu_threads": threads,
        "framework_threads": threads,
        "host_memory_bytes": 64 << 30,
        "fingerprint": None if gpu else fingerprint,
    }


MACHINES = (
    hardware("nvidia-geforce-rtx-4090", 32, "NVIDIA GeForce RTX 4090"),
    *(hardware(f"cpu-amd-epyc-{t}t", t) for t in (2, 4, 8, 16)),
)


def configurations() -> list[RunConfig]:
    """The quick profile's configurations of every framework in every training mode it has, over two epochs (so
    that the site draws its convergence charts too)."""
    return [
        config
        for fw in FRAMEWORKS
        for config in expand(
            "quick",
            version_of=VERSIONS.get,
            frameworks=[fw],
            modes=list(REGISTRY[fw].training_modes),
            device="cpu",
            epochs=2,
        )
    ]


def measured(config: RunConfig, seconds: float, accuracy: float, position: int, total: int) -> Measured:
    """Measurements for one run: ``seconds`` per epoch, the test accuracy rising to ``accuracy``."""
    steps = config.epoch_train_images // config.batch_size
    windows = run.window_sizes(steps) * config.epochs
    epochs = [
        {
            "epoch": e,
            "train_loss": 2.5 - 0.2 * e,
            "train_accuracy": accuracy - 0.05,
            "test_loss": 2.4 - 0.2 * e,
            "test_accuracy": accuracy - 0.02 * (config.epochs - e),
        }
        for e in range(1, config.epochs + 1)
    ]
    return Measured(
        first_step_seconds=3.0 + seconds / steps,
        epoch_seconds=[seconds] * config.epochs,
        window_step_seconds=[seconds / steps] * len(windows),
        window_steps=windows,
        epochs=epochs,
        framework_memory={"allocator_peak_bytes": None, "allocator_reserved_bytes": None},
        nvml_peak_bytes=None,
        host_self_peak_bytes=(900 + config.batch_size) << 20,
        host_children_peak_bytes=100 << 20,
        data_bytes=1 << 20,
        load=machine_load.load_section(QUIET, QUIET, waited_seconds=0.0),
        run_order=run_order(position, total),
    )


def write_runs(out: Path, n_runs: int) -> None:
    """``n_runs`` run records, spread over the machines and configurations, one seed per pass; every 25th fails."""
    configs = [(machine, config) for machine in MACHINES for config in configurations()]
    for index in tqdm(range(n_runs), desc="runs", unit="record"):
        machine, config = configs[index % len(configs)]
        seed = index // len(configs)
        config = dataclasses.replace(config, seed=seed)
        position = index % len(configs) + 1
        if index % 25 == 24:
            record = failed_record(
                config,
                machine,
                STARTED,
                "oom",
                "torch.OutOfMemoryError",
                "CUDA out of memory. Tried to allocate 2.00 GiB",
                run_order=run_order(position, len(configs)),
            )
        else:
            seconds = 10.0 * 32 / config.batch_size + 0.01 * seed
            record = ok_record(
                config,
                machine,
                STARTED,
                FINISHED,
                measured(config, seconds, 0.4 + 0.001 * seed, position, len(configs)),
                software=SOFTWARE,
                command=["runners", "run", "--framework", config.framework],
            )
        write_record(record_path(out / "runs", machine["machine_id"], config), record)


def probe(framework: str, bug: str, machine_id: str) -> dict:
    """A probe record that raised an error (the NaN probe with its tooling off raised none)."""
    raised = bug != "nan"
    return {
        "schema": "fwbench.probe/1",
        "record_id": f"{bug}-{framework}-compiled",
        "bug": bug,
        "tooling": False if bug == "nan" else None,
        "framework": {"name": framework, "version": VERSIONS[framework], "mode": "compiled"},
        "outcome": "error" if raised else "no_error",
        "exception_type": "ValueError" if raised else None,
        "message": "shapes (128, 64) and (128, 128) do not match" if raised else None,
        "message_clean": "shapes (128, 64) and (128, 128) do not match" if raised else None,
        "traceback": None,
        "traceback_clean": None,
        "traceback_lines": None,
        "traceback_frames": None,
        "expected_tokens": ["128", "64"],
        "names_shapes": raised,
        "planted": {"file": "p.py", "line": 3},
        "points_to_file": False,
        "points_to_line": False,
        "layer_name": "head",
        "names_layer": False,
        "seconds_to_error": 0.1 if raised else None,
        "score": {
            "total": 2 if raised else 0,
            "max": 6,
            "parts": {"names_shapes": 2 if raised else 0},
            "rubric": "fwbench.probe-rubric/1",
        },
        "machine_id": machine_id,
        "software": SOFTWARE,
        "started_at": STARTED,
        "finished_at": FINISHED,
    }


def snapshot(day: str, stars: int) -> dict:
    """An ecosystem snapshot holding one GitHub figure per framework repository."""
    metric = {
        "status": "ok",
        "reason": None,
        "collected_at": f"{day}T05:00:00Z",
        "method": {"endpoint": "/repos/{repo}", "window_days": None, "sample_size": None},
    }
    repos = ("pytorch/pytorch", "tensorflow/tensorflow", "jax-ml/jax")
    return {
        "schema": "fwbench.ecosystem/1",
        "collected_at": f"{day}T05:00:00Z",
        "date": day,
        "window_days": 365,
        "complete": True,
        "authenticated": {"github": False},
        "sources": {"github": {repo: {"stars": {**metric, "value": stars + i}} for i, repo in enumerate(repos)}},
        "failures": [],
    }


def write_records(root: Path, n_runs: int) -> None:
    """Write the run records, a probe per framework, bug and CPU machine of two, and ten weekly snapshots."""
    write_runs(root, n_runs)
    for machine, fw, bug in itertools.product(MACHINES[1:3], FRAMEWORKS, BUGS):
        machine_id = machine["machine_id"]
        write_record(root / "probes" / machine_id / f"{bug}-{fw}.json", probe(fw, bug, machine_id))
    start = date(2026, 9, 1)
    for week in range(10):
        day = (start + timedelta(weeks=week)).isoformat()
        write_record(root / "ecosystem" / f"{day}.json", snapshot(day, 80000 + 1000 * week))


def main(argv: list[str] | None = None) -> int:
    """Write the records, build the site, print the build time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="number of run records (default 1000)")
    parser.add_argument("--keep", type=Path, default=None, help="write records and site here instead of a temp dir")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fwbench-bench-") as tmp:
        root = args.keep or Path(tmp)
        write_records(root / "results", args.runs)
        started = time.perf_counter()
        code = generator_main(["build", "--results", str(root / "results"), "--site-dir", str(root / "site")])
        elapsed = time.perf_counter() - started
    print(
        f"build_site: {args.runs} runs, {2 * len(FRAMEWORKS) * len(BUGS)} probes, 10 snapshots -> "
        f"generator build took {elapsed:.1f} s (target for 10,000 runs: ≤ 30 s), exit code {code}"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
