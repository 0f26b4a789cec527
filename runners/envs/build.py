"""Building one virtual environment with uv: aside in a temporary directory, renamed into place only once its
framework imports at the version asked for, so that a failed or interrupted build leaves nothing behind.

``runners.envs.versions`` (other framework versions) and ``runners.envs.gpu`` (the CUDA builds) say what goes in; this
module builds it, and tells a complete, current environment from one to rebuild by the marker it writes last.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from fwbench.frameworks import framework
from fwbench.records import atomic_write_text
from fwbench.timestamps import utc_now
from runners.envs.interpreters import installation

#: written into an environment once it is complete: what it was built from, when, and in how long
MARKER = "fwbench-env.json"
BUILD_TIMEOUT_S = 1800


class EnvError(Exception):
    """A version fwbench cannot build or use an environment for; the message is one line naming the version."""


def python_tag() -> str:
    """``X.Y`` of this interpreter: an environment is built for the Python fwbench runs on."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


#: ``platform.machine()``'s other names for the two architectures environments are built for (a Mac says ``arm64``,
#: Windows ``AMD64``)
ARCH_ALIASES = {"arm64": "aarch64", "AMD64": "x86_64"}


def machine_arch(machine: str | None = None) -> str:
    """This machine's architecture (or ``machine``'s) as wheels name it on Linux: ``x86_64``, ``aarch64``, or what
    ``platform.machine()`` says where it is neither."""
    machine = machine or platform.machine()
    return ARCH_ALIASES.get(machine, machine)


def interpreter(path: Path) -> Path:
    """An environment's Python."""
    return path / "bin" / "python"


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


def uv(*args: str, what: str) -> str:
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


@dataclass(frozen=True)
class Recipe:
    """How one environment is built: framework ``framework`` at ``version`` into ``path``, from ``requirements``
    (what uv installs, and what the marker keeps: an environment of other requirements is out of date); ``what``
    names it in messages (``jax 0.4.26``)."""

    framework: str
    version: str
    path: Path
    what: str
    requirements: tuple[str, ...]
    options: tuple[str, ...] = ()  # uv pip install's other options (--exclude-newer, --constraint, --torch-backend)
    overrides: tuple[str, ...] = ()  # requirements that win over the packages' own (uv --override)
    facts: dict = field(default_factory=dict)  # what else the marker records


def current(recipe: Recipe) -> Path | None:
    """The interpreter of ``recipe``'s environment when it is complete and was built from its requirements, else
    None (no marker, a damaged one, or one of other requirements, which ``make`` replaces)."""
    try:
        marker = json.loads((recipe.path / MARKER).read_text())
        fresh = marker.get("requirements") == list(recipe.requirements)
    except (OSError, ValueError, AttributeError):
        return None
    return interpreter(recipe.path) if fresh and interpreter(recipe.path).exists() else None


def make(recipe: Recipe, log=print) -> Path:
    """Build ``recipe``'s environment; return its interpreter.

    Builds in a temporary directory beside the final one and renames it into place only after the framework
    imports there at the recipe's version; EnvError (one line, naming it) otherwise, and nothing stays behind.
    """
    name, version, what, final = recipe.framework, recipe.version, recipe.what, recipe.path
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".building-{final.name}-", dir=final.parent))
    started = time.monotonic()
    try:
        uv("venv", "--quiet", "--allow-existing", "--python", sys._base_executable, str(scratch), what=what)
        # bytecode compiled now, as pip does: where PYTHONDONTWRITEBYTECODE is set, no import would ever write it,
        # and every run would compile the framework's sources again (TensorFlow's import: 8.0 s instead of 3.7)
        install = ["pip", "install", "--quiet", "--compile-bytecode", "--python", str(interpreter(scratch))]
        install += recipe.options
        overrides = scratch / "overrides.txt"
        if recipe.overrides:
            overrides.write_text("\n".join(recipe.overrides) + "\n")
            install += ["--override", str(overrides)]
        uv(*install, *recipe.requirements, what=what)
        check = installation(str(interpreter(scratch)), name, imports=True, timeout_s=300)
        if not check.available:
            raise EnvError(f"{what}: built, but {framework(name).import_name} does not import: {check.error[:300]}")
        if (check.version or "").split("+")[0] != version:  # PyTorch's index adds the build: 2.14.1+cu126
            raise EnvError(f"{what}: built, but it holds {name} {check.version or 'of no version'}")
        freeze = uv("pip", "freeze", "--python", str(interpreter(scratch)), what=what).split()
        marker = {
            "framework": name,
            "version": version,
            "python": python_tag(),
            "requirements": list(recipe.requirements),
            **recipe.facts,
            "installed": freeze,
            "built_at": utc_now(),
            "build_seconds": round(time.monotonic() - started, 1),
        }
        overrides.unlink(missing_ok=True)
        atomic_write_text(scratch / MARKER, json.dumps(marker, indent=2) + "\n")
        if final.exists():  # an environment of older requirements, or a damaged one: replaced now that this one works
            shutil.rmtree(final)
        os.replace(scratch, final)  # atomic on one file system
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    log(f"built {final.name} in {marker['build_seconds']:.0f} s")
    return interpreter(final)
