"""The installed versions of distributions, read from their metadata without importing them: what a record states of
the software (``runners.measure.provenance``) and what a trainer states of its device's runtime (libtpu)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """Installed version of each distribution, None for those not installed."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
