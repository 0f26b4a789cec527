"""Executor overhead: what the matrix's executors add to each configuration, the local one and the Ray one.

Runs N dry configurations (``runners run --placeholder-record``: the child starts, writes its record and trains nothing)
through ``runners.matrix.driver.run_matrix`` with each executor on this machine, in alternating rounds (local, Ray,
local, Ray …) so that drift hits both, records into a temporary directory (never ``results/``). Ray runs on an instance
started here; starting it and surveying its node is paid once per matrix and printed apart. A CPU configuration takes
the whole node, so Ray runs them one at a time, like the local executor. Prints seconds per configuration (median of the
rounds) and what Ray adds to each (target: at most 0.5 s).

    python benchmarks/executor_overhead.py [--configurations 20] [--rounds 3] [--framework torch]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fwbench.cliargs import positive_int
from fwbench.frameworks import FRAMEWORKS
from runners.executors.boundary import Target
from runners.executors.local import LocalExecutor
from runners.executors.ray import RayExecutor
from runners.executors.ray_cluster import plan_of, ray_session, survey_cluster
from runners.matrix.driver import run_matrix
from runners.matrix.order import interleaved_order
from runners.matrix.survey import survey

TARGET_ADDED_S = 0.5


def seconds_per_configuration(plan: list, executor, out: Path) -> float:
    """Wall seconds of one matrix over ``plan`` through ``executor``, per configuration."""
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # the matrix's line per configuration
        results = run_matrix(plan, out, executor, force=True, progress=False).results
    assert all(r.record and r.record["failure"]["exception_type"] == "PlaceholderRecord" for r in results), results
    return (time.perf_counter() - started) / len(results)


def main() -> int:
    """Measure both executors and print one row each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configurations", type=positive_int, default=20)
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument(
        "--framework",
        choices=FRAMEWORKS,
        default="torch",
        help="whose interpreter check the child makes (torch's is the lightest; default torch)",
    )
    args = parser.parse_args()
    local = LocalExecutor(placeholder_records=True)
    selection = {"frameworks": [args.framework], "seeds": list(range(args.configurations))}
    here = survey(local, "smoke", "auto", selection)
    local_plan = [(Target((here.hardware["machine_id"],), here.not_installed), interleaved_order(here.configs))]
    timings: dict[str, list[float]] = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory(prefix="fwbench-executor-overhead-") as out:
        started = time.perf_counter()
        with ray_session(None):
            nodes = survey_cluster(local, "smoke", "auto", selection)
            ray_plan, ray = plan_of(nodes, per_kind=False), RayExecutor(local, nodes)
            setup_s = time.perf_counter() - started
            for _ in range(args.rounds):
                timings["local"].append(seconds_per_configuration(local_plan, local, Path(out)))
                timings["ray"].append(seconds_per_configuration(ray_plan, ray, Path(out)))
    local_s, ray_s = statistics.median(timings["local"]), statistics.median(timings["ray"])
    print(
        f"{args.configurations} dry {args.framework} configurations per matrix, {args.rounds} rounds of each "
        "executor: the median round, and the range"
    )
    print(f"{'executor':<10}{'s/configuration':>17}  per-round range")
    for name, each in timings.items():
        print(f"{name:<10}{statistics.median(each):>17.3f}  {min(each):.3f}–{max(each):.3f}")
    verdict = "within" if ray_s - local_s <= TARGET_ADDED_S else "ABOVE"
    print(
        f"Ray adds {ray_s - local_s:+.3f} s per configuration ({verdict} the {TARGET_ADDED_S} s target), plus "
        f"{setup_s:.1f} s once per matrix to start Ray here and survey its node"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
