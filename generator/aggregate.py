"""Group run records by machine and configuration and summarise repeats (mean, spread, 95 % interval).

Busy-flagged runs (``load.busy``) and older records (upgraded ``fwbench.run/1``) are kept and shown, but a
configuration's figures leave them out whenever it has clean runs, and only clean runs enter a verdict.
"""

from __future__ import annotations

import hashlib
import math
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from generator.load import Loaded

FRAMEWORKS = ("torch", "tensorflow", "jax")
FRAMEWORK_LABELS = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}
MODES = ("compiled", "eager")
FAILED_LABELS = {"oom": "OOM", "error": "error", "timeout": "timeout"}

#: two-sided 95% Student-t quantiles by degrees of freedom (1..30); the normal 1.96 beyond
_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)
#: fewer runs than this give no interval: two points say little about spread
MIN_RUNS_FOR_INTERVAL = 3
#: why a run is shown but never judged
BUSY = "busy"
OLDER = "older record"
#: flag -> the runs it marks, in words
FLAGGED_RUNS = {BUSY: "busy-flagged runs", OLDER: "older records"}
#: how two figures compare once their noise is taken into account (see ``separation``)
APART = "apart"
WITHIN_NOISE = "within noise"
TOO_FEW_RUNS = "too few runs"


@dataclass(frozen=True)
class Stats:
    """Summary of repeated measurements of one quantity."""

    n: int
    mean: float
    median: float
    std: float | None
    ci95: tuple[float, float] | None


def describe(values: list[float]) -> Stats | None:
    """Mean, median, sample std (n ≥ 2) and a 95% t-interval of the mean (n ≥ 3); None for no values."""
    values = [float(v) for v in values if v is not None]
    if not values:
        return None
    n = len(values)
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if n >= 2 else None
    ci = None
    if n >= MIN_RUNS_FOR_INTERVAL and std is not None:
        t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
        half = t * std / math.sqrt(n)
        ci = (mean - half, mean + half)
    return Stats(n=n, mean=mean, median=statistics.median(values), std=std, ci95=ci)


def separation(a: Stats, b: Stats) -> str:
    """APART when the two 95 % intervals do not overlap, WITHIN_NOISE when they do, TOO_FEW_RUNS when either
    figure has fewer than MIN_RUNS_FOR_INTERVAL runs (no interval: the data cannot tell)."""
    if a.ci95 is None or b.ci95 is None:
        return TOO_FEW_RUNS
    return APART if a.ci95[1] < b.ci95[0] or b.ci95[1] < a.ci95[0] else WITHIN_NOISE


def flags_of(record: dict[str, Any]) -> tuple[str, ...]:
    """Why a run may be shown but never judged: BUSY (the machine was busy) and OLDER (an upgraded /1 record)."""
    flags = (BUSY,) if (record.get("load") or {}).get("busy") else ()
    return flags + ((OLDER,) if record.get("upgraded_from") else ())


def time_to_accuracy(record: dict[str, Any], target: float) -> float | None:
    """Training seconds until the test accuracy first reaches ``target`` (a fraction): the compile time plus
    the timed epochs up to that epoch, evaluation excluded. None when it never did or a figure is missing."""
    timing, accuracy = record.get("timing") or {}, record.get("accuracy") or {}
    each = timing.get("epoch_seconds_each") or []
    if timing.get("compile_seconds") is None:
        return None
    for row in sorted(accuracy.get("epochs") or [], key=lambda r: r["epoch"]):
        if row.get("test_accuracy") is not None and row["test_accuracy"] >= target:
            return timing["compile_seconds"] + sum(each[: row["epoch"]]) if len(each) >= row["epoch"] else None
    return None


@dataclass(frozen=True, order=True)
class Setting:
    """What must match for runs to share a table: same profile, data, requested training-set size, epochs,
    precision and tuning environment (empty when out of the box).

    The size is ``config.train_images`` (the request), never the images trained per epoch, which drop-last
    makes differ between batch sizes. Older records lack it: they are keyed on ``images_per_epoch`` instead
    and ``older`` keeps them in tables of their own.
    """

    profile: str
    dataset: str
    train_images: int
    epochs: int
    precision: str
    tuning: str = ""  # "NAME=value; …" of the record's config.tuning_environment
    older: bool = False

    @property
    def label(self) -> str:
        """Human-readable one-liner, e.g. ``quick · synthetic · 256 training images · 1 epoch · float32``."""
        epochs = f"{self.epochs} epoch" + ("s" if self.epochs != 1 else "")
        images = f"{self.train_images:,} " + ("images/epoch (older records)" if self.older else "training images")
        parts = (self.profile, self.dataset, images, epochs, self.precision)
        return " · ".join(parts + ((f"tuned: {self.tuning}",) if self.tuning else ()))

    @property
    def slug(self) -> str:
        """File-name-safe id of the setting."""
        text = f"{self.profile}-{self.dataset}-{self.train_images}-{self.epochs}e-{self.precision}"
        slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")  # "float32 (TF32 off)" → "float32-tf32-off"
        slug += "-older" if self.older else ""
        return slug + (f"-tuned-{hashlib.sha256(self.tuning.encode()).hexdigest()[:8]}" if self.tuning else "")


