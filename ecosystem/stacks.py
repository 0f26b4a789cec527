"""A framework's whole install, for a CPU and for an NVIDIA GPU: the set uv resolves for Linux x86-64, what its wheels
weigh to download (sizes from the JSON API), and what the CPU set takes on disk once installed (measured in the
environment that runs the collection)."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
from dataclasses import dataclass

from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

from ecosystem.errors import CollectionError
from ecosystem.pypi_api import File

#: the target every stack is resolved for: the commonest machine a framework is installed on
PYTHON_VERSION = "3.12"
PYTHON_PLATFORM = "x86_64-manylinux_2_28"
#: the wheel platform tags ``PYTHON_PLATFORM`` installs, most specific first (pip's order on a glibc 2.28 system)
LINUX_PLATFORMS = tuple(f"manylinux_2_{minor}_x86_64" for minor in range(28, 4, -1)) + (
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
    "linux_x86_64",
)
RESOLVE_TIMEOUT_S = 45
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)")


@dataclass(frozen=True)
class Pin:
    """One distribution of a resolved set."""

    name: str
    version: str


def resolve_command() -> list[str]:
    """The ``uv pip compile`` arguments that resolve the requirements it reads from stdin for the target."""
    return [
        "pip",
        "compile",
        "-",
        "--python-version",
        PYTHON_VERSION,
        "--python-platform",
        PYTHON_PLATFORM,
        "--no-header",
        "--no-annotate",
        "--quiet",
        "--no-python-downloads",  # the target's Python is only named: no interpreter of it is needed or fetched
    ]


def parse_pins(text: str) -> list[Pin]:
    """``name==version`` lines of uv's output."""
    return [Pin(str(canonicalize_name(m[1])), m[2]) for line in text.splitlines() if (m := _PIN.match(line.strip()))]


def resolve(requirements: tuple[str, ...], uv: str) -> list[Pin]:
    """The set uv resolves for ``requirements`` on the target; CollectionError with uv's last line."""
    what = " ".join(requirements)
    try:
        done = subprocess.run(
            [uv, *resolve_command()],
            input="\n".join(requirements),
            capture_output=True,
            text=True,
            timeout=RESOLVE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise CollectionError(f"uv pip compile {what}: no answer in {RESOLVE_TIMEOUT_S} s") from None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0:
        raise CollectionError(f"uv pip compile {what}: {lines[-1] if lines else 'failed without saying why'}")
    pins = parse_pins(done.stdout)
    if not pins:
        raise CollectionError(f"uv pip compile {what}: resolved nothing")
    return pins


def target_tags() -> list[Tag]:
    """The wheel tags the target installs, best first."""
    minor = tuple(int(p) for p in PYTHON_VERSION.split("."))
    return [
        *cpython_tags(minor, platforms=LINUX_PLATFORMS),
        *compatible_tags(minor, "cp" + "".join(map(str, minor)), LINUX_PLATFORMS),
    ]


def installed_wheel(pin: Pin, files: tuple[File, ...], tags: list[Tag]) -> File:
    """The wheel of ``files`` the target would install (its best-ranked tag); CollectionError when none fits."""
    rank = {tag: i for i, tag in enumerate(tags)}
    best: tuple[int, File] | None = None
    for f in files:
        if not f.filename.endswith(".whl") or f.yanked:
            continue
        fits = [rank[t] for t in parse_wheel_filename(f.filename)[3] if t in rank]
        if fits and (best is None or min(fits) < best[0]):
            best = (min(fits), f)
    if best is None:
        raise CollectionError(f"pypi {pin.name} {pin.version}: no wheel for CPython {PYTHON_VERSION} {PYTHON_PLATFORM}")
    return best[1]


def installed_closure(requirements: tuple[str, ...]) -> dict[str, importlib.metadata.Distribution]:
    """The distributions ``requirements`` pull in as installed in this environment (their dependency closure, markers
    evaluated here, no extras); CollectionError naming the first one not installed."""
    found: dict[str, importlib.metadata.Distribution] = {}
    pending = [Requirement(r) for r in requirements]
    while pending:
        requirement = pending.pop()
        name = str(canonicalize_name(requirement.name))
        if name in found or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        try:
            found[name] = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            raise CollectionError(f"{name} is not installed in this environment, so it cannot be measured") from None
        pending += [Requirement(r) for r in found[name].requires or ()]
    return found


def installed_bytes(dists: dict[str, importlib.metadata.Distribution]) -> int:
    """Bytes on disk of every file each distribution's RECORD lists (sized on disk: RECORD leaves some sizes out)."""
    total = 0
    for dist in dists.values():
        for entry in dist.files or ():
            path = dist.locate_file(entry)
            if path.is_file():
                total += path.stat().st_size
    return total
