"""Environments per framework version (``runners envs``): one virtual environment per framework, version and
Python, built with uv from the known-good sets of ``version_sets.json`` (docs/design.md, "Versions").

An environment lives in ``<envs dir>/<framework>-<version>-py<X.Y>/`` (``~/.cache/fwbench/envs`` unless
``$FWBENCH_ENVS_DIR`` says otherwise). It holds the framework with its companions and what ``runners run`` needs,
not fwbench itself: a run starts in the repository, so every interpreter runs the same benchmark code. It is
built in a temporary directory beside its place and renamed there only once the framework imports at the
requested version, so a failed or interrupted build leaves nothing half-built behind.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import fwbench
from fwbench.frameworks import FRAMEWORKS, framework
from fwbench.records import atomic_write_text
from fwbench.timestamps import utc_now

VERSION_SETS_FILE = Path(fwbench.__file__).with_name("version_sets.json")  # shared: the site shows it too
ENVS_DIR_ENV = "FWBENCH_ENVS_DIR"
#: the version of a framework in the interpreter fwbench runs in (what ``make setup`` installed): today's
INSTALLED = "installed"
#: the version the source article measured (``version_sets.json``)
ARTICLE = "article"
#: written into an environment once it is complete: what it was built from, when, and in how long
MARKER = "fwbench-env.json"
BUILD_TIMEOUT_S = 1800


class EnvError(Exception):
    """A version fwbench cannot build or use an environment for; the message is one line naming the version."""


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


def python_tag() -> str:
    """``X.Y`` of this interpreter: an environment is built for the Python fwbench runs on."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def envs_dir() -> Path:
    """Where environments live: ``$FWBENCH_ENVS_DIR``, else ``~/.cache/fwbench/envs``."""
    return Path(os.environ.get(ENVS_DIR_ENV) or Path.home() / ".cache" / "fwbench" / "envs")


def env_path(name: str, version: str) -> Path:
    """The directory of framework ``name``'s environment at ``version`` (built or not)."""
    return envs_dir() / f"{name}-{version}-py{python_tag()}"


def interpreter(path: Path) -> Path:
    """An environment's Python."""
    return path / "bin" / "python"


def requirements(spec: VersionSet) -> list[str]:
    """Everything an environment installs: the set's packages and what ``runners run`` needs."""
    return [*spec.packages, *version_sets()["run_requirements"]]


def built(name: str, version: str) -> Path | None:
    """The interpreter of framework ``name``'s environment at ``version`` when it is complete and was built from
    today's set (an environment of an older set counts as not built, and ``build`` replaces it), else None."""
    path = env_path(name, version)
    try:
        marker = json.loads((path / MARKER).read_text())
        current = marker.get("requirements") == requirements(version_set(name, version))
    except (OSError, ValueError, AttributeError, EnvError):  # no marker, a damaged one, a version no longer known
        return None
    return interpreter(path) if current and interpreter(path).exists() else None


def uv_binary() -> str:
    """The uv executable: the one of the ``uv`` package fwbench depends on, else uv on the PATH."""
    try:
        from uv import find_uv_bin

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if not found:
            raise EnvError("uv is not installed: pip install uv") from None
        return found


def _uv(*args: str, what: str) -> str:
    """Run uv; its stdout, or EnvError with ``what`` and uv's reason on one line."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}  # the interpreter is this machine's; never a download
    try:
        done = subprocess.run([uv_binary(), *args], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise EnvError(f"{what}: uv gave no answer in {BUILD_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise EnvError(f"{what}: {uv_reason(done.stderr)}")
    return done.stdout


def uv_reason(stderr: str) -> str:
    """uv's error on one line: the explanation after its ``╰─▶`` marker (a resolver's "Because …", a missing
    wheel's "… has no wheels with a matching Python ABI tag"), else its last non-empty line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "uv failed without saying why"
    for index, line in enumerate(lines):
        if line.startswith("╰─▶"):
            return " ".join([line.removeprefix("╰─▶").strip(), *lines[index + 1 :]])[:400]
    return lines[-1][:400]


#: Run in a fresh environment: the framework's version as its metadata says, after importing it (exit 3 if not)
IMPORT_CHECK = """import importlib, importlib.metadata, sys
importlib.import_module(sys.argv[1])
for distribution in sys.argv[2:]:
    try:
        print(importlib.metadata.version(distribution))
        break
    except importlib.metadata.PackageNotFoundError:
        pass
"""


def build(name: str, version: str, log=print) -> Path:
    """Build framework ``name``'s environment at ``version`` (a no-op when it exists); return its interpreter.

    Builds in a temporary directory beside the final one and renames it into place only after the framework
    imports there at ``version``; EnvError (one line, naming the version) otherwise, and nothing stays behind.
    """
    if done := built(name, version):
        return done
    spec = version_set(name, version)
    what = f"{name} {version}"
    final = env_path(name, version)
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".building-{spec.name}-", dir=final.parent))
    started = time.monotonic()
    try:
        log(f"building {spec.name}: {' '.join(spec.packages)}" + (f" (as of {spec.as_of})" if spec.as_of else ""))
        _uv("venv", "--quiet", "--allow-existing", "--python", sys._base_executable, str(scratch), what=what)
        install = ["pip", "install", "--quiet", "--python", str(interpreter(scratch))]
        if spec.as_of:
            install += ["--exclude-newer", spec.as_of]
        overrides = scratch / "overrides.txt"
        if spec.overrides:
            overrides.write_text("\n".join(spec.overrides) + "\n")
            install += ["--override", str(overrides)]
        _uv(*install, *requirements(spec), what=what)
        entry = framework(name)
        check = subprocess.run(
            [str(interpreter(scratch)), "-c", IMPORT_CHECK, entry.import_name, *entry.distributions],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if check.returncode != 0:
            last = (check.stderr.strip().splitlines() or ["no output"])[-1]
            raise EnvError(f"{what}: built, but {entry.import_name} does not import: {last[:300]}")
        found = check.stdout.strip()
        if found != version:
            raise EnvError(f"{what}: built, but it holds {name} {found or 'of no version'}")
        freeze = _uv("pip", "freeze", "--python", str(interpreter(scratch)), what=what).split()
        marker = {
            "framework": name,
            "version": version,
            "python": python_tag(),
            "requirements": requirements(spec),
            "overrides": list(spec.overrides),
            "as_of": spec.as_of,
            "pinned": spec.pinned,
            "installed": freeze,
            "built_at": utc_now(),
            "build_seconds": round(time.monotonic() - started, 1),
        }
        overrides.unlink(missing_ok=True)
        atomic_write_text(scratch / MARKER, json.dumps(marker, indent=2) + "\n")
        if final.exists():  # an environment of an older set, or a damaged one: replaced only now that this one works
            shutil.rmtree(final)
        os.replace(scratch, final)  # atomic on one file system
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    log(f"built {spec.name} in {marker['build_seconds']:.0f} s")
    return interpreter(final)


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
