"""Group run records by machine and configuration and summarise repeats (mean, spread, 95 % interval).

A configuration's identity includes the framework's version (a table of two versions gives each its column).

Flagged runs (``generator.records.flags``) are shown, never judged; so is a configuration measured under an older
timing protocol than the newest one its machine holds for the same setting, or only by an older trainer than its
framework's newest there (``trainers``; superseded: shown as older), and a run of an older trainer than the
configuration's newest (``fwbench.pairing.newest_harness``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from fwbench.frameworks import TRAINING_MODES, label
from fwbench.harness_checks import HarnessCheck
from fwbench.judged import counts
from fwbench.pairing import newest_harness
from fwbench.run_figures import compile_measurable, time_to_accuracy, warm_cache
from fwbench.stats import Stats, describe
from generator.i18n import N_
from generator.message import Joined, Message
from generator.records.flags import OLDER, flags_of
from generator.records.identity import Column, ConfigKey, Setting, setting_of, version_key
from generator.records.load import Loaded
from generator.records.trainers import newest_trainers, older_trainer

#: a failed status -> how many runs ended so, in words
FAILED_LABELS = {"oom": N_("{count} OOM"), "error": N_("{count} error"), "timeout": N_("{count} timeout")}


def config_key(item: Loaded) -> ConfigKey:
    """The configuration a run record is a repeat of (``ConfigKey``)."""
    rec, fw = item.record, item.record["framework"]
    version, batch_size = fw["version"] or "unknown", rec["config"]["batch_size"]
    return ConfigKey(item.machine_id, setting_of(rec), fw["name"], version, fw["mode"], batch_size)


def _any_protocol(key: ConfigKey) -> tuple[str, Setting]:
    """The machine and setting of a configuration, whatever its timing protocol."""
    return key.machine_id, replace(key.setting, protocol=0)


@dataclass
class Summary:
    """All runs of one configuration and their statistics.

    The statistics come from the counted runs: the successful clean ones, or, where a configuration has
    none, its successful flagged ones (``flags``), so that they are still shown — marked, and never judged.
    """

    key: ConfigKey
    runs: list[Loaded] = field(default_factory=list)
    superseded: bool = False  # its machine holds the setting under a newer timing protocol, or a newer trainer

    @cached_property
    def _ok_records(self) -> list[dict[str, Any]]:
        return [r.record for r in self.runs if r.record["status"] == "ok"]

    @cached_property
    def counting(self) -> list[dict[str, Any]]:
        """The records that count (``fwbench.judged.counts``; none where superseded), of every trainer: what a
        verdict is given (``fwbench.pairing.compare``), which judges the newest trainer's and counts the others."""
        return [] if self.superseded else [rec for rec in self._ok_records if counts(rec)]

    @cached_property
    def judged(self) -> list[dict[str, Any]]:
        """The records that may enter a verdict: those that count, of the configuration's newest harness."""
        return newest_harness(self.counting)[0]

    @property
    def counted(self) -> list[dict[str, Any]]:
        """The records the statistics come from (see the class docstring)."""
        return self.judged or self._ok_records

    def _values(self, section: str, name: str) -> list[float]:
        return [rec[section][name] for rec in self.counted if rec.get(section) and rec[section].get(name) is not None]

    @property
    def judgeable(self) -> bool:
        """True when clean successful runs exist: only then may the figures enter a verdict, lead or choice."""
        return bool(self.judged)

    @property
    def flags(self) -> list[str]:
        """The counted runs' flags (none when clean; a superseded configuration's are older): why never judged."""
        if self.judgeable:
            return []
        return sorted({f for rec in self.counted for f in flags_of(rec)} | ({OLDER} if self.superseded else set()))

    @property
    def flagged(self) -> Counter:
        """Flag -> how many successful runs carry it."""
        return Counter(f for rec in self._ok_records for f in flags_of(rec))

    @property
    def left_out(self) -> Counter:
        """Flag -> how many successful flagged runs the figures leave out because clean runs exist."""
        return self.flagged if self.judgeable else Counter()

    @property
    def images_per_epoch(self) -> int:
        """Images actually trained per epoch (after drop-last) at this batch size."""
        return self.runs[0].record["config"]["images_per_epoch"]

    @property
    def test_images(self) -> int | None:
        """Images in the test set the accuracy was measured on."""
        return self.runs[0].record["config"].get("test_images")

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
        return len(self._ok_records)

    @property
    def n_clean(self) -> int:
        """Number of successful runs that may enter a verdict (neither busy nor older)."""
        return len(self.judged)

    @property
    def failure_note(self) -> Joined:
        """Failed runs, e.g. ``1 OOM, 1 timeout`` (language-neutral, worded where shown); no item when every run
        succeeded."""
        failed = [(s, c) for s, c in sorted(self.statuses.items()) if s != "ok"]
        return Joined(
            tuple(Message(FAILED_LABELS[s], {"count": c}) if s in FAILED_LABELS else f"{c} {s}" for s, c in failed)
        )

    @property
    def failures(self) -> list[dict[str, Any]]:
        """The failure sections of the failed runs (exception type, message, stderr tail)."""
        return [r.record["failure"] for r in self.runs if r.record["status"] != "ok" and r.record.get("failure")]

    @cached_property
    def epoch_seconds(self) -> Stats | None:
        """Seconds per epoch over the successful runs (each run's own median over its epochs)."""
        return describe(self._values("timing", "epoch_seconds"))

    @cached_property
    def article_epoch_seconds(self) -> Stats | None:
        """Seconds per epoch as the article defines an epoch (the mean epoch, compile inside the first), where every
        counted run recorded it (``timing.article_epoch_seconds``); None otherwise."""
        values = self._values("timing", "article_epoch_seconds")
        return describe(values) if values and len(values) == len(self.counted) else None

    @cached_property
    def images_per_second(self) -> Stats | None:
        """Steady-state training throughput of ResNet-18 (None for the GPT, which counts tokens)."""
        return describe(self._values("timing", "images_per_second"))

    @cached_property
    def tokens_per_second(self) -> Stats | None:
        """Steady-state training throughput of the GPT, in tokens (None for ResNet-18)."""
        return describe(self._values("timing", "tokens_per_second"))

    def cached(self, warm: bool) -> Summary:
        """The configuration's runs with warm (``warm``) or cold compiler caches, and its failed ones (which say
        neither): what a figure that includes compile work is read from, as a cold run compiles and a warm one loads
        what an earlier run compiled, so the two never pool. Counted as the class says: within the state."""
        runs = [r for r in self.runs if r.record["status"] != "ok" or warm_cache(r.record) == warm]
        return Summary(self.key, runs, self.superseded)

    def _compile_timings(self, warm: bool) -> list[dict[str, Any]]:
        """The timings holding a compile time of the counted runs with cold or warm caches (``cached``)."""
        return [rec["timing"] for rec in self.cached(warm).counted if rec["timing"].get("compile_seconds") is not None]

    def compile_below_noise(self, warm: bool = False) -> int:
        """How many counted runs' compile times were within their steps' own noise (``compile_measurable``): not
        measured, so left out of ``compile_seconds`` / ``warm_compile_seconds`` rather than averaged in as 0 s."""
        return sum(not compile_measurable(t) for t in self._compile_timings(warm))

    @cached_property
    def compile_seconds(self) -> Stats | None:
        """Compile time with cold compiler caches, the first run of a new model: the first step minus the same step
        run again (``fwbench.run_figures.compile_measurable``), over the runs where it stands above the step-time
        noise."""
        return describe([t["compile_seconds"] for t in self._compile_timings(False) if compile_measurable(t)])

    @cached_property
    def warm_compile_seconds(self) -> Stats | None:
        """Compile time with the caches an earlier run of the configuration left (every run after the first, which
        is what users live with), over the runs where it stands above the noise; None where no such run."""
        return describe([t["compile_seconds"] for t in self._compile_timings(True) if compile_measurable(t)])

    @cached_property
    def accuracy(self) -> Stats | None:
        """Final test accuracy (fraction 0..1)."""
        return describe(self._values("accuracy", "final_test_accuracy"))

    def memory(self, name: str) -> Stats | None:
        """One memory figure (bytes) such as ``allocator_peak_bytes``."""
        return describe(self._values("memory", name))

    @property
    def mfu(self) -> Stats | None:
        """Model FLOPs utilisation where the device peak was known."""
        return describe([(rec.get("mfu") or {}).get("value") for rec in self.counted])

    def curve(self, metric: str) -> list[tuple[int, Stats]]:
        """Per-epoch statistics of ``metric`` (e.g. ``test_accuracy``) over the counted runs."""
        by_epoch: dict[int, list[float]] = defaultdict(list)
        for rec in self.counted:
            for row in rec["accuracy"]["epochs"]:
                if row.get(metric) is not None:
                    by_epoch[row["epoch"]].append(row[metric])
        return [(epoch, describe(vals)) for epoch, vals in sorted(by_epoch.items())]

    def final(self, metric: str) -> Stats | None:
        """The last epoch's ``metric`` (``train_loss``, ``test_loss``…) over the counted runs."""
        return describe(
            [
                rec["accuracy"]["epochs"][-1].get(metric)
                for rec in self.counted
                if rec.get("accuracy") and rec["accuracy"]["epochs"]
            ]
        )

    def time_to_accuracy(self, target: float) -> tuple[Stats | None, int]:
        """(Seconds to reach ``target`` over the counted runs that reached it, number of counted runs)."""
        return describe([time_to_accuracy(rec, target) for rec in self.counted]), len(self.counted)


