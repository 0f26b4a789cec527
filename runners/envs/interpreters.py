"""Interpreter discovery: which Python runs each framework's configurations, and what that Python holds of it.

A framework may run in another interpreter than this one (``--python``, ``$FWBENCH_PYTHON_<NAME>``, the
environment of another version, ``runners.envs.versions``, or on the GPU its CUDA environment, ``runners.envs.gpu``), so
what it holds is asked there, by one query (``VERSION_QUERY``) that the matrix (is it there, at which version?)
and ``runners.envs.build`` (does a fresh environment import it at the version it was built for?) share.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field

from fwbench.frameworks import framework

#: Run by an interpreter as ``python -c VERSION_QUERY find|import MODULE DISTRIBUTION…``: exit 3 when the module
#: cannot be found (looking for a dotted module imports its parent package, ``flax`` for ``flax.nnx``), exit 1
#: with its traceback when ``import`` is asked and it fails to import; else print the version of the first of the
#: distributions installed, from its metadata (nothing when none is).
VERSION_QUERY = """import importlib, importlib.metadata, importlib.util, sys
how, module, distributions = sys.argv[1], sys.argv[2], sys.argv[3:]
if importlib.util.find_spec(module) is None:
    print(f"no module named {module}", file=sys.stderr)
    sys.exit(3)
if how == "import":
    importlib.import_module(module)
for distribution in distributions:
    try:
        print(importlib.metadata.version(distribution))
        break
    except importlib.metadata.PackageNotFoundError:
        pass
"""


@dataclass(frozen=True)
class Installation:
    """A framework as an interpreter has it."""

    available: bool
    version: str | None
    error: str = ""  # why it is not available: the interpreter's last line on stderr, or why it gave no answer


def installation(python: str, name: str, *, imports: bool = False, timeout_s: float = 120) -> Installation:
    """Whether framework ``name`` is there in interpreter ``python`` (``imports``: and imports), and its version
    there (``VERSION_QUERY``, run in that interpreter)."""
    entry = framework(name)
    how = "import" if imports else "find"
    try:
        query = subprocess.run(
            [python, "-c", VERSION_QUERY, how, entry.import_name, *entry.distributions],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Installation(False, None, str(exc))
    error = "" if query.returncode == 0 else (query.stderr.strip().splitlines() or ["no output"])[-1]
    return Installation(query.returncode == 0, query.stdout.strip() or None, error)


#: where a framework's interpreter may be set by a machine's environment (``FWBENCH_PYTHON_TORCH``): each node of a
#: cluster names its own, when ``--python`` does not
PYTHON_ENV = "FWBENCH_PYTHON_{}"


@dataclass
class Interpreters:
    """The interpreter of each framework (and framework version) on one machine, and what each holds, asked once."""

    pythons: dict[str, str] = field(default_factory=dict)  # framework → interpreter (``--python``)
    #: (framework, version) → the interpreter of that version's environment (``runners.envs.versions``, ``--versions``)
    interpreters: dict[tuple[str, str], str] = field(default_factory=dict)
    #: framework → the interpreter of its CUDA environment, for a run on the GPU (``runners.envs.gpu``)
    cuda: dict[str, str] = field(default_factory=dict)
    _installations: dict[tuple[str, str], Installation] = field(default_factory=dict)

    def python_for(self, name: str, version: str | None = None) -> str:
        """The interpreter that runs framework ``name``'s configurations (at ``version``): the environment of that
        version (``interpreters``), else ``pythons``' entry, else ``$FWBENCH_PYTHON_<NAME>`` (``PYTHON_ENV``), else
        its CUDA environment (``cuda``), else this one."""
        return (
            self.interpreters.get((name, version))
            or self.pythons.get(name)
            or os.environ.get(PYTHON_ENV.format(name.upper()))
            or self.cuda.get(name)
            or sys.executable
        )

    def installation(self, name: str) -> Installation:
        """Whether framework ``name`` is found in its interpreter, and its version there: asked once, in that
        interpreter, which may be another environment than this one."""
        key = (self.python_for(name), name)
        if key not in self._installations:
            self._installations[key] = installation(key[0], name)
        return self._installations[key]

    def available(self, name: str) -> bool:
        """Whether framework ``name`` is found in its interpreter."""
        return self.installation(name).available

    def framework_version(self, name: str) -> str | None:
        """Framework ``name``'s version in its interpreter (None when not installed there)."""
        return self.installation(name).version
