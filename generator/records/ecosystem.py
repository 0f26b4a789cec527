"""The ecosystem snapshots' figures: a figure's collection status in words, a metric's history across snapshots."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from generator.i18n import N_
from generator.message import Message, Text
from generator.records.load import Loaded

#: a figure's collection status -> in words (a figure that is "ok" shows its value)
STATUS_WORDS = {"not_collected": N_("not collected"), "failed": N_("failed")}


def status_words(status: str) -> Text:
    """A figure's collection status, language-neutral (worded where shown)."""
    return Message(STATUS_WORDS[status]) if status in STATUS_WORDS else status.replace("_", " ")


def history(snapshots: list[Loaded], source: str, metric: str) -> dict[str, list[tuple[str, float]]]:
    """Subject -> [(snapshot date, value)] for one numeric metric, across all snapshots that have it."""
    series: dict[str, dict[str, float]] = defaultdict(dict)
    for snap in snapshots:
        for subject, metrics in snap.record["sources"].get(source, {}).items():
            m = metrics.get(metric)
            if m and m["status"] == "ok" and isinstance(m["value"], int | float):
                series[subject][snap.record["date"]] = m["value"]
    return {s: sorted(points.items()) for s, points in series.items() if len(points) >= 2}


#: the platforms the PyPI figures cover, in the snapshot's order (``wheels_<platform>``)
PLATFORMS = ("linux_x86_64", "linux_aarch64", "macos_arm64", "macos_x86_64", "windows")
#: each platform in words
PLATFORM_WORDS = {
    "linux_x86_64": N_("Linux x86-64"),
    "linux_aarch64": N_("Linux aarch64"),
    "macos_arm64": N_("macOS arm64"),
    "macos_x86_64": N_("macOS x86-64"),
    "windows": N_("Windows x86-64"),
}
_PYTHON_METRIC = re.compile(r"^python_lag_days_cp3(\d+)$")
_YEAR_METRIC = re.compile(r"^releases_(\d{4})$")


def ok_value(metrics: dict[str, Any], name: str) -> Any:
    """A collected metric's value, None when it is missing or was not collected."""
    metric = metrics.get(name)
    return metric["value"] if metric and metric["status"] == "ok" else None


def framework_of(metrics: dict[str, Any]) -> str | None:
    """The framework a subject's metrics belong to (each metric's method names it)."""
    return next((m["method"].get("framework") for m in metrics.values() if m["method"].get("framework")), None)


def registry_packages(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Package -> its metrics, from the snapshot's PyPI part (empty without one)."""
    return snapshot["sources"].get("pypi", {})


def _numbers_in_names(snapshot: dict[str, Any], pattern: re.Pattern[str]) -> list[int]:
    """The numbers that the names of the PyPI part's metrics matching ``pattern`` carry, smallest first."""
    names = {name for metrics in registry_packages(snapshot).values() for name in metrics}
    return sorted({int(m[1]) for name in names if (m := pattern.match(name))})


def release_years(snapshot: dict[str, Any]) -> list[int]:
    """The years the release counts cover, oldest first."""
    return _numbers_in_names(snapshot, _YEAR_METRIC)


def python_minors(snapshot: dict[str, Any]) -> list[int]:
    """The CPython 3 minors the support windows cover, oldest first."""
    return _numbers_in_names(snapshot, _PYTHON_METRIC)


def framework_packages(snapshot: dict[str, Any], framework: str) -> dict[str, dict[str, Any]]:
    """A framework's packages an install needs (builds installed instead of another one left out)."""
    return {
        package: metrics
        for package, metrics in registry_packages(snapshot).items()
        if framework_of(metrics) == framework and not any(m["method"].get("alternative_to") for m in metrics.values())
    }


def is_binary(metrics: dict[str, Any]) -> bool:
    """Whether a package ships CPython-specific wheels (its first-wheel figures are not skipped as pure Python)."""
    return not all(
        (m.get("reason") or "").startswith("pure-Python") for n, m in metrics.items() if n.startswith("first_wheel_")
    )


def binary_packages(snapshot: dict[str, Any], framework: str) -> dict[str, dict[str, Any]]:
    """The framework's packages with CPython-specific wheels (the ones a new Python waits for)."""
    return {p: m for p, m in framework_packages(snapshot, framework).items() if is_binary(m)}


def python_lag(snapshot: dict[str, Any], framework: str, minor: int) -> int | None:
    """Days from CPython 3.``minor``'s release until every binary package of the framework had a wheel for it (None
    when any of them has no figure)."""
    lags = [ok_value(m, f"python_lag_days_cp3{minor}") for m in binary_packages(snapshot, framework).values()]
    return max(lags) if lags and None not in lags else None


def platform_coverage(snapshot: dict[str, Any], framework: str) -> dict[str, bool] | None:
    """Per platform, whether every package the framework's install needs has a wheel there in its current release
    (None when a count is missing)."""
    packages = framework_packages(snapshot, framework)
    counts = [[ok_value(m, f"wheels_{p}") for m in packages.values()] for p in PLATFORMS]
    if not packages or any(c is None for row in counts for c in row):
        return None
    return {p: all(c > 0 for c in row) for p, row in zip(PLATFORMS, counts, strict=True)}


def stack_size(snapshot: dict[str, Any], framework: str, device: str, name: str) -> int | None:
    """A stack's ``download_bytes``, ``installed_bytes`` or ``distributions`` (None when not collected)."""
    return ok_value(snapshot["sources"].get("pypi_stacks", {}).get(f"{framework} {device}", {}), name)


def stack_method(snapshot: dict[str, Any], framework: str, device: str, name: str) -> dict[str, Any]:
    """How a stack's figure was made (empty when it is missing)."""
    metric = snapshot["sources"].get("pypi_stacks", {}).get(f"{framework} {device}", {}).get(name)
    return metric["method"] if metric else {}
