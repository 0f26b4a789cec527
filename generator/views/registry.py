"""The PyPI part of an ecosystem snapshot as the 4.3 and 6.3 pages show it: release cadence, support windows,
vulnerabilities, platforms, accelerator builds and install sizes, as tables and charts."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS, REGISTRY, label
from generator.i18n import N_, _, translate
from generator.records import ecosystem as eco
from generator.records.metrics import MIB
from generator.spacing import fill
from generator.views import text_format
from generator.views.charts import Chart, Series
from generator.views.markdown_table import Grid

DEVICE_WORDS = {"cpu": N_("CPU"), "gpu": N_("NVIDIA GPU")}
YES, NO = "✓", "✗"


def _platform_header() -> list[str]:
    return [translate(eco.PLATFORM_WORDS[p]) for p in eco.PLATFORMS]


def frameworks_in(snapshot: dict[str, Any]) -> list[str]:
    """The registry's frameworks the snapshot's PyPI part covers, in display order."""
    present = {eco.framework_of(m) for m in eco.registry_packages(snapshot).values()}
    return [fw for fw in FRAMEWORKS if fw in present]


def _missing(metrics: dict[str, Any], name: str) -> str:
    """A figure not collected: a dash, the reason beside it kept for the page's notes."""
    metric = metrics.get(name)
    return "—" if metric is None or metric["status"] != "ok" else text_format.cell(metric["value"])


def cadence_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per package: its current release, its final releases per year, the median days between its minor
    releases and its yanked releases."""
    years = eco.release_years(snapshot)
    rows = []
    for package, metrics in eco.registry_packages(snapshot).items():
        version = eco.ok_value(metrics, "current_version")
        released = eco.ok_value(metrics, "current_release_date")
        current = f"{version} ({released})" if version and released else _missing(metrics, "current_version")
        gap = eco.ok_value(metrics, "median_days_between_minor_releases")
        rows.append(
            [
                f"`{package}`",
                current,
                *(_missing(metrics, f"releases_{y}") for y in years),
                "—" if gap is None else f"{gap:.0f}",
                _missing(metrics, "yanked_releases"),
            ]
        )
    header = [
        _("package"),
        _("current release"),
        *(str(y) for y in years),
        _("median days between minor releases"),
        _("yanked releases"),
    ]
    return Grid(header, rows, (0, 1))


def lag_cell(metrics: dict[str, Any], minor: int) -> str:
    """Days from a CPython release to the package's first wheel for it; its date where the release date is not
    recorded; "none yet" or a dash (with the reason in the notes) where there is no figure."""
    lag = eco.ok_value(metrics, f"python_lag_days_cp3{minor}")
    if lag is not None:
        return fill(_("{days:+d} d"), days=lag)
    first = eco.ok_value(metrics, f"first_wheel_cp3{minor}")
    if first is not None:
        return fill(_("first wheel {date}"), date=first)
    reason = (metrics.get(f"first_wheel_cp3{minor}") or {}).get("reason") or ""
    return _("none yet") if reason.startswith("no release has a wheel") else "—"


def support_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per package with CPython-specific wheels: the oldest Python its current release serves and, per CPython
    release, the days until its first wheel (negative: before the release)."""
    minors = eco.python_minors(snapshot)
    rows = []
    for package, metrics in eco.registry_packages(snapshot).items():
        if eco.is_binary(metrics):
            rows.append(
                [f"`{package}`", _missing(metrics, "oldest_python"), *(lag_cell(metrics, minor) for minor in minors)]
            )
    return Grid([_("package"), _("oldest Python"), *(f"3.{m}" for m in minors)], rows, (0, 1))


def pure_packages(snapshot: dict[str, Any]) -> list[str]:
    """Packages whose wheels are pure Python (no support window: they install on any Python they allow)."""
    return [p for p, m in eco.registry_packages(snapshot).items() if not eco.is_binary(m)]


def vulnerability_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per package: its current release and the vulnerabilities the API lists for it."""
    rows = [
        [
            f"`{package}`",
            _missing(metrics, "current_version"),
            _missing(metrics, "vulnerabilities"),
            _("none")
            if eco.ok_value(metrics, "vulnerability_ids") == "none"
            else _missing(metrics, "vulnerability_ids"),
        ]
        for package, metrics in eco.registry_packages(snapshot).items()
    ]
    return Grid([_("package"), _("current release"), _("known vulnerabilities"), _("ids (fixed in)")], rows, (0, 1, 3))


def platform_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per framework with a package built per platform: whether every package its install needs has a wheel
    for the platform (a framework of pure-Python packages alone, as torchax, runs where the frameworks under it do)."""
    rows = []
    for fw in frameworks_in(snapshot):
        if not eco.binary_packages(snapshot, fw):
            continue
        coverage = eco.platform_coverage(snapshot, fw)
        packages = ", ".join(f"`{p}`" for p in eco.framework_packages(snapshot, fw))
        cells = ["—"] * len(eco.PLATFORMS) if coverage is None else [YES if coverage[p] else NO for p in eco.PLATFORMS]
        rows.append([label(fw), packages, *cells])
    return Grid([_("framework"), _("packages"), *_platform_header()], rows, (0, 1))


def package_platform_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per package: its current release's wheels that install on each platform."""
    rows = [
        [f"`{package}`", *(_missing(metrics, f"wheels_{p}") for p in eco.PLATFORMS)]
        for package, metrics in eco.registry_packages(snapshot).items()
    ]
    return Grid([_("package"), *_platform_header()], rows)


