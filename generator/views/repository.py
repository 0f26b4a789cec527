"""Where the code lives and how a recorded command reads from the repository root.

The repository's address is ``repo_url`` in mkdocs.yml, else the ``origin`` remote of this checkout (read, never
changed), else unknown — the reproduce page then says how to get the code instead of inventing an address.
A recorded command line holds the paths of the machine that ran it; the site shows it relative to the
repository root, leaving out options whose value is a path outside it.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path, PurePosixPath

_CREDENTIALS = re.compile(r"(?<=://)[^/@]+@")
#: an scp-like remote, ``git@github.com:owner/fwbench.git``
_SCP_LIKE = re.compile(r"^[\w.-]+@([\w.-]+):(?!//)(.+)$")


def origin_url(repo_root: Path) -> str | None:
    """The ``origin`` remote of the checkout at ``repo_root`` as a web address (an scp-like ``git@host:path`` as
    ``https://host/path``), without credentials; None when there is none or it is no web address (a clone of a
    local path, as CI's is, names a folder of the build machine)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo_root), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = _SCP_LIKE.sub(r"https://\1/\2", done.stdout.strip())
    if done.returncode != 0 or not url.startswith(("https://", "http://")):
        return None
    return _CREDENTIALS.sub("", url)


def repository_url(configured: str | None, repo_root: Path) -> str | None:
    """``repo_url`` from mkdocs.yml when set, else the checkout's ``origin`` remote, else None."""
    return configured or origin_url(repo_root)


#: an absolute path in prose, a traceback or a command line (never a URL's path: no scheme or word before it)
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])/(?:[\w.+@-]+/)+[\w.+@-]*")
#: where a path inside a checkout of fwbench (or an installed package) starts to read the same on every machine
_PORTABLE_FROM = (
    "site-packages",
    "dist-packages",
    "runners",
    "fwbench",
    "benchmarks",
    "generator",
    "ecosystem",
    "tests",
    "results",
    "docs",
)


def _portable_path(match: re.Match) -> str:
    parts = match.group(0).strip("/").split("/")
    start = next((i for i, part in enumerate(parts) if part in _PORTABLE_FROM), None)
    if start is None:
        return f"…/{parts[-1]}" if parts[-1] else "…/"
    return ("…/" if parts[start].endswith("-packages") else "") + "/".join(parts[start:])


def portable_paths(text: str) -> str:
    """``text`` without the absolute paths of the machine that recorded or built it: a path inside a checkout or an
    installed package from there (``runners/probes/x.py``, ``…/site-packages/keras/…``), any other as ``…/name``."""
    return _ABSOLUTE_PATH.sub(_portable_path, text)


def _checkout(argv0: PurePosixPath) -> PurePosixPath | None:
    """The recording checkout's root when ``argv[0]`` is a package's ``cli.py`` in it: ``<root>/runners/cli.py``."""
    return argv0.parent.parent if argv0.is_absolute() and argv0.name in ("cli.py", "__main__.py") else None


def _script(argv0: PurePosixPath) -> str:
    """The console script a recorded ``argv[0]`` ran: ``/x/.venv/bin/runners`` and ``/x/runners/cli.py`` are
    both ``runners``."""
    return argv0.parent.name if argv0.name in ("cli.py", "__main__.py") else argv0.name


def portable_command(argv: list[str]) -> list[str]:
    """A recorded command line as it reads from the repository root: the console script by name, paths inside
    the recording checkout made relative, an option whose value is a path elsewhere left out (its default
    applies), any other outside path shortened to ``…/name``."""
    if not argv:
        return []
    first = PurePosixPath(argv[0])
    root = _checkout(first)

    def local(arg: str) -> str | None:
        path = PurePosixPath(arg)
        if not path.is_absolute():
            return arg
        return path.relative_to(root).as_posix() if root and path.is_relative_to(root) else None

    found, rest = [_script(first)], list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg.startswith("-") and rest and local(rest[0]) is None:
            rest.pop(0)  # an option pointing outside the checkout: its default applies
        elif arg.startswith("-"):
            found.append(arg)
        else:
            found.append(local(arg) or f"…/{PurePosixPath(arg).name}")
    return found


def command_line(argv: list[str], tuning: dict[str, str]) -> str:
    """The portable command with the tuning variables it ran with in front, shell-quoted."""
    assignments = [f"{name}={shlex.quote(value)}" for name, value in sorted(tuning.items())]
    return " ".join([*assignments, shlex.join(portable_command(argv))])
