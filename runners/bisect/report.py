"""The release bisect's report (schema ``fwbench.bisect/1``): every sample, what the search concluded, and the
``runners`` commands that reproduce it."""

from __future__ import annotations

import argparse

from fwbench.timestamps import utc_now
from runners.bisect.releases import ReleaseRunner
from runners.bisect.search import METRICS

SCHEMA = "fwbench.bisect/1"


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
    args: argparse.Namespace, runner: ReleaseRunner, result: dict, hardware: dict, started_at: str, command: list[str]
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