def accelerator_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per accelerator build (a TPU package; a framework's CUDA wheels together): on how many of its packages
    each platform has a wheel."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for subject, metrics in snapshot["sources"].get("pypi_accelerators", {}).items():
        first = next(iter(metrics.values()))["method"]
        name = subject if first.get("accelerator") == "TPU" else label(first.get("framework", ""))
        groups.setdefault((name, first.get("accelerator", "")), []).append(metrics)
    rows = []
    for (name, accelerator), members in groups.items():
        cells = []
        for p in eco.PLATFORMS:
            counts = [eco.ok_value(m, f"wheels_{p}") for m in members]
            have = sum(1 for c in counts if c)
            cells.append(
                "—" if None in counts else YES if have == len(members) else NO if not have else f"{have}/{len(members)}"
            )
        packages = fill(_("{n} packages"), n=len(members)) if len(members) > 1 else eco.ok_value(members[0], "version")
        rows.append([f"{name} ({accelerator})", text_format.cell(packages), *cells])
    return Grid([_("accelerator build"), _("packages or version"), *_platform_header()], rows, (0, 1))


def _mib(value: int | None) -> str:
    return "—" if value is None else f"{value / MIB:,.0f}"


def stack_frameworks(snapshot: dict[str, Any]) -> list[str]:
    """The frameworks with a resolved stack, in display order."""
    stacks = snapshot["sources"].get("pypi_stacks", {})
    return [fw for fw in FRAMEWORKS if any(subject.split(" ")[0] == fw for subject in stacks)]


def stack_grid(snapshot: dict[str, Any]) -> Grid:
    """A row per framework: distributions and download size of its CPU and GPU stacks, and the CPU stack's installed
    size, in MiB."""
    rows = []
    for fw in stack_frameworks(snapshot):
        cells = [label(fw)]
        for device in ("cpu", "gpu"):
            count = eco.stack_size(snapshot, fw, device, "distributions")
            cells += [
                "—" if count is None else str(count),
                _mib(eco.stack_size(snapshot, fw, device, "download_bytes")),
            ]
        cells.append(_mib(eco.stack_size(snapshot, fw, "cpu", "installed_bytes")))
        rows.append(cells)
    header = [
        _("framework"),
        _("CPU: distributions"),
        _("CPU: download (MiB)"),
        _("GPU: distributions"),
        _("GPU: download (MiB)"),
        _("CPU: installed here (MiB)"),
    ]
    return Grid(header, rows)


def stack_provenance(snapshot: dict[str, Any]) -> dict[str, Any]:
    """How the stacks were resolved and measured: the command per stack, the target, the caveats, the installed
    versions' Python."""
    commands, caveats, python = [], [], None
    for fw in stack_frameworks(snapshot):
        for device in ("cpu", "gpu"):
            method = eco.stack_method(snapshot, fw, device, "download_bytes")
            if method.get("command"):
                commands.append((label(fw), translate(DEVICE_WORDS[device]), method["command"]))
            if method.get("caveat") and (label(fw), method["caveat"]) not in caveats:
                caveats.append((label(fw), method["caveat"]))
        python = python or eco.stack_method(snapshot, fw, "cpu", "installed_bytes").get("python_version")
    target = eco.stack_method(snapshot, stack_frameworks(snapshot)[0], "cpu", "download_bytes") if commands else {}
    return {
        "commands": commands,
        "caveats": caveats,
        "python": target.get("python_version"),
        "platform": target.get("platform"),
        "installed_python": python,
    }


def releases_chart(snapshot: dict[str, Any]) -> Chart:
    """Final releases per year of each framework's first package (``torch``, ``tensorflow``, ``jax``…)."""
    years = eco.release_years(snapshot)
    series = []
    for fw in frameworks_in(snapshot):
        package, metrics = next(iter(eco.framework_packages(snapshot, fw).items()))
        points = tuple(
            (years.index(y), v, 0.0) for y in years if (v := eco.ok_value(metrics, f"releases_{y}")) is not None
        )
        entry = REGISTRY[fw]
        series.append(Series(package, entry.colour, entry.marker, "-", points))
    return Chart(
        "version",
        _("year"),
        _("final releases on PyPI"),
        tuple(series),
        categories=tuple(map(str, years)),
        from_zero=True,
    )


def install_chart(snapshot: dict[str, Any]) -> Chart:
    """Each framework's stack size: CPU and GPU downloads, CPU installed, in MiB, a point per framework."""
    frameworks = stack_frameworks(snapshot)
    kinds = (
        (_("CPU stack, download"), "cpu", "download_bytes", "#0072B2", "o"),
        (_("NVIDIA GPU stack, download"), "gpu", "download_bytes", "#D55E00", "s"),
        (_("CPU stack, installed here"), "cpu", "installed_bytes", "#009E73", "^"),
    )
    series = []
    for k, (name, device, metric, colour, marker) in enumerate(kinds):
        shift = (k - 1) * 0.15  # side by side: PyTorch's CPU and GPU downloads are one figure
        points = tuple(
            (i + shift, v / MIB, 0.0)
            for i, fw in enumerate(frameworks)
            if (v := eco.stack_size(snapshot, fw, device, metric))
        )
        series.append(Series(name, colour, marker, "none", points))
    return Chart(
        "version",
        _("framework"),
        _("MiB"),
        tuple(series),
        categories=tuple(label(fw) for fw in frameworks),
        from_zero=True,
    )
