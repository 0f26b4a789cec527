"""How the release bisect measures a release: each in its own environment (``runners envs``), each run a fresh
``runners run`` process through ``runners.executors.local.LocalExecutor`` (seeds 0, 1, … as repeats), every sample and
record kept."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fwbench.records import write_record
from runners.bisect.search import Sample
from runners.envs import versions as envs
from runners.executors.local import LocalExecutor
from runners.measure.profiles import expand


class ReleaseRunner:
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