@dataclass(frozen=True, order=True)
class ConfigKey:
    """One configuration: repeats (seeds) of it are summarised together."""

    machine_id: str
    setting: Setting
    framework: str
    mode: str
    batch_size: int


def tuning_of(record: dict[str, Any]) -> str:
    """The run's tuning variables as ``NAME=value; …`` (empty for an out-of-the-box run)."""
    tuning = record["config"].get("tuning_environment", {})
    return "; ".join(f"{name}={value}" for name, value in sorted(tuning.items()))


def _setting_of(record: dict[str, Any]) -> Setting:
    config = record["config"]
    older = config.get("train_images") is None  # an upgraded /1 record: only the trained count is known
    return Setting(
        config["profile"],
        config["dataset"],
        config["images_per_epoch"] if older else config["train_images"],
        config["epochs"],
        config["precision"],
        tuning_of(record),
        older,
    )


@dataclass
class Summary:
    """All runs of one configuration and their statistics.

    The statistics come from the counted runs: the successful clean ones, or, where a configuration has
    none, its successful flagged ones (busy or older), so that they are still shown — marked, and never judged.
    """

    key: ConfigKey
    runs: list[Loaded] = field(default_factory=list)

    def _ok_records(self) -> list[dict[str, Any]]:
        return [r.record for r in self.runs if r.record["status"] == "ok"]

    def _clean_records(self) -> list[dict[str, Any]]:
        return [rec for rec in self._ok_records() if not flags_of(rec)]

    def _ok(self) -> list[dict[str, Any]]:
        return self._clean_records() or self._ok_records()

    def _values(self, section: str, name: str) -> list[float]:
        return [rec[section][name] for rec in self._ok() if rec.get(section) and rec[section].get(name) is not None]

    @property
    def judgeable(self) -> bool:
        """True when clean successful runs exist: only then may the figures enter a verdict, lead or choice."""
        return bool(self._clean_records())

    @property
    def flags(self) -> list[str]:
        """The flags of the counted runs (empty when they are clean): why the figures are never judged."""
        return [] if self.judgeable else sorted({f for rec in self._ok() for f in flags_of(rec)})

    @property
    def flagged(self) -> Counter:
        """Flag -> how many successful runs carry it."""
        return Counter(f for rec in self._ok_records() for f in flags_of(rec))

    @property
    def left_out(self) -> Counter:
        """Flag -> how many successful flagged runs the figures leave out because clean runs exist."""
        return self.flagged if self.judgeable else Counter()

    @property
    def missing(self) -> list[str]:
        """The fwbench.run/2 fields that this configuration's older records lack."""
        return sorted({name for r in self.runs for name in r.record.get("missing") or ()})

    @property
    def images_per_epoch(self) -> int:
        """Images actually trained per epoch (after drop-last) at this batch size."""
        return self.runs[0].record["config"]["images_per_epoch"]

    @property
    def statuses(self) -> Counter:
        """How many runs ended in each status."""
        return Counter(r.record["status"] for r in self.runs)

    @property
    def n_runs(self) -> int:
        """Number of runs of this configuration, failed ones included."""
        return len(self.runs)

    @property
    def n_ok(self) -> int:
        """Number of successful runs (flagged ones included)."""
        return self.statuses.get("ok", 0)

    @property
    def n_clean(self) -> int:
        """Number of successful runs that may enter a verdict (neither busy nor older)."""
        return len(self._clean_records())

    @property
    def failure_note(self) -> str:
        """Failed runs as text, e.g. ``1 OOM, 1 timeout``; empty when every run succeeded."""
        failed = [(s, c) for s, c in sorted(self.statuses.items()) if s != "ok"]
        return ", ".join(f"{c} {FAILED_LABELS.get(s, s)}" for s, c in failed)

    @property
    def failures(self) -> list[dict[str, Any]]:
        """The failure sections of the failed runs (exception type, message, stderr tail)."""
        return [r.record["failure"] for r in self.runs if r.record["status"] != "ok" and r.record.get("failure")]

    @property
    def epoch_seconds(self) -> Stats | None:
        """Seconds per epoch over the successful runs (each run's own median over its epochs)."""
        return describe(self._values("timing", "epoch_seconds"))

    @property
    def images_per_second(self) -> Stats | None:
        """Steady-state training throughput."""
        return describe(self._values("timing", "images_per_second"))

    @property
    def compile_seconds(self) -> Stats | None:
        """Compile time: the first step minus the median steady step (cold compiler caches)."""
        return describe(self._values("timing", "compile_seconds"))

    @property
    def accuracy(self) -> Stats | None:
        """Final test accuracy (fraction 0..1)."""
        return describe(self._values("accuracy", "final_test_accuracy"))

    def memory(self, name: str) -> Stats | None:
        """One memory figure (bytes) such as ``allocator_peak_bytes``."""
        return describe(self._values("memory", name))

    @property
    def mfu(self) -> Stats | None:
        """Model FLOPs utilisation where the device peak was known."""
        return describe(
            [rec["mfu"]["value"] for rec in self._ok() if rec.get("mfu") and rec["mfu"]["value"] is not None]
        )

    def curve(self, metric: str) -> list[tuple[int, Stats]]:
        """Per-epoch statistics of ``metric`` (e.g. ``test_accuracy``) over the counted runs."""
        by_epoch: dict[int, list[float]] = defaultdict(list)
        for rec in self._ok():
            for row in rec["accuracy"]["epochs"]:
                if row.get(metric) is not None:
                    by_epoch[row["epoch"]].append(row[metric])
        return [(epoch, describe(vals)) for epoch, vals in sorted(by_epoch.items())]

    def time_to_accuracy(self, target: float) -> tuple[Stats | None, int]:
        """(Seconds to reach ``target`` over the counted runs that reached it, number of counted runs)."""
        counted = self._ok()
        return describe([time_to_accuracy(rec, target) for rec in counted]), len(counted)


