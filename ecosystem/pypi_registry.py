"""The PyPI source: each framework's distributions, their accelerator builds and their whole stacks, from PyPI's JSON
API (https://docs.pypi.org/api/json/) and uv's resolution. Requests run concurrently, each answer asked once.

It records three parts of a snapshot: ``pypi`` (a framework's own distributions: cadence, support windows,
platforms, vulnerabilities), ``pypi_accelerators`` (the accelerator builds and the platforms they have wheels for)
and ``pypi_stacks`` (download and installed size of each framework's CPU and GPU stack).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from platform import python_version
from typing import Any

from ecosystem import cpython, pypi_figures, stacks
from ecosystem.metric import SourceMetrics
from ecosystem.pypi_api import DOCS, Project, PyPIClient, project_url
from ecosystem.subjects import ALTERNATIVE_BUILDS, CUDA_PREFIXES, REGISTRY_PACKAGES, STACK_CAVEATS, STACKS, TPU_PACKAGES

PARTS = ("pypi", "pypi_accelerators", "pypi_stacks")
YEARS = 5
WORKERS = 16


def progress_steps(frameworks: tuple[str, ...]) -> int:
    """One step per framework distribution and per stack."""
    return sum(len(REGISTRY_PACKAGES.get(fw, ())) + len(STACKS.get(fw, {})) for fw in frameworks)


@dataclass
class Fetched:
    """The answers a collection asks for, as futures: every request runs on the pool while steps read them."""

    pool: ThreadPoolExecutor
    client: PyPIClient
    projects: dict[str, Future]
    stacks: dict[tuple[str, str], Future]

    def files(self, name: str, version: str) -> Future:
        """One release's files, asked on the pool."""
        return self.pool.submit(self.client.release_files, name, version)


def _stack_method(framework: str, device: str) -> dict[str, Any]:
    requirements = STACKS[framework][device]
    return {
        "endpoint": f"uv pip compile, then {project_url('<name>')} (releases.<version>)",
        "docs": DOCS,
        "framework": framework,
        "device": device,
        "requirements": list(requirements),
        "command": f"printf '%s\\n' {shlex.join(requirements)} | uv {shlex.join(stacks.resolve_command())}",
        "python_version": stacks.PYTHON_VERSION,
        "platform": stacks.PYTHON_PLATFORM,
        **({"caveat": STACK_CAVEATS[framework]} if framework in STACK_CAVEATS else {}),
    }


def collect_packages(
    fetched: Fetched,
    frameworks: tuple[str, ...],
    now: datetime,
    metrics: SourceMetrics,
    progress: Callable[[str], None],
) -> None:
    """Cadence, support windows, platforms and vulnerabilities of each framework's distributions."""
    first_year = now.year - YEARS + 1
    for framework in frameworks:
        for package in REGISTRY_PACKAGES.get(framework, ()):
            method = {"endpoint": project_url(package), "docs": DOCS, "framework": framework}
            if package in ALTERNATIVE_BUILDS:
                method["alternative_to"] = ALTERNATIVE_BUILDS[package]
            names = (
                *_current_names(),
                *(f"releases_{y}" for y in range(first_year, now.year + 1)),
                "median_days_between_minor_releases",
                "yanked_releases",
                *(
                    name
                    for minor in cpython.RELEASES
                    for name in (f"first_wheel_cp3{minor}", f"python_lag_days_cp3{minor}")
                ),
            )

            def compute(package: str = package, method: dict = method) -> None:
                project = fetched.projects[package].result()
                _record_current(metrics, package, project, method)
                _record_cadence(metrics, package, project, method, now, first_year)
                _record_support(metrics, package, project, method)

            metrics.step(package, names, method, compute)
            progress(f"pypi {package}")


def _current_names() -> tuple[str, ...]:
    return (
        "current_version",
        "current_release_date",
        "requires_python",
        "oldest_python",
        *(f"wheels_{p}" for p in pypi_figures.PLATFORMS),
        "vulnerabilities",
        "vulnerability_ids",
    )


def _record_current(metrics: SourceMetrics, package: str, project: Project, method: dict[str, Any]) -> None:
    files = project.releases.get(project.version, ())
    current = {**method, "version": project.version}
    metrics.set(package, "current_version", project.version, method)
    if files:
        metrics.set(package, "current_release_date", min(f.uploaded for f in files).date().isoformat(), current)
    else:
        metrics.skip(package, "current_release_date", f"release {project.version} has no files", current)
    if project.requires_python:
        metrics.set(package, "requires_python", project.requires_python, current)
    else:
        metrics.skip(package, "requires_python", f"release {project.version} states no requires_python", current)
    oldest = pypi_figures.oldest_python(files)
    if oldest is not None:
        metrics.set(package, "oldest_python", f"3.{oldest}", {**current, "from": "its CPython-specific wheels"})
    elif project.requires_python:
        metrics.set(package, "oldest_python", project.requires_python, {**current, "from": "requires_python"})
    else:
        metrics.skip(package, "oldest_python", "neither CPython-specific wheels nor requires_python", current)
    for platform, count in pypi_figures.platform_wheels(files).items():
        metrics.set(package, f"wheels_{platform}", count, {**current, "counts": "wheels that install there"})
    ids = "; ".join(f"{v.id} (fixed in {', '.join(v.fixed_in) or 'no release yet'})" for v in project.vulnerabilities)
    metrics.set(package, "vulnerabilities", len(project.vulnerabilities), {**current, "withdrawn": "left out"})
    metrics.set(package, "vulnerability_ids", ids or "none", current)


