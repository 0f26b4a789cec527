"""Environments per framework version (``runners envs``): one virtual environment per framework, version and
Python, built with uv from the known-good sets of ``version_sets.json`` (docs/design.md, "Versions").

An environment lives in ``<envs dir>/<framework>-<version>-py<X.Y>/`` (``~/.cache/fwbench/envs`` unless
``$FWBENCH_ENVS_DIR`` says otherwise). It holds the framework with its companions and what ``runners run`` needs,
not fwbench itself: a run starts in the repository, so every interpreter runs the same benchmark code. It is
built (``runners.envs.build``) in a temporary directory beside its place and renamed there only once the framework
imports at the requested version, so a failed or interrupted build leaves nothing half-built behind.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import fwbench
from fwbench.cliargs import framework_values
from fwbench.frameworks import FRAMEWORKS
from runners.envs.build import MARKER, EnvError, Recipe, current, machine_arch, make, python_tag

VERSION_SETS_FILE = Path(fwbench.__file__).with_name("version_sets.json")  # shared: the site shows it too
ENVS_DIR_ENV = "FWBENCH_ENVS_DIR"
#: the version of a framework in the interpreter fwbench runs in (what ``make setup`` installed): today's
INSTALLED = "installed"
#: the version the source article measured (``version_sets.json``)
ARTICLE = "article"
#: the variant of a pinned set that its ``probe_packages`` build: the article's own install, for ``runners probes``
PROBE = "probe"


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
    variant: str = ""  # PROBE for a set's probe_packages; empty for the set the training code runs in

    @property
    def name(self) -> str:
        """``<framework>-<version>[-<variant>]-py<X.Y>``: the environment's directory name."""
        return _env_name(self.framework, self.version, self.variant)


def _env_name(name: str, version: str, variant: str = "") -> str:
    return f"{name}-{version}{f'-{variant}' if variant else ''}-py{python_tag()}"


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


def version_set(name: str, version: str, variant: str = "") -> VersionSet:
    """The set that builds framework ``name`` at ``version``: the pinned one, else the template resolved as of the
    release date plus ``resolve_days``. EnvError for a version the data file does not know or says cannot run.

    ``variant`` PROBE: the pinned set's ``probe_packages`` where it has them (the article's own install), else the
    same set as without it."""
    data = version_sets()
    entry = data["frameworks"][name]
    if version in entry["cannot_run"]:
        raise EnvError(f"{name} {version}: cannot run the shared model: {entry['cannot_run'][version]}")
    if version in entry["pinned"]:
        pinned = entry["pinned"][version]
        if variant == PROBE and "probe_packages" in pinned:
            return VersionSet(
                name,
                version,
                tuple(pinned["probe_packages"]),
                (),
                pinned.get("as_of"),
                True,
                pinned.get("probe_note", ""),
                PROBE,
            )
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


def env_path(name: str, version: str, variant: str = "") -> Path:
    """The directory of framework ``name``'s environment at ``version`` (of ``variant``; built or not)."""
    return envs_dir() / _env_name(name, version, variant)


#: CPU-only builds published for x86-64 alone → the distribution of the same release on other machines (TensorFlow's
#: one build: CPU-only on a Mac, AWS's CPU build on Arm Linux)
X86_ONLY_BUILDS = {"tensorflow-cpu": "tensorflow"}


def for_this_machine(requirement: str, machine: str | None = None) -> str:
    """``requirement`` as this machine (``machine_arch``, or ``machine``'s) can install it: an x86-64-only CPU
    build (``X86_ONLY_BUILDS``) becomes its framework's own distribution elsewhere, at the same version."""
    name, rest = re.match(r"([A-Za-z0-9._-]+)(.*)", requirement).groups()
    if machine_arch(machine) == "x86_64" or name not in X86_ONLY_BUILDS:
        return requirement
    return X86_ONLY_BUILDS[name] + rest


