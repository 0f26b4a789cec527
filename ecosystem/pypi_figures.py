"""Figures a user choosing a framework asks of its PyPI releases: how often they come, how soon a new CPython gets
wheels, which platforms the current release installs on, and what is known to be vulnerable in it."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from datetime import date, datetime

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from ecosystem.pypi_api import File, Project

#: the platforms a user asks about -> the wheel platform tags that install there (``any`` installs everywhere)
PLATFORMS = {
    "linux_x86_64": re.compile(r"^(many|musl)?linux.*_x86_64$"),
    "linux_aarch64": re.compile(r"^(many|musl)?linux.*_aarch64$"),
    "macos_arm64": re.compile(r"^macosx_.*_(arm64|universal2)$"),
    "macos_x86_64": re.compile(r"^macosx_.*_(x86_64|intel|universal2?)$"),
    "windows": re.compile(r"^win_amd64$"),
}
_CPYTHON = re.compile(r"^cp3(\d+)$")


def final_release_dates(project: Project) -> dict[Version, datetime]:
    """Each final release (no pre-, dev- or yanked-only release) with files -> its first upload."""
    dates = {}
    for text, files in project.releases.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue  # a legacy version string ranks nowhere; it is not a release of the last five years
        if files and not version.is_prerelease and not all(f.yanked for f in files):
            dates[version] = min(f.uploaded for f in files)
    return dates


def earliest_upload(project: Project) -> datetime | None:
    """The oldest file PyPI still holds for the project: a project may delete old releases (jaxlib has), and nothing
    before this can be counted."""
    return min((f.uploaded for files in project.releases.values() for f in files), default=None)


def releases_per_year(dates: dict[Version, datetime], years: range) -> dict[int, int]:
    """Final releases first uploaded in each year of ``years``."""
    return {year: sum(d.year == year for d in dates.values()) for year in years}


def minor_releases(dates: dict[Version, datetime], since: datetime) -> list[tuple[Version, datetime]]:
    """The first final release of each major.minor line (X.Y.0, or whatever came first), oldest first, from
    ``since`` on."""
    first: dict[tuple[int, int], tuple[Version, datetime]] = {}
    for version, uploaded in sorted(dates.items(), key=lambda item: item[1]):
        first.setdefault((version.major, version.minor), (version, uploaded))
    return [entry for entry in sorted(first.values(), key=lambda e: e[1]) if entry[1] >= since]


def median_gap_days(releases: list[tuple[Version, datetime]]) -> float | None:
    """Median days between consecutive releases of the list (None for fewer than two)."""
    gaps = [(b - a).total_seconds() / 86400 for (_, a), (_, b) in zip(releases, releases[1:], strict=False)]
    return round(statistics.median(gaps), 1) if gaps else None


def yanked_releases(project: Project) -> list[str]:
    """Releases whose every file is yanked."""
    return sorted((v for v, files in project.releases.items() if files and all(f.yanked for f in files)), key=str)


@dataclass(frozen=True)
class WheelTags:
    """What a wheel file says it installs on."""

    pure: bool  # ``none``-ABI ``any`` wheel: every Python and platform its requires_python allows
    cpython: frozenset[int]  # CPython 3 minors built for exactly (cp312-cp312); free-threaded builds left out
    abi3_from: int | None  # the oldest CPython 3 minor of a stable-ABI (abi3) wheel, which serves every later one
    platforms: frozenset[str]


def wheel_tags(filename: str) -> WheelTags | None:
    """The tags of a wheel file name, None for an sdist or a name that is no wheel's."""
    if not filename.endswith(".whl"):
        return None
    try:
        tags = parse_wheel_filename(filename)[3]
    except InvalidWheelFilename:
        return None
    cpython, abi3 = set(), []
    for tag in tags:
        minor = _CPYTHON.match(tag.interpreter)
        if minor and tag.abi == tag.interpreter:
            cpython.add(int(minor[1]))
        elif minor and tag.abi == "abi3":
            abi3.append(int(minor[1]))
    pure = any(tag.abi == "none" and tag.platform == "any" for tag in tags)
    return WheelTags(pure, frozenset(cpython), min(abi3, default=None), frozenset(t.platform for t in tags))


def serves_python(tags: WheelTags, minor: int) -> bool:
    """Whether a CPython-specific wheel installs on CPython 3.``minor``."""
    return minor in tags.cpython or (tags.abi3_from is not None and tags.abi3_from <= minor)


def is_pure(project: Project) -> bool:
    """Whether the current release ships only pure-Python wheels (no CPython-specific build)."""
    tags = [t for f in project.releases.get(project.version, ()) if (t := wheel_tags(f.filename))]
    return bool(tags) and all(t.pure for t in tags)


def first_wheel(project: Project, minor: int) -> datetime | None:
    """The first upload of a wheel built for CPython 3.``minor``, over every release (yanked files too: they were
    installable when uploaded)."""
    return min(
        (
            f.uploaded
            for files in project.releases.values()
            for f in files
            if (tags := wheel_tags(f.filename)) and serves_python(tags, minor)
        ),
        default=None,
    )


def oldest_python(files: tuple[File, ...]) -> int | None:
    """The oldest CPython 3 minor a release's CPython-specific wheels serve."""
    minors = [m for f in files if (t := wheel_tags(f.filename)) for m in (*t.cpython, t.abi3_from) if m is not None]
    return min(minors, default=None)


def platform_wheels(files: tuple[File, ...]) -> dict[str, int]:
    """Per platform of PLATFORMS, the release's wheels that install there (a pure-Python wheel on every one)."""
    counts = dict.fromkeys(PLATFORMS, 0)
    for f in files:
        tags = wheel_tags(f.filename)
        if tags is None or f.yanked:
            continue
        for name, pattern in PLATFORMS.items():
            if tags.pure or any(pattern.match(p) for p in tags.platforms):
                counts[name] += 1
    return counts


def days_after(day: date, moment: datetime) -> int:
    """Whole days from ``day`` to ``moment`` (negative: before it)."""
    return (moment.date() - day).days
