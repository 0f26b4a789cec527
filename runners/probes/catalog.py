"""What the suite probes: the frameworks, bugs and modes, and what a good error message for each bug names.

The planted line of a probe is found by reading its program file for the ``# PLANTED: <bug>`` marker,
so the programs can be edited freely without line numbers going stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fwbench.frameworks import REGISTRY, framework

#: the frameworks the probes cover: those with probe modes (PyTorch via torchax has none: its errors are PyTorch's
#: or JAX's, which the probes of those two capture)
FRAMEWORKS = tuple(name for name, entry in REGISTRY.items() if entry.probe_modes)
BUGS = ("dense_shape", "dtype", "loss_shape", "nan")
#: every mode any framework is probed in (its ``probe_modes``): unlike training, the probes run JAX op by op too
MODES = tuple(dict.fromkeys(mode for entry in REGISTRY.values() for mode in entry.probe_modes))

#: the framework folders, each holding its probe program (``probes.py``)
FRAMEWORKS_DIR = Path(__file__).resolve().parents[1] / "frameworks"
REPO_ROOT = FRAMEWORKS_DIR.parents[1]

#: the offending shapes (their distinctive sizes), dtypes or value that a helpful message names.
#: dense_shape: the body emits 128 features, the head declares 64; loss_shape: 10 logits vs 7-class
#: one-hot targets; dtype: float64 data into a float32 model.
EXPECTED_TOKENS = {
    "dense_shape": ("128", "64"),
    "dtype": ("float64", "float32"),
    "loss_shape": ("10", "7"),
    "nan": ("nan",),
}

#: the layer a helpful message names (the name the probe program gives it); None where no layer is at fault.
#: Naming the layer's class in the framework (the registry's ``layer_class``) also counts as naming the layer.
LAYER_NAMES = {"dense_shape": "head", "dtype": "body", "loss_shape": None, "nan": None}


@dataclass(frozen=True)
class ProbeSpec:
    """One probe: a bug in one framework and mode; ``tooling`` (NaN checks on/off) only for the NaN bug;
    ``version`` the framework release asked for (``runners probes --versions``), None for the installed one."""

    framework: str
    bug: str
    mode: str
    tooling: bool | None = None
    version: str | None = None

    @property
    def record_id(self) -> str:
        """File-name-safe id, unique per framework, bug, mode, tooling and asked-for version: the installed
        version's probes keep the id they always had, so another version's never overwrite them."""
        suffix = "" if self.tooling is None else f"-tooling-{'on' if self.tooling else 'off'}"
        version = "" if self.version is None else f"-{self.version}"
        return f"{self.bug}-{self.framework}{version}-{self.mode}{suffix}"

    @property
    def label(self) -> str:
        """Short human-readable name for progress bars and tables."""
        tooling = "" if self.tooling is None else f" tooling={'on' if self.tooling else 'off'}"
        version = "" if self.version is None else f" {self.version}"
        return f"{self.framework}{version} {self.bug} {self.mode}{tooling}"


def all_specs(frameworks=FRAMEWORKS, bugs=BUGS, modes=MODES, tooling=(False, True), versions=None) -> list[ProbeSpec]:
    """Every probe in the given subsets, in a stable order (framework, version, bug, mode, tooling); a mode a
    framework is not probed in is left out for it. ``versions``: framework -> the releases to probe (None for the
    installed one); default the installed one of each."""
    specs = []
    for name in frameworks:
        for version in (versions or {}).get(name, [None]):
            for bug in bugs:
                for mode in (m for m in modes if m in framework(name).probe_modes):
                    if bug == "nan":
                        specs.extend(ProbeSpec(name, bug, mode, on, version) for on in tooling)
                    else:
                        specs.append(ProbeSpec(name, bug, mode, version=version))
    return specs


def program_module(framework: str) -> str:
    """The import name of the probe program of ``framework``."""
    return f"{REGISTRY[framework].package}.probes"


def program_path(framework: str) -> Path:
    """The probe program file of ``framework``."""
    return FRAMEWORKS_DIR / framework / "probes.py"


@cache
def planted_line(framework: str, bug: str) -> int:
    """1-based line of the ``# PLANTED: <bug>`` marker in the framework's program; exactly one must exist."""
    path = program_path(framework)
    marker = re.compile(rf"#\s*PLANTED:\s*{re.escape(bug)}\b")
    source = path.read_text(encoding="utf-8").splitlines()
    lines = [number for number, text in enumerate(source, 1) if marker.search(text)]
    if len(lines) != 1:
        raise ValueError(f"{path}: expected exactly one '# PLANTED: {bug}' marker, found {len(lines)}")
    return lines[0]


def relative_to_repo(path: Path) -> str:
    """``path`` relative to the repository root, with forward slashes (as stored in records)."""
    return path.resolve().relative_to(REPO_ROOT).as_posix()