def requirements(spec: VersionSet) -> list[str]:
    """Everything an environment installs on this machine: the set's packages (``for_this_machine``) and what
    ``runners run`` needs."""
    return [*(for_this_machine(package) for package in spec.packages), *version_sets()["run_requirements"]]


def built(name: str, version: str, variant: str = "") -> Path | None:
    """The interpreter of framework ``name``'s environment at ``version`` (of ``variant``, see ``version_set``) when
    it is complete and was built from today's set (an environment of an older set counts as not built, and
    ``build`` replaces it), else None."""
    try:
        spec = version_set(name, version, variant)
    except EnvError:  # a version no longer known
        return None
    path = env_path(name, version, spec.variant)
    return current(Recipe(name, version, path, f"{name} {version}", tuple(requirements(spec))))


def build(name: str, version: str, log=print, variant: str = "") -> Path:
    """Build framework ``name``'s environment at ``version`` (of ``variant``, see ``version_set``; a no-op when it
    exists); return its interpreter."""
    if done := built(name, version, variant):
        return done
    spec = version_set(name, version, variant)
    installed = " ".join(map(for_this_machine, spec.packages))
    log(f"building {spec.name}: {installed}" + (f" (as of {spec.as_of})" if spec.as_of else ""))
    recipe = Recipe(
        name,
        version,
        env_path(name, version, spec.variant),
        f"{name} {version}" + (f" ({spec.variant})" if spec.variant else ""),
        tuple(requirements(spec)),
        options=("--exclude-newer", spec.as_of) if spec.as_of else (),
        overrides=spec.overrides,
        facts={"overrides": list(spec.overrides), "as_of": spec.as_of, "pinned": spec.pinned, "variant": spec.variant},
    )
    return make(recipe, log)


def remove(name: str, version: str) -> list[Path]:
    """Delete framework ``name``'s environments at ``version`` (the training one and its probe variant); the ones
    there were."""
    found = [path for variant in ("", PROBE) if (path := env_path(name, version, variant)).exists()]
    for path in found:
        shutil.rmtree(path)
    return found


def listing() -> list[dict]:
    """Every version the data file knows a set for (pinned, and its probe variant) and every environment built, one
    row each."""
    rows = {}
    for name, entry in version_sets()["frameworks"].items():
        for version in (*entry["pinned"], *entry["cannot_run"]):
            rows[(name, version, "")] = {}
            if "probe_packages" in entry["pinned"].get(version, {}):
                rows[(name, version, PROBE)] = {}
    if envs_dir().is_dir():
        for marker_file in envs_dir().glob(f"*-py{python_tag()}/{MARKER}"):
            try:
                marker = json.loads(marker_file.read_text())
                key = (marker["framework"], marker["version"], marker.get("variant") or "")
                rows.setdefault(key, {}).update(marker)
            except (OSError, ValueError, KeyError):
                continue  # a damaged marker: the environment shows as not built, and build replaces it
    table = []
    for (name, version, variant), row in sorted(rows.items(), key=lambda kv: (kv[0][0], _release_key(kv[0][1]))):
        entry = version_sets()["frameworks"][name]
        pinned = entry["pinned"].get(version, {})
        table.append(
            {
                "framework": name,
                "version": version,
                "variant": variant,
                "article": version == entry["article"],
                "status": "cannot run"
                if version in entry["cannot_run"]
                else ("built" if built(name, version, variant) else "not built"),
                "build_seconds": row.get("build_seconds"),
                "path": str(env_path(name, version, variant)),
                "why": entry["cannot_run"].get(version) or pinned.get("probe_note" if variant else "note", ""),
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


def parse_versions(values: list[str], flag: str = "--versions") -> dict[str, list[str]]:
    """``FRAMEWORK=V1,V2`` values as {framework: [versions]}; UsageError naming the bad value."""
    versions: dict[str, list[str]] = {}
    for name, listed in framework_values(values, flag, "FRAMEWORK=V1,V2"):
        items = [item.strip() for item in listed.split(",") if item.strip()]
        versions.setdefault(name, []).extend(item for item in items if item not in versions.get(name, []))
    return versions
