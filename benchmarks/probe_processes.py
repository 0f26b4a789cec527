"""The probe suite in fresh interpreters against forks of a warm zygote: wall time, and what the probes report.

Runs the selected probes (default all 30 of the installed frameworks) both ways, alternating framework by
framework (fresh, fork, fresh, fork …) so drift hits both, and prints per framework and mode the wall seconds and
seconds to error of each way and their ratio, the suite's total and ratio, and every probe whose outcome,
exception type, traceback length or number of warnings differs between the two ways (expected: none).

    python benchmarks/probe_processes.py [--frameworks torch,tensorflow,jax] [--mode eager]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from fwbench.cliargs import add_frameworks_flag, csv_of
from fwbench.frameworks import FRAMEWORKS
from runners.probes.capture import ProbeProcesses
from runners.probes.catalog import MODES, all_specs

#: what must not depend on how a probe's process was started
SAME = ("outcome", "exception_type", "frames", "warnings")


def comparable(capture: dict) -> dict:
    """The parts of a capture that must agree: frame and warning counts, not their paths or line numbers."""
    return {key: len(capture[key] or []) if key in ("frames", "warnings") else capture.get(key) for key in SAME}


def main(argv: list[str] | None = None) -> int:
    """Run the probes both ways and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frameworks_flag(parser)
    parser.add_argument("--mode", action="extend", type=csv_of(str, MODES), help="only these modes (default: all)")
    args = parser.parse_args(argv)
    frameworks = tuple(f for f in FRAMEWORKS if not args.frameworks or f in args.frameworks)
    totals: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    suite = {"fresh": 0.0, "fork": 0.0}
    differ = []
    for name in frameworks:
        specs = all_specs(frameworks=(name,), modes=tuple(args.mode or MODES))
        captures = {}
        for way, fork in (("fresh", False), ("fork", True)):
            started = time.perf_counter()
            with ProbeProcesses(fork=fork) as processes:
                captures[way] = [processes.run(spec) for spec in specs]
            suite[way] += time.perf_counter() - started  # the zygote's import included
        for spec, fresh, forked in zip(specs, captures["fresh"], captures["fork"], strict=True):
            for way, capture in (("fresh", fresh), ("fork", forked)):
                totals[(spec.framework, spec.mode)][way][0] += capture["wall_seconds"]
                totals[(spec.framework, spec.mode)][way][1] += capture.get("seconds_to_error") or 0.0
            if comparable(fresh) != comparable(forked):
                differ.append(f"{spec.label}: fresh {comparable(fresh)} / fork {comparable(forked)}")
    print(f"{'framework mode':<22}{'wall fresh':>12}{'wall fork':>11}{'ratio':>7}{'to error fresh':>16}{'fork':>8}")
    for (name, mode), ways in totals.items():
        (fresh_wall, fresh_err), (fork_wall, fork_err) = ways["fresh"], ways["fork"]
        print(
            f"{name + ' ' + mode:<22}{fresh_wall:>11.1f}s{fork_wall:>10.1f}s{fork_wall / fresh_wall:>7.2f}"
            f"{fresh_err:>15.2f}s{fork_err:>7.2f}s"
        )
    print(
        f"suite: fresh {suite['fresh']:.1f} s, fork {suite['fork']:.1f} s (imports included): "
        f"{suite['fork'] / suite['fresh']:.2f} x"
    )
    print("probes that differ:", *differ or ["none"], sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