def _record_cadence(
    metrics: SourceMetrics, package: str, project: Project, method: dict[str, Any], now: datetime, first_year: int
) -> None:
    dates = pypi_figures.final_release_dates(project)
    counted = {**method, "counts": "final releases (no pre-, dev- or wholly yanked release) by first upload"}
    earliest = pypi_figures.earliest_upload(project)
    for year, count in pypi_figures.releases_per_year(dates, range(first_year, now.year + 1)).items():
        if earliest is None or year < earliest.year:
            metrics.skip(package, f"releases_{year}", _nothing_held_before(earliest), counted)
        else:
            metrics.set(package, f"releases_{year}", count, {**counted, "through": now.date().isoformat()})
    minors = pypi_figures.minor_releases(dates, now - timedelta(days=365 * YEARS))
    gap = pypi_figures.median_gap_days(minors)
    minor_method = {
        **method,
        "window_days": 365 * YEARS,
        "minor_releases": [[str(v), d.date().isoformat()] for v, d in minors],
    }
    if gap is None:
        metrics.skip(
            package, "median_days_between_minor_releases", "fewer than two minor releases in the window", minor_method
        )
    else:
        metrics.set(package, "median_days_between_minor_releases", gap, minor_method)
    yanked = pypi_figures.yanked_releases(project)
    metrics.set(package, "yanked_releases", len(yanked), {**method, "yanked": yanked, "counts": "every file yanked"})


def _nothing_held_before(earliest: datetime | None) -> str:
    held = f"before {earliest.date().isoformat()}" if earliest else "at all"
    return f"PyPI holds no file of it {held}: earlier releases were deleted or never uploaded"


def _record_support(metrics: SourceMetrics, package: str, project: Project, method: dict[str, Any]) -> None:
    pure = pypi_figures.is_pure(project)
    earliest = pypi_figures.earliest_upload(project)
    for minor, (released, source) in cpython.RELEASES.items():
        first_name, lag_name = f"first_wheel_cp3{minor}", f"python_lag_days_cp3{minor}"
        python = {**method, "python": f"3.{minor}", "python_release_source": source}
        if pure:
            reason = "pure-Python wheels: they install on every Python the release's requires_python allows"
            metrics.skip(package, first_name, reason, python)
            metrics.skip(package, lag_name, reason, python)
            continue
        if released and (earliest is None or released < earliest.date()):
            reason = f"CPython 3.{minor} came out first: {_nothing_held_before(earliest)}"
            metrics.skip(package, first_name, reason, python)
            metrics.skip(package, lag_name, reason, python)
            continue
        first = pypi_figures.first_wheel(project, minor)
        if first is None:
            reason = f"no release has a wheel for CPython 3.{minor} yet"
            metrics.skip(package, first_name, reason, python)
            metrics.skip(package, lag_name, reason, python)
            continue
        metrics.set(package, first_name, first.date().isoformat(), python)
        if released is None:
            metrics.skip(package, lag_name, f"CPython 3.{minor}.0's release date is not written down here", python)
        else:
            lag = pypi_figures.days_after(released, first)
            metrics.set(package, lag_name, lag, {**python, "python_released": released.isoformat()})


def collect_accelerators(fetched: Fetched, frameworks: tuple[str, ...], metrics: SourceMetrics) -> None:
    """The platforms each accelerator build has wheels for: the TPU packages' current release, and each CUDA wheel a
    framework's GPU stack pulls in, at the version resolved."""
    for framework in frameworks:
        for package in TPU_PACKAGES.get(framework, ()):
            method = {"endpoint": project_url(package), "docs": DOCS, "framework": framework, "accelerator": "TPU"}

            def tpu(package: str = package, method: dict = method) -> None:
                project = fetched.projects[package].result()
                files = project.releases.get(project.version, ())
                _record_platforms(metrics, package, project.version, files, method)

            metrics.step(package, _platform_names(), method, tpu)
        if "gpu" not in STACKS.get(framework, {}):
            continue
        method = {"endpoint": "uv pip compile (GPU set)", "framework": framework, "accelerator": "CUDA"}

        def cuda(framework: str = framework) -> None:
            for pin, files in fetched.stacks[(framework, "gpu")].result():
                if pin.name.startswith(CUDA_PREFIXES):
                    where = {"endpoint": project_url(pin.name), "docs": DOCS, "framework": framework}
                    subject = f"{pin.name} {pin.version}"
                    _record_platforms(metrics, subject, pin.version, files.result(), {**where, "accelerator": "CUDA"})

        metrics.step(f"{framework} CUDA", _platform_names(), method, cuda)


