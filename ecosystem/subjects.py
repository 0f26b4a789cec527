"""What the collectors ask about for each framework: its Stack Overflow tags, GitHub repositories and PyPI
distributions, as the framework registry (``fwbench.frameworks``) lists them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fwbench import frameworks


@dataclass(frozen=True)
class Subjects:
    """The Stack Overflow tags, GitHub repositories and PyPI distributions of one or more frameworks."""

    tags: tuple[str, ...]
    repos: tuple[str, ...]  # owner/name
    packages: tuple[str, ...]


def subjects_of(names: Iterable[str] | None = None) -> Subjects:
    """The subjects of the frameworks ``names`` (default: every registered one), in the registry's order;
    ValueError naming an unknown framework."""
    chosen = set(frameworks.FRAMEWORKS if names is None else names)
    unknown = chosen - set(frameworks.REGISTRY)
    if unknown:
        raise ValueError(
            f"no ecosystem subjects for {', '.join(sorted(unknown))}; known: {', '.join(frameworks.FRAMEWORKS)}"
        )
    picked = [entry for name, entry in frameworks.REGISTRY.items() if name in chosen]
    return Subjects(
        tags=tuple(t for f in picked for t in f.stackoverflow_tags),
        repos=tuple(r for f in picked for r in f.github_repos),
        packages=tuple(p for f in picked for p in f.pypi_packages),
    )
