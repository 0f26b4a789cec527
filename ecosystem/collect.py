"""One collection: check the network, run each source's collector, and build the dated snapshot."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from uv import find_uv_bin

from ecosystem import (
    github_client,
    github_stats,
    pypi_api,
    pypi_registry,
    pypi_stats,
    stackexchange_client,
    stackoverflow_stats,
)
from ecosystem.errors import OfflineError
from ecosystem.metric import SourceMetrics
from ecosystem.network import reachable
from ecosystem.snapshot import build_snapshot, load_snapshots, star_baselines
from ecosystem.subjects import Subjects, subjects_of
from fwbench.frameworks import FRAMEWORKS
from fwbench.progress import progress_bar
from fwbench.timestamps import utc_now

SOURCES = ("stackoverflow", "github", "pypistats", "pypi")
HOSTS = {
    "stackoverflow": stackexchange_client.HOST,
    "github": github_client.HOST,
    "pypistats": pypi_stats.HOST,
    "pypi": pypi_api.HOST,
}


@dataclass(frozen=True)
class Settings:
    """What to collect and how patiently."""

    out_dir: Path = Path("results/ecosystem")
    sources: tuple[str, ...] = SOURCES
    frameworks: tuple[str, ...] = FRAMEWORKS
    window_days: int = 365
    sample: int = 300
    max_wait: float = 60.0  # the longest single wait for a backoff, retry or rate-limit reset


def progress_steps(source: str, subjects: Subjects, frameworks: tuple[str, ...]) -> int:
    """Progress steps of a source: the tags call plus one per tag, one per repository, one per package (and stack)."""
    return {
        "stackoverflow": 1 + len(subjects.tags),
        "github": len(subjects.repos),
        "pypistats": len(subjects.packages),
        "pypi": pypi_registry.progress_steps(frameworks),
    }[source]


def _warn(message: str) -> None:
    print(f"ecosystem: {message}", file=sys.stderr)


def collect(
    settings: Settings,
    env: Mapping[str, str] | None = None,
    clock: Callable[[], str] = utc_now,
    is_reachable: Callable[[str], bool] = reachable,
    progress: bool = True,
    warn: Callable[[str], None] = _warn,
    uv: Callable[[], str] = find_uv_bin,
) -> dict[str, Any]:
    """Collect the selected sources and return the snapshot record (not yet written).

    Raises OfflineError, before any request, when none of the sources' hosts can be reached.
    A source whose host is down, or that stops answering, is recorded as failed with the reason; the others
    are collected. An answer not in its documented shape raises MalformedAnswer: nothing is to be written.
    """
    env = os.environ if env is None else env
    down = [source for source in settings.sources if not is_reachable(HOSTS[source])]
    if len(down) == len(settings.sources):
        hosts = ", ".join(HOSTS[source] for source in settings.sources)
        raise OfflineError(f"offline: cannot reach {hosts} (port 443); nothing was collected or written")
    collected_at = clock()
    now = datetime.fromisoformat(collected_at.replace("Z", "+00:00"))
    key = env.get("STACK_EXCHANGE_KEY") or None
    token = env.get("GITHUB_TOKEN") or None
    subjects = subjects_of(settings.frameworks)

    results = []
    total = sum(progress_steps(source, subjects, settings.frameworks) for source in settings.sources)
    with progress_bar(total=total, desc="ecosystem", unit="step", enabled=progress) as bar:

        def advance(label: str) -> None:
            bar.set_postfix_str(label)
            bar.update(1)

        for source in settings.sources:
            metrics = SourceMetrics(source, clock)
            if source in down:
                metrics.stopped = f"cannot reach {HOSTS[source]} (port 443) from where this snapshot was made"
            if source == "stackoverflow":
                stackoverflow_stats.collect_stackoverflow(
                    lambda: stackexchange_client.StackClient(key=key, max_wait=settings.max_wait),
                    subjects.tags,
                    now,
                    settings.window_days,
                    settings.sample,
                    metrics,
                    advance,
                )
            elif source == "github":
                history = load_snapshots(settings.out_dir, on_error=lambda exc: warn(f"skipping history: {exc}"))
                github_stats.collect_github(
                    lambda: github_client.make_github(token, settings.max_wait),
                    subjects.repos,
                    now,
                    settings.window_days,
                    metrics,
                    star_baselines(history, now.date(), settings.window_days),
                    settings.max_wait,
                    advance,
                )
            elif source == "pypi":
                parts = {part: SourceMetrics(part, clock) for part in pypi_registry.PARTS}
                parts["pypi"].stopped = metrics.stopped
                client = pypi_api.PyPIClient(pypi_stats.make_session(settings.max_wait), settings.max_wait)
                pypi_registry.collect_registry(client, settings.frameworks, now, parts, uv, advance)
                results.extend(parts.values())
                continue
            else:
                pypi_stats.collect_pypi(
                    lambda: pypi_stats.make_session(settings.max_wait),
                    subjects.packages,
                    settings.max_wait,
                    metrics,
                    advance,
                )
            results.append(metrics)

    authenticated = {s: bool({"stackoverflow": key, "github": token}.get(s)) for s in settings.sources}
    return build_snapshot(results, settings.window_days, authenticated, collected_at, collected_at[:10])
