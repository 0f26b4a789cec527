"""Benchmark `generator build`: 1,000 synthetic run records + probes + 10 ecosystem snapshots (target ≤ 30 s).

Usage: .venv/bin/python benchmarks/build_site.py [--runs 1000] [--keep DIR]
Records come from the generator tests' schema-valid factories (tests/generator/gen_records.py).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "generator"))
import gen_records  # noqa: E402

from fwbench.records import write_record  # noqa: E402
from generator.cli import main as generator_main  # noqa: E402

MACHINES = (
    gen_records.GPU_MACHINE,
    gen_records.CPU_MACHINE,
    "cpu-bench-b-8t",
    "cpu-bench-c-16t",
    "cpu-bench-d-4t",
)
BUGS = ("dense_shape", "dtype", "loss_shape", "nan")


def write_records(root: Path, n_runs: int) -> None:
    """Write ``n_runs`` runs (4% failed) over machines and configurations, plus probes and snapshots."""
    configs = list(
        itertools.product(MACHINES, gen_records.VERSIONS, ("compiled", "eager"), (32, 64, 128, 256))
    )
    for index in tqdm(range(n_runs), desc="runs", unit="record"):
        machine, fw, mode, bs = configs[index % len(configs)]
        seed = index // len(configs)
        status = "oom" if index % 25 == 24 else "ok"
        record = gen_records.run(
            fw,
            bs,
            seed,
            seconds=10.0 * 32 / bs + 0.01 * seed,
            accuracy=0.4 + 0.001 * seed,
            status=status,
            machine_id=machine,
            mode=mode,
        )
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
    for machine, fw, bug in itertools.product(MACHINES[:2], gen_records.VERSIONS, BUGS):
        record = gen_records.probe(fw, bug, machine_id=machine, tooling=False if bug == "nan" else None)
        write_record(root / "probes" / machine / f"{record['record_id']}.json", record)
    start = date(2026, 9, 1)
    for week in range(10):
        day = (start + timedelta(weeks=week)).isoformat()
        write_record(root / "ecosystem" / f"{day}.json", gen_records.snapshot(day, stars=80000 + 1000 * week))


def main(argv: list[str] | None = None) -> int:
    """Write the records, build the site, print the build time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="number of run records (default 1000)")
    parser.add_argument(
        "--keep", type=Path, default=None, help="write records and site here instead of a temp dir"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fwbench-bench-") as tmp:
        root = args.keep or Path(tmp)
        write_records(root / "results", args.runs)
        started = time.perf_counter()
        code = generator_main(["build", "--results", str(root / "results"), "--site-dir", str(root / "site")])
        elapsed = time.perf_counter() - started
    print(
        f"build_site: {args.runs} runs, {len(MACHINES[:2]) * 12} probes, 10 snapshots -> "
        f"generator build took {elapsed:.1f} s (target ≤ 30 s), exit code {code}"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
