"""Environments per framework version (``runners envs``): one virtual environment per framework, version and
Python, built with uv from the known-good sets of ``version_sets.json`` (docs/design.md, "Versions").

An environment lives in ``<envs dir>/<framework>-<version>-py<X.Y>/`` (``~/.cache/fwbench/envs`` unless
``$FWBENCH_ENVS_DIR`` says otherwise). It holds the framework with its companions and what ``runners run`` needs,
not fwbench itself: a run starts in the repository, so every interpreter runs the same benchmark code. It is
built (``runners.env_build``) in a temporary directory beside its place and renamed there only once the framework
imports at the requested version, so a failed or interrupted build leaves nothing half-built behind.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import fwbench
from fwbench.frameworks import FRAMEWORKS
from runners.env_build import MARKER, EnvError, Recipe, current, make, python_tag

VERSION_SETS_FILE = Path(fwbench.__file__).with_name("version_sets.json")  # shared: the site shows it too
ENVS_DIR_ENV = "FWBENCH_ENVS_DIR"
#: the version of a framework in the interpreter fwbench runs in (what ``make setup`` installed): today's
INSTALLED = "installed"
#: the version the source article measured (``version_sets.json``)
ARTICLE = "article"


@dataclass(frozen=True)
class VersionSet:
    """What one environment installs: the framework at ``version`` and its companions, resolved as of ``as_of``."""

    framework: str
    version: str
    packages: tuple[str, ...]
    overrides: tuple[str, ...]  # requirements that win over the packages' own (Keras 3 over TF 2.15's Keras 2)
    as_of: str | None  # uv --exclude-newer: nothing released after this date
    pinned: bool  # a tried set of the data file, not the template
    note: str = ""

    @property
    def name(self) -> str:
        """``<framework>-<version>-py<X.Y>``: the environment's directory name."""
        return f"{self.framework}-{self.version}-py{python_tag()}"


@cache
def version_sets() -> dict:
    """The data file's ``frameworks`` section, checked for the frameworks fwbench knows."""
    data = json.loads(VERSION_SETS_FILE.read_text())
    unknown = set(data["frameworks"]) - set(FRAMEWORKS)
    if unknown:
        raise ValueError(f"{VERSION_SETS_FILE}: unknown framework {sorted(unknown)[0]!r}")
    return data


def releases(name: str) -> list[str]:
    """Framework ``name``'s releases the data file knows, oldest first."""
    return list(version_sets()["frameworks"][name]["releases"])


def article_version(name: str) -> str:
    """The release of framework ``name`` that the source article measured."""
    return version_sets()["frameworks"][name]["article"]


def version_set(name: str, version: str) -> VersionSet:
    """The set that builds framework ``name`` at ``version``: the pinned one, else the template resolved as of the
    release date plus ``resolve_days``. EnvError for a version the data file does not know or says cannot run."""
    data = version_sets()
    entry = data["frameworks"][name]
    if version in entry["cannot_run"]:
        raise EnvError(f"{name} {version}: cannot run the shared model: {entry['cannot_run'][version]}")
    if version in entry["pinned"]:
        pinned = entry["pinned"][version]
        return VersionSet(
            name,
            version,
            tuple(pinned["packages"]),
            tuple(pinned.get("overrides", ())),
            pinned.get("as_of"),
            True,
            pinned.get("note", ""),
        )
    released = entry["releases"].get(version)
    if released is None:
        known = ", ".join(entry["releases"])
        raise EnvError(f"{name} {version}: unknown version; {VERSION_SETS_FILE.name} knows {known}")
    extra = [
        requirement
        for before, requirements in entry["template_before"].items()
        if _release_key(version) < _release_key(before)
        for requirement in requirements
    ]
    as_of = datetime.date.fromisoformat(released) + datetime.timedelta(days=data["resolve_days"])
    packages = tuple(p.format(version=version) for p in entry["template"]) + tuple(extra)
    return VersionSet(name, version, packages, (), as_of.isoformat(), False)


def _release_key(version: str) -> tuple[int, ...]:
    """A release number as a tuple, for ordering ``0.4.9`` before ``0.4.26`` (the data file has no pre-releases)."""
    return tuple(int(part) for part in version.split("."))


