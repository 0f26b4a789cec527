"""The one registry of the frameworks fwbench compares: every other framework table is derived from it.

A framework is one folder, ``runners/frameworks/<name>/``, whose ``__init__`` declares its entry (``FRAMEWORK``, a
``fwbench.framework_entry.Framework``); the registry is every such folder found in that package's path, in the
entries' display order. Nothing else lists the frameworks (docs/design.md, "Adding a framework"). Finding them
imports only those ``__init__`` modules, never a framework.
"""

from __future__ import annotations

import importlib
import pkgutil

from fwbench.framework_entry import FRAMEWORKS_PACKAGE, Framework


def discover() -> dict[str, Framework]:
    """Every framework folder's entry, by name, in display order (``Framework.display_order``, then name).

    A folder is found in the package's ``__path__``, so a folder outside the repository joins by being added to it
    (a plug-in, or a test's stand-in) before fwbench's other modules are imported: they copy ``FRAMEWORKS`` when
    imported. ValueError when a folder's entry is named otherwise or a name or an alias is taken twice."""
    package = importlib.import_module(FRAMEWORKS_PACKAGE)
    entries: list[Framework] = []
    for found in pkgutil.iter_modules(package.__path__):
        if not found.ispkg:
            continue  # the protocol and policies every framework shares (trainer, precision)
        entry = importlib.import_module(f"{FRAMEWORKS_PACKAGE}.{found.name}").FRAMEWORK
        if entry.name != found.name:
            raise ValueError(f"{FRAMEWORKS_PACKAGE}.{found.name}: its entry is named {entry.name!r}")
        entries.append(entry)
    names = [name for entry in entries for name in (entry.name, *entry.aliases)]
    taken = sorted({name for name in names if names.count(name) > 1})
    if taken:
        raise ValueError(f"framework name {', '.join(taken)} is registered twice")
    return {entry.name: entry for entry in sorted(entries, key=lambda entry: (entry.display_order, entry.name))}


REGISTRY: dict[str, Framework] = discover()
#: framework keys in display order
FRAMEWORKS: tuple[str, ...] = tuple(REGISTRY)


def measured_on(device: str) -> tuple[str, ...]:
    """The frameworks fwbench measures on ``device`` (cpu, gpu or tpu), in display order."""
    return tuple(name for name, entry in REGISTRY.items() if device in entry.devices)


def why_not_measured(name: str, device: str) -> str | None:
    """Why framework ``name`` is not measured on ``device`` (None where it is, or no reason is recorded)."""
    return dict(REGISTRY[name].not_measured).get(device) if name in REGISTRY else None


#: every mode any framework trains in, compiled first
TRAINING_MODES: tuple[str, ...] = ("compiled", "eager")


def canonical(name: str) -> str:
    """The record key of ``name`` or of one of its aliases (``pytorch`` -> ``torch``); ``name`` itself when unknown."""
    for entry in REGISTRY.values():
        if name == entry.name or name in entry.aliases:
            return entry.name
    return name


def framework(name: str) -> Framework:
    """The registry entry of ``name`` (or an alias); ValueError naming the choices when unknown."""
    key = canonical(name)
    if key not in REGISTRY:
        raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
    return REGISTRY[key]


def label(name: str) -> str:
    """Display name of a framework key (the key itself when unknown, e.g. in an old record)."""
    return REGISTRY[name].label if name in REGISTRY else name
