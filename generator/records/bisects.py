"""Release bisect reports (``results/bisect/<machine>/<framework>-<metric>-bs<N>.json``, ``fwbench.bisect/1``):
each measured release's samples, what the search concluded, and the report a maintainer upstream can read.

Every figure shown is computed from the report's samples (each one a run record's value); the report's own
``result`` gives only the releases either side of the drop and its one-sentence message.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from fwbench.frameworks import REGISTRY, label
from fwbench.stats import Stats, describe
from generator.i18n import N_, _, translate
from generator.records.identity import first_step
from generator.records.load import Loaded
from generator.spacing import fill

#: a metric's unit where the report's numbers are shown
UNITS = {"images_per_second": "img/s", "compile_seconds": "s", "epoch_seconds": "s"}
#: a metric's name in a reader's words (translated where shown; the first step's by its mode, ``first_step``); any
#: other is shown as the report names it
METRIC_WORDS = {"images_per_second": N_("images per second"), "epoch_seconds": N_("seconds per epoch")}


def companions(framework: str, packages: dict[str, str | None]) -> tuple[str, ...]:
    """``jaxlib 0.4.26``, ``flax 0.8.4``, …: the companion packages a run had, in a fixed order; none when none
    (a page lists them in its language, the upstream report in English)."""
    names = REGISTRY[framework].companions if framework in REGISTRY else ()
    return tuple(f"{name} {packages[name]}" for name in names if packages.get(name))


@dataclass(frozen=True)
class Release:
    """One release's samples in a bisect: the successful values, the failures' messages and the packages."""

    release: str
    samples: list[dict[str, Any]]

    @cached_property
    def stats(self) -> Stats | None:
        """The successful samples' statistics (the median is what the bisect compares)."""
        return describe([s["value"] for s in self.samples if s["status"] == "ok" and s["value"] is not None])

    @property
    def failures(self) -> list[str]:
        """Why each failed sample failed (its status when it gives no message)."""
        return [s.get("message") or s["status"] for s in self.samples if s["status"] != "ok" or s["value"] is None]

    @property
    def packages(self) -> dict[str, str | None]:
        """The packages of the first sample (a release's samples share one environment)."""
        return self.samples[0]["packages"] if self.samples else {}