def envs_dir() -> Path:
    """Where environments live: ``$FWBENCH_ENVS_DIR``, else ``~/.cache/fwbench/envs``."""
    return Path(os.environ.get(ENVS_DIR_ENV) or Path.home() / ".cache" / "fwbench" / "envs")


def env_path(name: str, version: str) -> Path:
    """The directory of framework ``name``'s environment at ``version`` (built or not)."""
    return envs_dir() / f"{name}-{version}-py{python_tag()}"


def requirements(spec: VersionSet) -> list[str]:
    """Everything an environment installs: the set's packages and what ``runners run`` needs."""
    return [*spec.packages, *version_sets()["run_requirements"]]


def built(name: str, version: str) -> Path | None:
    """The interpreter of framework ``name``'s environment at ``version`` when it is complete and was built from
    today's set (an environment of an older set counts as not built, and ``build`` replaces it), else None."""
    try:
        wanted = requirements(version_set(name, version))
    except EnvError:  # a version no longer known
        return None
    return current(Recipe(name, version, env_path(name, version), f"{name} {version}", tuple(wanted)))


def build(name: str, version: str, log=print) -> Path:
    """Build framework ``name``'s environment at ``version`` (a no-op when it exists); return its interpreter."""
    if done := built(name, version):
        return done
    spec = version_set(name, version)
    log(f"building {spec.name}: {' '.join(spec.packages)}" + (f" (as of {spec.as_of})" if spec.as_of else ""))
    recipe = Recipe(
        name,
        version,
        env_path(name, version),
        f"{name} {version}",
        tuple(requirements(spec)),
        options=("--exclude-newer", spec.as_of) if spec.as_of else (),
        overrides=spec.overrides,
        facts={"overrides": list(spec.overrides), "as_of": spec.as_of, "pinned": spec.pinned},
    )
    return make(recipe, log)


def remove(name: str, version: str) -> bool:
    """Delete framework ``name``'s environment at ``version``; whether there was one."""
    path = env_path(name, version)
    if not path.exists():
        return False
    shutil.rmtree(path)
    return True


def listing() -> list[dict]:
    """Every version the data file knows a set for (pinned) and every environment built, one row each."""
    rows = {}
    for name, entry in version_sets()["frameworks"].items():
        for version in (*entry["pinned"], *entry["cannot_run"]):
            rows[(name, version)] = {"framework": name, "version": version}
    if envs_dir().is_dir():
        for marker_file in envs_dir().glob(f"*-py{python_tag()}/{MARKER}"):
            try:
                marker = json.loads(marker_file.read_text())
                rows.setdefault((marker["framework"], marker["version"]), {}).update(marker)
            except (OSError, ValueError, KeyError):
                continue  # a damaged marker: the environment shows as not built, and build replaces it
    table = []
    for (name, version), row in sorted(rows.items(), key=lambda kv: (kv[0][0], _release_key(kv[0][1]))):
        entry = version_sets()["frameworks"][name]
        table.append(
            {
                "framework": name,
                "version": version,
                "article": version == entry["article"],
                "status": "cannot run"
                if version in entry["cannot_run"]
                else ("built" if built(name, version) else "not built"),
                "build_seconds": row.get("build_seconds"),
                "path": str(env_path(name, version)),
                "why": entry["cannot_run"].get(version) or entry["pinned"].get(version, {}).get("note", ""),
            }
        )
    return table


def resolve(name: str, requested: list[str], installed_version: str | None) -> list[tuple[str | None, bool]]:
    """``--versions`` values of framework ``name`` as (version, needs an environment): ``installed`` is the version
    in the interpreter fwbench runs (``installed_version``, None when not installed), ``article`` the article's;
    a version equal to the installed one runs there. EnvError for a version the data file cannot build."""
    resolved = []
    for value in requested:
        version = installed_version if value == INSTALLED else article_version(name) if value == ARTICLE else value
        own = version is None or version == installed_version
        if not own:
            version_set(name, version)  # unknown or cannot run: said before anything is built or run
        if (version, not own) not in resolved:
            resolved.append((version, not own))
    return resolved
