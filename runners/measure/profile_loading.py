"""The benchmark profiles as stored: ``profiles.json`` beside this module and each workload folder's own, read once,
with the fields a profile inherits from its ``base`` filled in."""

from __future__ import annotations

import importlib
import json
from functools import cache
from pathlib import Path

from runners.workloads import DEFAULT_WORKLOAD, WORKLOADS

PROFILES_FILE = Path(__file__).with_name("profiles.json")


def profile_files() -> list[Path]:
    """Where profiles are kept: ``PROFILES_FILE``, then each workload folder's ``profiles.json`` (a workload's own
    profiles, the GPT's quick-gpt and scale-gpt) in display order, where it has one."""
    folders = [Path(importlib.import_module(w.package).__file__).parent for w in WORKLOADS.values()]
    return [PROFILES_FILE, *(path for folder in folders if (path := folder / "profiles.json").is_file())]


@cache
def load_profiles() -> dict[str, dict]:
    """All profiles by name (``profile_files``), each with the fields it inherits from its ``base`` filled in, which
    may be in another file. ValueError when two files name one profile."""
    raw: dict[str, dict] = {}
    origin: dict[str, Path] = {}
    for path in profile_files():
        for name, spec in json.loads(path.read_text()).items():
            if name.startswith("_"):
                continue
            if name in raw:
                raise ValueError(f"{path}: profile {name!r} is already in {origin[name]}")
            raw[name], origin[name] = spec, path

    def resolved(name: str, seen: tuple[str, ...] = ()) -> dict:
        spec = dict(raw[name])
        base = spec.pop("base", None)
        if base is None:
            return spec
        if base not in raw or base in seen:
            raise ValueError(f"{origin[name]}: {name}.base: {base!r} is not a profile or is its own base")
        return {**resolved(base, (*seen, name)), **spec}

    return {name: resolved(name) for name in raw}


def profile(name: str) -> dict:
    """One profile; ValueError naming the profile when unknown."""
    profiles = load_profiles()
    if name not in profiles:
        raise ValueError(f"profile {name!r}: unknown; choose from {', '.join(profiles)}")
    return profiles[name]


def profile_for(name: str, workload_name: str | None) -> str:
    """The profile that runs ``workload_name`` in the manner of profile ``name``: ``name`` itself when it trains that
    workload (or none is asked for), else the variant its ``workloads`` field names (quick → quick-gpt). ValueError
    naming the profiles that have one when ``name`` has none."""
    spec = profile(name)
    if workload_name is None or spec.get("workload", DEFAULT_WORKLOAD) == workload_name:
        return name
    variant = spec.get("workloads", {}).get(workload_name)
    if variant is None:
        having = [p for p, s in load_profiles().items() if workload_name in s.get("workloads", {})]
        raise ValueError(f"profile {name!r} has no {workload_name} variant; profiles with one: {', '.join(having)}")
    return variant
