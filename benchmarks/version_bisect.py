"""Release bisect: the first release of a framework where a metric dropped beyond the noise, on this machine.

Given the framework's releases in order (``fwbench/version_sets.json``, or ``--releases``), it measures the oldest
and the newest ``--repeats`` times each, each release in its own environment (``runners envs``) and each run a
fresh ``runners run`` process (seeds 0, 1, … as repeats), in the configuration given (default: the quick profile's
CPU sizes). When the newest is worse by more than ``--threshold`` with no overlap between the two sets of runs, it
halves the range, measuring each release as many times (a release whose median is closer to the old one counts as
good), and confirms the drop between the two releases either side of it the same way. A release
whose environment or run fails is passed over (as ``git bisect skip``). ``--workaround VAR=VALUE`` also measures
the first bad release with that variable set.

The report (schema ``fwbench.bisect/1``) goes to ``OUT/<machine>/<framework>-<metric>-bs<N>.json``, the run records
behind it to ``OUT/<machine>/runs/``; the site shows it on the Versions and Known platform issues pages.

    python benchmarks/version_bisect.py --framework jax --metric images_per_second --batch-size 32 \\
        --workaround XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from fwbench.cliargs import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, csv_of, positive_int
from fwbench.environment import variables
from fwbench.frameworks import FRAMEWORKS
from fwbench.records import write_record
from fwbench.timestamps import utc_now
from runners.envs import versions as envs
from runners.executors.local import LocalExecutor
from runners.measure.output_lock import output_lock
from runners.measure.profiles import expand
from runners.measure.provenance import hardware_for

SCHEMA = "fwbench.bisect/1"
#: timing fields a bisect may compare, and whether more is better
METRICS = {"images_per_second": True, "epoch_seconds": False, "compile_seconds": False, "step_seconds_median": False}


@dataclass(frozen=True)
class Sample:
    """One run at one release: the metric (None when the run failed) and where it came from."""

    value: float | None
    record_id: str
    status: str
    message: str | None
    packages: dict

    def as_json(self) -> dict:
        return {
            "value": self.value,
            "record_id": self.record_id,
            "status": self.status,
            "message": self.message,
            "packages": self.packages,
        }


Measure = Callable[[str, int], list[Sample]]  # (release, runs wanted in all) -> every sample of that release


def values(samples: list[Sample]) -> list[float]:
    return [s.value for s in samples if s.value is not None]


def worse_beyond_noise(good: list[float], bad: list[float], threshold: float, higher_is_better: bool) -> float | None:
    """The relative drop from ``good`` to ``bad`` when it exceeds ``threshold`` and the two sets of runs do not
    overlap (every bad run worse than every good one), else None."""
    if not good or not bad:
        return None
    if higher_is_better:
        drop = 1 - statistics.median(bad) / statistics.median(good)
        apart = max(bad) < min(good)
    else:
        drop = 1 - statistics.median(good) / statistics.median(bad)
        apart = min(bad) > max(good)
    return drop if drop > threshold and apart else None


def bisect(releases: list[str], measure: Measure, threshold: float, repeats: int, higher_is_better: bool) -> dict:
    """Search ``releases`` (oldest first) for the first one worse than its predecessor beyond the noise; the
    report's ``result`` section. ``measure(release, n)`` runs the release until it has ``n`` samples and returns
    them all (an empty list or no values: the release could not be measured, and is skipped)."""
    skipped: list[str] = []

    def usable(release: str, n: int) -> list[float] | None:
        found = values(measure(release, n))
        if not found:
            skipped.append(release)
        return found or None

    candidates = list(releases)
    good, bad = usable(candidates[0], repeats), usable(candidates[-1], repeats)
    if good is None or bad is None:
        return _result("inconclusive", "the oldest or the newest release could not be measured", skipped=skipped)
    if worse_beyond_noise(good, bad, threshold, higher_is_better) is None:
        return _result(
            "no_drop",
            f"{candidates[-1]} is not worse than {candidates[0]} by more than {threshold:.0%} beyond the noise",
            good_median=statistics.median(good),
            bad_median=statistics.median(bad),
            skipped=skipped,
        )
    # A release is good when the median of its runs lies on the good side of the midpoint (geometric: the metric is
    # a rate). Every release gets ``repeats`` runs, not one: a slow release's single run can land anywhere between
    # the two medians (seen here: jaxlib's slow releases gave 9-18 img/s, its fast ones 23-25).
    boundary = (statistics.median(good) * statistics.median(bad)) ** 0.5
    lo, hi = 0, len(candidates) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        found = usable(candidates[mid], repeats)
        if found is None:
            del candidates[mid]
            hi -= 1
            continue
        is_good = (statistics.median(found) > boundary) == higher_is_better
        lo, hi = (mid, hi) if is_good else (lo, mid)
    last_good, first_bad = candidates[lo], candidates[hi]
    good, bad = usable(last_good, repeats) or [], usable(first_bad, repeats) or []
    drop = worse_beyond_noise(good, bad, threshold, higher_is_better)
    medians = {"good_median": statistics.median(good), "bad_median": statistics.median(bad)}
    if drop is None:
        return _result(
            "inconclusive",
            f"the halving ended between {last_good} and {first_bad}, but with {repeats} runs each the step there is "
            f"not beyond the noise: the drop may be spread over several releases",
            last_good=last_good,
            first_bad=first_bad,
            skipped=skipped,
            **medians,
        )
    return _result(
        "found",
        f"{first_bad} is the first release worse than its predecessor {last_good} by {drop:.0%} "
        f"(medians of {len(bad)} and {len(good)} runs, no overlap)",
        last_good=last_good,
        first_bad=first_bad,
        drop=drop,
        skipped=skipped,
        **medians,
    )


def _result(status: str, message: str, **fields) -> dict:
    result = {"status": status, "message": message, "last_good": None, "first_bad": None}
    result.update({"good_median": None, "bad_median": None, "drop": None, "skipped": []})
    result.update(fields)
    result["skipped"] = sorted(set(result["skipped"]), key=result["skipped"].index)
    return result


class Runner:
    """Measures releases through ``runners.executors.local.LocalExecutor`` (a fresh process per run), each in its own
    environment, and keeps every sample and record."""

    def __init__(self, args: argparse.Namespace, out: Path):
        self.args, self.out = args, out
        self.executor = LocalExecutor(timeout_s=args.timeout, data_dir=args.data_dir)
        self.samples: dict[str, list[Sample]] = {}
        self.workaround_samples: list[Sample] = []
        self.unbuildable: dict[str, str] = {}

    def config(self, release: str, seed: int):
        (config,) = expand(
            self.args.profile,
            versions={self.args.framework: [release]},
            frameworks=[self.args.framework],
            modes=["compiled"],
            batch_sizes=[self.args.batch_size],
            seeds=[seed],
            device=self.args.device,
        )
        return config

    def interpreter(self, release: str) -> bool:
        """Build ``release``'s environment if needed; False (and why, kept) when it cannot be built."""
        if release in self.unbuildable:
            return False
        try:
            python = envs.build(self.args.framework, release, log=lambda line: print(line, file=sys.stderr))
        except envs.EnvError as exc:
            self.unbuildable[release] = str(exc)
            print(f"{release}: skipped: {exc}", file=sys.stderr)
            return False
        self.executor.interpreters[self.args.framework, release] = str(python)
        return True

    def run(self, release: str, seed: int, label: str) -> Sample:
        """One run of ``release`` with ``seed`` (``label`` in the log); its record kept in ``OUT/<machine>/runs/``."""
        config = self.config(release, seed)
        record = self.executor.run(config)
        path = self.out / record["hardware"]["machine_id"] / "runs" / f"{record['record_id']}.json"
        write_record(path, record)
        value = (record.get("timing") or {}).get(self.args.metric) if record["status"] == "ok" else None
        sample = Sample(
            value,
            record["record_id"],
            record["status"],
            (record.get("failure") or {}).get("message"),
            record["software"].get("packages", {}),
        )
        shown = "failed" if value is None else f"{value:.4g}"
        print(f"{label} seed {seed}: {self.args.metric} {shown}", file=sys.stderr, flush=True)
        return sample

    def measure(self, release: str, wanted: int) -> list[Sample]:
        """Run ``release`` until it has ``wanted`` samples (seeds 0, 1, …); all its samples."""
        have = self.samples.setdefault(release, [])
        while len(have) < wanted and self.interpreter(release):
            have.append(self.run(release, len(have), release))
        return have