@dataclass(frozen=True)
class Bisect:
    """One bisect report as the pages read it."""

    item: Loaded

    @property
    def report(self) -> dict[str, Any]:
        """The report as its command wrote it."""
        return self.item.record

    @property
    def machine_id(self) -> str:
        """The machine every sample ran on."""
        return self.report["machine_id"]

    @property
    def framework(self) -> str:
        """The framework whose releases were searched."""
        return self.report["framework"]

    @property
    def result(self) -> dict[str, Any]:
        """What the search concluded: status, message, last_good, first_bad, skipped…"""
        return self.report["result"]

    @property
    def unit(self) -> str:
        """The metric's unit (empty when unknown)."""
        return UNITS.get(self.report["metric"], "")

    @cached_property
    def releases(self) -> list[Release]:
        """The measured releases, oldest first (the report's order)."""
        samples = self.report["samples"]
        ordered = [r for r in self.report["releases"] if r in samples] + sorted(
            set(samples) - set(self.report["releases"])
        )
        return [Release(r, samples[r]) for r in ordered]

    def release(self, name: str | None) -> Release | None:
        """The measured release ``name``, or None."""
        return next((r for r in self.releases if r.release == name), None)

    @property
    def variables(self) -> str:
        """The workaround's variables, ``NAME=value …``; empty when the report names none."""
        return " ".join(f"{name}={value}" for name, value in sorted((self.report.get("workaround") or {}).items()))

    @cached_property
    def with_workaround(self) -> Release | None:
        """The first bad release measured again with the workaround set, or None when it was not."""
        samples = self.report.get("workaround_samples") or []
        if not (samples and self.variables and self.result.get("first_bad")):
            return None
        return Release(f"{self.result['first_bad']} + {self.variables}", samples)

    @property
    def found(self) -> tuple[Release, Release] | None:
        """(last good, first bad) when the search found a drop and both releases have successful samples."""
        good, bad = self.release(self.result.get("last_good")), self.release(self.result.get("first_bad"))
        if self.result["status"] != "found" or not (good and bad and good.stats and bad.stats):
            return None
        return good, bad

    @property
    def metric_words(self) -> str:
        """The metric in the reader's language: ``images per second``; an eager bisect's first step is no compile
        time."""
        metric = self.report["metric"]
        if metric == "compile_seconds":
            return translate(first_step(self.report["config"]["mode"]).name)
        return translate(METRIC_WORDS[metric]) if metric in METRIC_WORDS else metric

    def conclusion(self) -> str:
        """What the search concluded, worded from the report's fields in the reader's language (the report's own
        ``message`` is the bisect tool's English, and is shown only for a status this does not know)."""
        result, releases = self.result, self.report.get("releases") or []
        status, good, bad = result["status"], result.get("last_good"), result.get("first_bad")
        if self.found is not None:
            good_release, bad_release = self.found
            return fill(
                _(
                    "{bad} is the first release worse than its predecessor {good} by {drop:.0%} (medians of "
                    "{n_bad} and {n_good} runs, no overlap)"
                ),
                bad=bad,
                good=good,
                drop=result["drop"],
                n_bad=bad_release.stats.n,
                n_good=good_release.stats.n,
            )
        if status == "no_drop" and releases:
            return fill(
                _("{newest} is not worse than {oldest} by more than {threshold:.0%} beyond the noise"),
                newest=releases[-1],
                oldest=releases[0],
                threshold=self.report["threshold"],
            )
        if status == "inconclusive" and good and bad:
            return fill(
                _(
                    "the halving ended between {good} and {bad}, but with {repeats} runs each the step there is not "
                    "beyond the noise: the drop may be spread over several releases"
                ),
                good=good,
                bad=bad,
                repeats=self.report["repeats"],
            )
        if status == "inconclusive":
            return _("the oldest or the newest release could not be measured")
        return result.get("message") or status

    def figure(self, stats: Stats, english: bool = False) -> str:
        """A release's median with its unit, in the language being written (``30.1 img/s``, ``30.1 张/秒``), or in
        English for the upstream report."""
        unit = self.unit if english else translate(self.unit)  # "s" has no translation: it stays
        return f"{stats.median:,.1f} {unit}".rstrip()

    def drop_text(self) -> str | None:
        """``first slow release 0.4.36 (last fast 0.4.35): 30.1 img/s → 10.2 img/s (n=3, 3)``, or None."""
        if self.found is None:
            return None
        good, bad = self.found
        text = fill(
            _("first slow release {bad} (last fast {good}): {before} → {after} (n={n_good}, {n_bad})"),
            bad=bad.release,
            good=good.release,
            before=self.figure(good.stats),
            after=self.figure(bad.stats),
            n_good=good.stats.n,
            n_bad=bad.stats.n,
        )
        fixed = self.with_workaround
        if fixed and fixed.stats:
            text += fill(
                _("; {release} with {variables}: {figure} (n={n})"),
                release=bad.release,
                variables=self.variables,
                figure=self.figure(fixed.stats),
                n=fixed.stats.n,
            )
        return text

    def upstream_text(self) -> str:
        """The report to send upstream, in English (the issue trackers' language) in every language of the site:
        what dropped and where, each release's median with its n and packages, the commands that reproduce it,
        the workaround and the machine."""
        report, config, hardware = self.report, self.report["config"], self.report["hardware"]
        framework, metric = self.framework, report["metric"]
        lines = []
        if self.found:
            good, bad = self.found
            lines.append(f"{label(framework)}: {metric} dropped between {framework} {good.release} and {bad.release}")
        else:
            lines.append(f"{label(framework)}: {metric} across releases ({self.result['status']})")
        lines += [
            "",
            f"What: the training step of a CIFAR-10-shaped ResNet-18 (fwbench), {config['mode']} mode, "
            f"batch {config['batch_size']}, {config['dataset']} data, {config['train_images']} training images, "
            f"{config['epochs']} epoch(s), on the {config['device']} device.",
            f"Result: {self.result['message']}",
            "",
            f"{metric} per release (median of the successful runs, n runs, packages):",
        ]
        shown = [*(self.found or self.releases), *([self.with_workaround] if self.with_workaround else [])]
        for rel in shown:
            figure = self.figure(rel.stats, english=True) if rel.stats else "no successful run"
            packages = ", ".join(companions(framework, rel.packages))
            lines.append(
                f"  {framework} {rel.release}: {figure} (n={rel.stats.n if rel.stats else 0})"
                + (f"; {packages}" if packages else "")
            )
        if self.variables:
            lines += ["", f"Workaround: {self.variables}"]
        lines += ["", f"Machine: {machine_text(hardware)} (fwbench machine id {self.machine_id})"]
        lines += ["", "Reproduce:", *(f"  {line}" for line in report["reproduce"].splitlines() if line.strip())]
        lines += ["", f"Measured {report['started_at']} to {report['finished_at']} with: {' '.join(report['command'])}"]
        return "\n".join(lines)


def machine_text(hardware: dict[str, Any]) -> str:
    """``AMD EPYC 7B13, 2 threads, Linux kernel 6.1.0``: the machine as a report names it (English)."""
    parts = [hardware.get("device_name") or hardware.get("cpu_model") or "unknown device"]
    if hardware.get("device_kind") == "gpu" and hardware.get("cpu_model"):
        parts.append(f"host CPU {hardware['cpu_model']}")
    if hardware.get("cpu_threads"):
        parts.append(f"{hardware['cpu_threads']} threads")
    kernel = (hardware.get("fingerprint") or {}).get("kernel")
    if kernel:
        parts.append(f"Linux kernel {kernel}")
    return ", ".join(parts)


def reports(items: list[Loaded]) -> list[Bisect]:
    """The loaded reports, by machine, framework, metric and batch size."""
    found = [Bisect(item) for item in items]
    return sorted(
        found, key=lambda b: (b.machine_id, b.framework, b.report["metric"], b.report["config"]["batch_size"])
    )


def matching(found: list[Bisect], framework: str, metric: str, batch_size: int, device_kind: str) -> list[Bisect]:
    """The reports that searched ``framework``'s releases for a drop of ``metric`` at ``batch_size`` on a device
    of ``device_kind`` (a platform issue's ``bisect`` field names the first three)."""
    return [
        b
        for b in found
        if b.framework == framework
        and b.report["metric"] == metric
        and b.report["config"]["batch_size"] == batch_size
        and b.report["hardware"].get("device_kind") == device_kind
    ]