def rate_of(summary: Summary) -> Stats | None:
    """A configuration's throughput: images per second, or tokens per second for the GPT."""
    return summary.images_per_second or summary.tokens_per_second


def summarise(runs: list[Loaded]) -> list[Summary]:
    """One Summary per configuration, sorted by machine, setting, column order and batch size; those of an older
    timing protocol than the newest their machine holds for the same setting are marked superseded."""
    groups: dict[ConfigKey, Summary] = {}
    for item in runs:
        key = config_key(item)
        groups.setdefault(key, Summary(key=key)).runs.append(item)
    newest: dict[tuple[str, Setting], int] = {}
    for key in groups:
        newest[_any_protocol(key)] = max(newest.get(_any_protocol(key), 0), key.setting.protocol)
    trainers = newest_trainers(groups.values())
    for key, summary in groups.items():
        summary.superseded = key.setting.protocol < newest[_any_protocol(key)] or older_trainer(trainers, summary)
    return sorted(
        groups.values(), key=lambda s: (s.key.machine_id, s.key.setting, s.key.column.sort_key(), s.key.batch_size)
    )


@dataclass
class Table:
    """One results table: one machine, one setting; rows are batch sizes, columns framework × version × mode."""

    machine_id: str
    setting: Setting
    summaries: list[Summary]
    harness_checks: tuple[HarnessCheck, ...] = ()  # every machine's (``fwbench.harness_tolerance`` picks)

    @cached_property
    def _cells(self) -> dict[tuple[Column, int], Summary]:
        return {(s.key.column, s.key.batch_size): s for s in self.summaries}

    @cached_property
    def columns(self) -> list[Column]:
        """Every column present: framework order, then version, then mode."""
        return sorted({s.key.column for s in self.summaries}, key=Column.sort_key)

    @property
    def modes(self) -> list[str]:
        """The modes present, compiled first."""
        return [m for m in TRAINING_MODES if any(c.mode == m for c in self.columns)]

    def columns_in(self, mode: str) -> list[Column]:
        """The columns of one mode."""
        return [c for c in self.columns if c.mode == mode]

    def cached(self, warm: bool) -> Table:
        """This table as its runs with warm (``warm``) or cold compiler caches have it (``Summary.cached``), the
        configurations without such runs left out: what a figure that includes compile work is read from."""
        parts = [part for s in self.summaries if (part := s.cached(warm)).runs]
        return Table(self.machine_id, self.setting, parts, self.harness_checks)

    @cached_property
    def mixed_versions(self) -> set[str]:
        """Frameworks that appear at more than one version in this table."""
        seen = Counter(fw for fw, _ in {(c.framework, c.version) for c in self.columns})
        return {fw for fw, n in seen.items() if n > 1}

    def column_label(self, column: Column) -> str:
        """The framework's name, with its version where the table holds more than one version of it."""
        return (
            f"{label(column.framework)} {column.version}"
            if column.framework in self.mixed_versions
            else label(column.framework)
        )

    @property
    def batch_sizes(self) -> list[int]:
        """Batch sizes present, ascending."""
        return sorted({s.key.batch_size for s in self.summaries})

    def at(self, column: Column, batch_size: int) -> Summary | None:
        """The summary at one column and row, or None when that configuration was not run."""
        return self._cells.get((column, batch_size))

    def cell(self, framework: str, mode: str, batch_size: int, version: str | None = None) -> Summary | None:
        """The summary of ``framework`` in ``mode`` at one batch size: at ``version``, or at the newest version
        this table holds of it (None when not run)."""
        versions = sorted(
            {c.version for c in self.columns if c.framework == framework and c.mode == mode}, key=version_key
        )
        chosen = version if version is not None else (versions[-1] if versions else None)
        return self.at(Column(framework, chosen, mode), batch_size) if chosen else None

    def speedup(self, column: Column) -> tuple[float, int, int] | None:
        """(mean throughput at the largest batch ÷ at the smallest, smallest, largest), over the batch sizes of this
        column that have a successful run; None with fewer than two of them. Throughput, not seconds per epoch:
        an epoch's size may grow with the batch (a CPU's epochs do), and only the same work compares; where the
        epochs are equal it is the article's ratio of epoch times."""
        ran = [(bs, r) for bs in self.batch_sizes if (s := self.at(column, bs)) and (r := rate_of(s))]
        if len(ran) < 2:
            return None
        (first_bs, first), (last_bs, last) = ran[0], ran[-1]
        return last.mean / first.mean, first_bs, last_bs

    @property
    def runs(self) -> list[Loaded]:
        """Every run of the table."""
        return [r for s in self.summaries for r in s.runs]


def tables(summaries: list[Summary], harness_checks: tuple[HarnessCheck, ...] = ()) -> list[Table]:
    """Split summaries into per-machine, per-setting tables, each given the ``harness_checks`` its leads are set
    against (``fwbench.harness_tolerance``)."""
    grouped: dict[tuple[str, Setting], list[Summary]] = defaultdict(list)
    for s in summaries:
        grouped[(s.key.machine_id, s.key.setting)].append(s)
    order = sorted(grouped.items(), key=lambda item: (item[0][0], item[0][1].sort_key()))
    return [Table(machine, setting, items, tuple(harness_checks)) for (machine, setting), items in order]
