"""PyPI's JSON API (https://docs.pypi.org/api/json/): a project's or one release's answer, checked field by field.

A field missing or of the wrong type stops the collection with one line naming the package and the field
(``MalformedAnswer``): a figure computed from half an answer would be wrong without saying so. An answer that
is not there (HTTP 404, the network) is an ordinary failure of that package's figures.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import requests

from ecosystem.errors import MalformedAnswer
from ecosystem.transport import get_json

HOST = "pypi.org"
API = f"https://{HOST}/pypi"
DOCS = "https://docs.pypi.org/api/json/"


@dataclass(frozen=True)
class File:
    """One uploaded file of a release."""

    filename: str
    size: int
    uploaded: datetime
    yanked: bool


@dataclass(frozen=True)
class Vulnerability:
    """A known vulnerability of a release, as the API lists it (from the OSV database)."""

    id: str
    fixed_in: tuple[str, ...]


@dataclass(frozen=True)
class Project:
    """A project's answer: its current release, every release's files, the current release's vulnerabilities."""

    name: str
    version: str
    requires_python: str | None
    releases: dict[str, tuple[File, ...]]
    vulnerabilities: tuple[Vulnerability, ...]


def project_url(package: str) -> str:
    """``GET /pypi/<project>/json``."""
    return f"{API}/{package}/json"


def _field(package: str, data: Any, path: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    """``data[path]`` (dotted keys), checked to be of ``kind``; MalformedAnswer naming the package and the field (its
    place in the answer: ``where`` then ``path``)."""
    name = f"{where}.{path}" if where else path
    value = data
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise MalformedAnswer(f"pypi {package}: the answer lacks field '{name}'")
        value = value[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise MalformedAnswer(f"pypi {package}: field '{name}' is {type(value).__name__}, not as documented")
    return value


def _file(package: str, where: str, entry: Any) -> File:
    stamp = _field(package, entry, "upload_time_iso_8601", str, where)
    try:
        uploaded = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        raise MalformedAnswer(
            f"pypi {package}: field '{where}.upload_time_iso_8601' is not a date: {stamp!r}"
        ) from None
    return File(
        filename=_field(package, entry, "filename", str, where),
        size=_field(package, entry, "size", int, where),
        uploaded=uploaded,
        yanked=_field(package, entry, "yanked", bool, where),
    )


def parse_files(package: str, where: str, entries: Any) -> tuple[File, ...]:
    """A list of file entries (a release's ``urls``, or one release under ``releases``)."""
    if not isinstance(entries, list):
        raise MalformedAnswer(f"pypi {package}: field '{where}' is not a list")
    return tuple(_file(package, f"{where}[{i}]", entry) for i, entry in enumerate(entries))


def parse_project(package: str, body: Any) -> Project:
    """The answer of ``/pypi/<package>/json``."""
    releases = _field(package, body, "releases", dict)
    vulnerabilities = []
    for i, entry in enumerate(_field(package, body, "vulnerabilities", list)):
        fixed = _field(package, entry, "fixed_in", list, f"vulnerabilities[{i}]")
        if not entry.get("withdrawn"):  # a withdrawn advisory no longer applies
            advisory = _field(package, entry, "id", str, f"vulnerabilities[{i}]")
            vulnerabilities.append(Vulnerability(advisory, tuple(map(str, fixed))))
    return Project(
        name=package,
        version=_field(package, body, "info.version", str),
        requires_python=_field(package, body, "info.requires_python", (str, type(None))) or None,
        releases={v: parse_files(package, f"releases.{v}", files) for v, files in releases.items()},
        vulnerabilities=tuple(vulnerabilities),
    )


class PyPIClient:
    """Projects of the JSON API, each asked and parsed once per collection (a small cache), safe to share between
    threads. One release's files come from its project's answer: the per-release endpoint
    (``/pypi/<project>/<version>/json``) adds nothing a collection needs."""

    def __init__(self, session: requests.Session, max_wait: float, sleep: Callable[[float], None] | None = None):
        self._session, self._max_wait, self._sleep = session, max_wait, sleep
        self._cache: dict[str, Future] = {}
        self._lock = threading.Lock()

    def _fetch(self, package: str) -> Project:
        body = get_json(self._session, project_url(package), "pypi", self._max_wait, self._sleep, MalformedAnswer)
        return parse_project(package, body)

    def project(self, package: str) -> Project:
        """``/pypi/<package>/json``, parsed; a second caller waits for the first one's answer."""
        with self._lock:
            pending = self._cache.get(package)
            mine = pending is None
            if mine:
                pending = self._cache[package] = Future()
        if mine:
            try:
                pending.set_result(self._fetch(package))
            except BaseException as exc:
                pending.set_exception(exc)
        return pending.result()

    def release_files(self, package: str, version: str) -> tuple[File, ...]:
        """The files of one release, from its project's answer; MalformedAnswer when the answer lacks it."""
        releases = self.project(package).releases
        if version not in releases:
            raise MalformedAnswer(f"pypi {package}: the answer lacks field 'releases.{version}'")
        return releases[version]
