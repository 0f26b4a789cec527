"""Which interpreter probes each framework version (``runners probes --versions``): the installed version in this
one, any other in that version's probe environment (``runners envs``), built first, as ``runners matrix
--versions`` does for training.

A probe environment is the version set's: the same as training's, except where the set has ``probe_packages``,
the article's own install (TensorFlow 2.15 with its Keras 2.15, which the article's messages came from, where the
training code needs Keras 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fwbench.cliargs import UsageError
from runners.envs import versions as envs
from runners.envs.versions import parse_versions
from runners.measure import provenance

#: the values of ``--versions`` that name a version of every framework selected
FOR_EVERY_FRAMEWORK = (envs.INSTALLED, envs.ARTICLE)


@dataclass(frozen=True)
class Interpreter:
    """Where one framework version's probes run: ``python`` (None: this interpreter), in ``environment`` (the
    environment's directory name, None for this interpreter)."""

    python: str | None = None
    environment: str | None = None


def requested_versions(values: list[str] | None, frameworks: tuple[str, ...]) -> dict[str, list[str]]:
    """``--versions`` values as framework -> the versions asked for (``installed``, ``article`` or releases):
    ``installed``/``article`` for every framework in ``frameworks``, ``FRAMEWORK=V1,V2`` for one; default the
    installed version of each. UsageError naming the flag and the bad value."""
    wanted: dict[str, list[str]] = {}
    for value in values or [envs.INSTALLED]:
        if value in FOR_EVERY_FRAMEWORK:
            pairs = {name: [value] for name in frameworks}
        elif "=" not in value:
            raise UsageError(f"--versions {value!r}: expected {' or '.join(FOR_EVERY_FRAMEWORK)} or FRAMEWORK=V1,V2")
        else:
            pairs = {name: listed for name, listed in parse_versions([value]).items() if name in frameworks}
        for name, listed in pairs.items():
            wanted.setdefault(name, []).extend(v for v in listed if v not in wanted.get(name, []))
    return wanted


def check_versions(wanted: dict[str, list[str]]) -> dict[str, list[tuple[str, bool]]]:
    """Framework -> (version, needs an environment) for each version asked for (``envs.resolve``), without building
    anything. UsageError naming ``--versions`` for a version that cannot be had."""
    checked = {}
    try:
        for name, asked in wanted.items():
            checked[name] = envs.resolve(name, asked, provenance.framework_version(name))
            if any(version is None for version, _ in checked[name]):
                raise UsageError(f"--versions {name}={envs.INSTALLED}: {name} is not installed in this Python")
    except envs.EnvError as exc:
        raise UsageError(f"--versions: {exc}") from None
    return checked


def build_interpreters(
    checked: dict[str, list[tuple[str, bool]]], build=envs.build, log=print
) -> tuple[dict[str, list[str | None]], dict[tuple[str, str | None], Interpreter]]:
    """The versions to probe per framework (None for the installed one, which keeps its record ids) and where each
    runs, building the probe environments needed first (``build``, default ``envs.build`` of the probe variant)."""
    versions: dict[str, list[str | None]] = {}
    where: dict[tuple[str, str | None], Interpreter] = {}
    for name, resolved in checked.items():
        for version, own_environment in resolved:
            if not own_environment:
                versions.setdefault(name, []).append(None)
                where[name, None] = Interpreter()
                continue
            try:
                python = Path(build(name, version, log=log, variant=envs.PROBE))
            except envs.EnvError as exc:
                raise UsageError(f"--versions: {exc}") from None
            versions.setdefault(name, []).append(version)
            where[name, version] = Interpreter(str(python), python.parent.parent.name)
    return versions, where