def summarise(runs: list[Loaded]) -> list[Summary]:
    """One Summary per configuration, sorted by machine, setting, framework order, mode and batch size."""
    groups: dict[ConfigKey, Summary] = {}
    for item in runs:
        rec = item.record
        key = ConfigKey(
            item.machine_id,
            _setting_of(rec),
            rec["framework"]["name"],
            rec["framework"]["mode"],
            rec["config"]["batch_size"],
        )
        groups.setdefault(key, Summary(key=key)).runs.append(item)
    return sorted(
        groups.values(),
        key=lambda s: (
            s.key.machine_id,
            s.key.setting,
            FRAMEWORKS.index(s.key.framework),
            MODES.index(s.key.mode),
            s.key.batch_size,
        ),
    )


@dataclass
class Table:
    """One results table: one machine, one setting; rows are batch sizes, columns framework × mode."""

    machine_id: str
    setting: Setting
    summaries: list[Summary]

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(framework, mode) pairs present, compiled before eager, in framework order."""
        present = {(s.key.framework, s.key.mode) for s in self.summaries}
        return [(f, m) for m in MODES for f in FRAMEWORKS if (f, m) in present]

    @property
    def batch_sizes(self) -> list[int]:
        """Batch sizes present, ascending."""
        return sorted({s.key.batch_size for s in self.summaries})

    def cell(self, framework: str, mode: str, batch_size: int) -> Summary | None:
        """The summary at one row and column, or None when that configuration was not run."""
        for s in self.summaries:
            if (s.key.framework, s.key.mode, s.key.batch_size) == (framework, mode, batch_size):
                return s
        return None

    def speedup(self, framework: str, mode: str) -> tuple[float, int, int] | None:
        """(mean epoch time at the smallest batch ÷ at the largest, smallest, largest), over the batch
        sizes of this column that have a successful run; None with fewer than two of them."""
        ran = [(bs, s) for bs in self.batch_sizes if (s := self.cell(framework, mode, bs)) and s.epoch_seconds]
        if len(ran) < 2:
            return None
        (first_bs, first), (last_bs, last) = ran[0], ran[-1]
        return first.epoch_seconds.mean / last.epoch_seconds.mean, first_bs, last_bs

    @property
    def runs(self) -> list[Loaded]:
        """Every run of the table."""
        return [r for s in self.summaries for r in s.runs]


def tables(summaries: list[Summary]) -> list[Table]:
    """Split summaries into per-machine, per-setting tables."""
    grouped: dict[tuple[str, Setting], list[Summary]] = defaultdict(list)
    for s in summaries:
        grouped[(s.key.machine_id, s.key.setting)].append(s)
    return [Table(machine, setting, items) for (machine, setting), items in sorted(grouped.items())]


@dataclass(frozen=True)
class Machine:
    """Hardware and software provenance of one machine, taken from its newest successful run."""

    machine_id: str
    hardware: dict[str, Any] | None
    software: dict[str, Any] | None
    n_runs: int
    n_failed: int
    first: str
    last: str

    @property
    def is_gpu(self) -> bool:
        """True when the runs used a GPU."""
        return bool(self.hardware and self.hardware["device_kind"] == "gpu")

    @property
    def device(self) -> str:
        """The device's name, or the machine id when no run recorded hardware."""
        return self.hardware["device_name"] if self.hardware else self.machine_id


def machines(runs: list[Loaded]) -> list[Machine]:
    """One Machine per machine id seen in the run records."""
    by_machine: dict[str, list[Loaded]] = defaultdict(list)
    for item in runs:
        by_machine[item.machine_id].append(item)
    found = []
    for machine_id, items in sorted(by_machine.items()):
        with_hw = sorted((i.record for i in items if i.record.get("hardware")), key=lambda r: r["finished_at"])
        newest = with_hw[-1] if with_hw else None
        times = sorted(i.record["started_at"] for i in items)
        found.append(
            Machine(
                machine_id=machine_id,
                hardware=newest["hardware"] if newest else None,
                software=newest["software"] if newest else None,
                n_runs=len(items),
                n_failed=sum(1 for i in items if i.record["status"] != "ok"),
                first=times[0],
                last=max(i.record["finished_at"] for i in items),
            )
        )
    return found