def _platform_names() -> tuple[str, ...]:
    return ("version", *(f"wheels_{p}" for p in pypi_figures.PLATFORMS))


def _record_platforms(metrics: SourceMetrics, subject: str, version: str, files, method: dict[str, Any]) -> None:
    metrics.set(subject, "version", version, method)
    for platform, count in pypi_figures.platform_wheels(files).items():
        metrics.set(subject, f"wheels_{platform}", count, {**method, "version": version})


def collect_stacks(
    fetched: Fetched, frameworks: tuple[str, ...], metrics: SourceMetrics, progress: Callable[[str], None]
) -> None:
    """Each framework's stack per device: distributions, download size, and the CPU set's installed size."""
    tags = stacks.target_tags()
    for framework in frameworks:
        for device in STACKS.get(framework, {}):
            subject, method = f"{framework} {device}", _stack_method(framework, device)

            def compute(key: tuple[str, str] = (framework, device), subject: str = subject, method: dict = method):
                resolved = fetched.stacks[key].result()
                wheels = [(pin, stacks.installed_wheel(pin, files.result(), tags)) for pin, files in resolved]
                sized = {**method, "wheels": [[w.filename, w.size] for _, w in wheels]}
                metrics.set(subject, "distributions", len(wheels), method)
                metrics.set(subject, "download_bytes", sum(w.size for _, w in wheels), sized)

            metrics.step(subject, ("distributions", "download_bytes"), method, compute)
            if device == "gpu":
                reason = "the GPU stacks are resolved, not installed, where snapshots are made here"
                metrics.skip(subject, "installed_bytes", reason, method)
            else:
                metrics.step(
                    subject, ("installed_bytes",), method, lambda s=subject, f=framework: _installed(metrics, s, f)
                )
            progress(f"pypi {subject}")


def _installed(metrics: SourceMetrics, subject: str, framework: str) -> None:
    requirements = STACKS[framework]["cpu"]
    dists = stacks.installed_closure(requirements)
    method = {
        "endpoint": "importlib.metadata of the environment that ran the collection",
        "framework": framework,
        "device": "cpu",
        "requirements": list(requirements),
        "python_version": python_version(),
        "measured": "the requirements' dependency closure as installed here; every file its distributions' RECORD "
        "lists, sized on disk",
        "installed_versions": {name: dist.version for name, dist in sorted(dists.items())},
    }
    metrics.set(subject, "installed_bytes", stacks.installed_bytes(dists), method)


def start(client: PyPIClient, frameworks: tuple[str, ...], uv: str, pool: ThreadPoolExecutor) -> Fetched:
    """Submit every request of a collection: the projects, the resolutions, then each resolved wheel's release."""
    packages = {p for fw in frameworks for p in (*REGISTRY_PACKAGES.get(fw, ()), *TPU_PACKAGES.get(fw, ()))}
    fetched = Fetched(pool, client, {p: pool.submit(client.project, p) for p in packages}, {})
    resolver = ThreadPoolExecutor(max_workers=4)  # each waits on a uv process

    def resolve_and_size(requirements: tuple[str, ...]):
        return [(pin, fetched.files(pin.name, pin.version)) for pin in stacks.resolve(requirements, uv)]

    resolutions: dict[tuple[str, ...], Future] = {}  # PyTorch's two stacks are one set: resolved once
    for fw in frameworks:
        for device, requirements in STACKS.get(fw, {}).items():
            if requirements not in resolutions:
                resolutions[requirements] = resolver.submit(resolve_and_size, requirements)
            fetched.stacks[(fw, device)] = resolutions[requirements]
    resolver.shutdown(wait=False)
    return fetched


def collect_registry(
    client: PyPIClient,
    frameworks: tuple[str, ...],
    now: datetime,
    parts: dict[str, SourceMetrics],
    uv: Callable[[], str],
    progress: Callable[[str], None],
) -> None:
    """Collect the three parts (``PARTS``) into ``parts``. A source already stopped (its host unreachable) makes
    no request: every step records why."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        stopped = parts["pypi"].stopped
        for part in parts.values():
            part.stopped = stopped
        fetched = Fetched(pool, client, {}, {}) if stopped else start(client, frameworks, uv(), pool)
        collect_packages(fetched, frameworks, now, parts["pypi"], progress)
        collect_accelerators(fetched, frameworks, parts["pypi_accelerators"])
        collect_stacks(fetched, frameworks, parts["pypi_stacks"], progress)
