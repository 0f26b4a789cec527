"""``runners bisect``: the release bisect's command: its flags, the search, the report written and the samples
printed, the output folder locked meanwhile (one writer per folder: ``runners.measure.output_lock``). Exit 0 when
the search found a drop or none, 1 when it was inconclusive, 2 for a bad flag."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, UsageError, csv_of, examples, positive_int
from fwbench.environment import variables
from fwbench.frameworks import FRAMEWORKS
from fwbench.records import write_record
from fwbench.timestamps import utc_now
from runners.bisect.releases import ReleaseRunner
from runners.bisect.report import build_report
from runners.bisect.search import METRICS, bisect
from runners.envs import versions as envs
from runners.measure.output_lock import output_lock
from runners.measure.provenance import hardware_for

DESCRIPTION = (
    "Find the first release of a framework where a metric dropped beyond the noise, on this machine. Given the "
    "framework's releases in order (fwbench/version_sets.json, or --releases), it measures the oldest and the newest "
    "--repeats times each, each release in its own environment (runners envs) and each run a fresh runners run "
    "process (seeds 0, 1, … as repeats), in the configuration given (default: the quick profile's CPU sizes). When "
    "the newest is worse by more than --threshold with no overlap between the two sets of runs, it halves the range, "
    "measuring each release as many times (a release whose median is closer to the old one counts as good), and "
    "confirms the drop between the two releases either side of it the same way. A release whose environment or run "
    "fails is passed over (as git bisect skip). --workaround VAR=VALUE also measures the first bad release with that "
    "variable set. The report (schema fwbench.bisect/1) goes to OUT/<machine>/<framework>-<metric>-bs<N>.json, the "
    "run records behind it to OUT/<machine>/runs/; the site shows it on the Versions and Known platform issues pages."
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``runners bisect`` to the ``runners`` parser."""
    parser = sub.add_parser(
        "bisect",
        help="find the first release of a framework where a metric dropped beyond the noise",
        description=DESCRIPTION,
        **examples(
            "runners bisect --framework jax   # images/s at batch 32, from the article's release to the last",
            "runners bisect --framework jax --metric images_per_second --batch-size 32 "
            "--workaround XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=",
            "runners bisect --framework torch --releases 2.2.1,2.5.1,2.8.0 --metric compile_seconds",
        ),
    )
    parser.add_argument("--framework", choices=FRAMEWORKS, required=True, help="the framework whose releases to search")
    parser.add_argument(
        "--metric", choices=tuple(METRICS), default="images_per_second", help="what to compare (default images/s)"
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="images per step (default 32)")
    parser.add_argument("--profile", default="quick", help="whose sizes and epochs the runs use (default quick)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu", help="where the runs train (default cpu)")
    parser.add_argument(
        "--releases",
        type=csv_of(str),
        metavar="A,B,...",
        help="the releases to search, oldest first (default: the data file's, from the article's to the last)",
    )
    parser.add_argument("--threshold", type=float, default=0.25, help="the smallest relative drop (default 0.25)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="runs either side of a drop (default 3)")
    parser.add_argument("--workaround", metavar="VAR=VALUE", help="also measure the first bad release with this set")
    parser.add_argument("--timeout", type=positive_int, default=900, help="seconds per run (default 900)")
    parser.add_argument("--data-dir", type=Path, help="where CIFAR-10 is kept (default: the runs' own)")
    parser.add_argument(
        "--out", type=Path, default=Path("results/bisect"), help="where the report goes (default results/bisect)"
    )
    parser.set_defaults(func=cmd_bisect)


def check_flags(args: argparse.Namespace) -> None:
    """UsageError naming the flag for values argparse cannot judge alone; ``--releases`` filled in when not given."""
    if not 0 < args.threshold < 1:
        raise UsageError(f"--threshold {args.threshold}: must lie between 0 and 1")
    if args.workaround and "=" not in args.workaround:
        raise UsageError(f"--workaround {args.workaround!r}: expected VAR=VALUE")
    known = envs.releases(args.framework)
    if args.releases is None:
        start = known.index(envs.article_version(args.framework))
        args.releases = known[start:]
    unknown = [r for r in args.releases if r not in known]
    if unknown:
        raise UsageError(f"--releases: {unknown[0]} is not a release {envs.VERSION_SETS_FILE.name} knows")
    if len(args.releases) < 2:
        raise UsageError("--releases: give at least two releases")


def cmd_bisect(args: argparse.Namespace) -> int:
    """Bisect, write the report, print the samples and the result, the output folder locked meanwhile."""
    check_flags(args)
    with output_lock(args.out):
        return bisect_and_report(args)


def bisect_and_report(args: argparse.Namespace) -> int:
    """Bisect, write the report, print the samples and the result."""
    started_at = utc_now()
    runner = ReleaseRunner(args, args.out)
    result = bisect(args.releases, runner.measure, args.threshold, args.repeats, METRICS[args.metric])
    if args.workaround and result["first_bad"]:
        name, _, value = args.workaround.partition("=")
        with variables({name: value}):  # the runs inherit it, and their configuration records it as tuning
            runner.workaround_samples = [
                runner.run(result["first_bad"], seed, f"{result['first_bad']} with {name}")
                for seed in range(args.repeats)
            ]
    hardware = hardware_for(args.device)
    report = build_report(args, runner, result, hardware, started_at, ["runners", *sys.argv[1:]])
    path = args.out / hardware["machine_id"] / f"{args.framework}-{args.metric}-bs{args.batch_size}.json"
    write_record(path, report)
    shown = {
        **runner.samples,
        **(
            {f"{result['first_bad']} with {args.workaround}": runner.workaround_samples} if report["workaround"] else {}
        ),
    }
    rows = [
        [key, len(samples), ", ".join("failed" if s.value is None else f"{s.value:.3g}" for s in samples)]
        for key, samples in shown.items()
    ]
    print(tabulate(rows, headers=["release", "runs", args.metric]))
    print(f"{result['status']}: {result['message']}")
    print(f"report: {path}")
    return EXIT_OK if result["status"] != "inconclusive" else EXIT_FAILURE