def reproduce_commands(args: argparse.Namespace, result: dict) -> str:
    """The runners commands that measure the two releases either side of the drop (or the two ends)."""
    pair = [result["last_good"], result["first_bad"]] if result["first_bad"] else [args.releases[0], args.releases[-1]]
    listed = ",".join(pair)
    seeds = ",".join(str(seed) for seed in range(args.repeats))
    return (
        f"runners envs build {args.framework}={listed}\n"
        f"runners matrix --profile {args.profile} --frameworks {args.framework} --versions {args.framework}={listed} "
        f"--batch-sizes {args.batch_size} --seeds {seeds} --device {args.device} --out /tmp/bisect-check"
    )


def build_report(
    args: argparse.Namespace, runner: Runner, result: dict, hardware: dict, started_at: str, command: list[str]
) -> dict:
    """The ``fwbench.bisect/1`` report of a finished search: every sample, the result, how to reproduce it."""
    name, _, value = (args.workaround or "").partition("=")
    config = runner.config(args.releases[0], 0)
    return {
        "schema": SCHEMA,
        "framework": args.framework,
        "metric": args.metric,
        "higher_is_better": METRICS[args.metric],
        "config": {
            key: getattr(config, key)
            for key in ("profile", "mode", "batch_size", "dataset", "train_images", "test_images", "epochs")
        }
        | {"device": args.device},
        "machine_id": hardware["machine_id"],
        "hardware": hardware,
        "releases": args.releases,
        "threshold": args.threshold,
        "repeats": args.repeats,
        "samples": {key: [s.as_json() for s in samples] for key, samples in runner.samples.items()},
        "result": {**result, "skipped": sorted(set(result["skipped"]) | set(runner.unbuildable))},
        "reproduce": reproduce_commands(args, result),
        "workaround": {name: value} if runner.workaround_samples else None,
        "workaround_samples": [s.as_json() for s in runner.workaround_samples],
        "started_at": started_at,
        "finished_at": utc_now(),
        "command": command,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--framework", choices=FRAMEWORKS, required=True)
    parser.add_argument("--metric", choices=tuple(METRICS), default="images_per_second")
    parser.add_argument("--batch-size", type=positive_int, default=32)
    parser.add_argument("--profile", default="quick", help="whose sizes and epochs the runs use (default quick)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
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
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--out", type=Path, default=Path("results/bisect"))
    args = parser.parse_args(argv)
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
    return args


def main(argv: list[str] | None = None) -> int:
    """Bisect, write the report, print the samples and the result; the output folder locked meanwhile (one writer
    per folder: ``runners.measure.output_lock``)."""
    try:
        args = parse_args(argv)
        with output_lock(args.out):
            return bisect_and_report(args, argv)
    except UsageError as exc:
        print(f"version_bisect: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def bisect_and_report(args: argparse.Namespace, argv: list[str] | None) -> int:
    """Bisect, write the report, print the samples and the result."""
    started_at = utc_now()
    runner = Runner(args, args.out)
    result = bisect(args.releases, runner.measure, args.threshold, args.repeats, METRICS[args.metric])
    if args.workaround and result["first_bad"]:
        name, _, value = args.workaround.partition("=")
        with variables({name: value}):  # the runs inherit it, and their configuration records it as tuning
            runner.workaround_samples = [
                runner.run(result["first_bad"], seed, f"{result['first_bad']} with {name}")
                for seed in range(args.repeats)
            ]
    hardware = hardware_for(args.device)
    command = ["python", "benchmarks/version_bisect.py", *(argv if argv is not None else sys.argv[1:])]
    report = build_report(args, runner, result, hardware, started_at, command)
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


if __name__ == "__main__":
    sys.exit(main())
