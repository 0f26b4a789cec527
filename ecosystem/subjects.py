"""What the collectors ask about for each framework of the registry (``fwbench.frameworks``).

Each framework comes with the library most of its users train with (Keras on TensorFlow, Flax on JAX), because
questions, stars and downloads go to that library as much as to the framework itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS


@dataclass(frozen=True)
class Subjects:
    """The Stack Overflow tags, GitHub repositories and PyPI distributions of one or more frameworks."""

    tags: tuple[str, ...]
    repos: tuple[str, ...]  # owner/name
    packages: tuple[str, ...]


#: framework key (``fwbench.frameworks.FRAMEWORKS``) -> its subjects; the framework's own first, then its library
BY_FRAMEWORK: dict[str, Subjects] = {
    "torch": Subjects(tags=("pytorch",), repos=("pytorch/pytorch",), packages=("torch",)),
    "tensorflow": Subjects(
        tags=("tensorflow", "keras"), repos=("tensorflow/tensorflow", "keras-team/keras"), packages=("tensorflow",)
    ),
    "jax": Subjects(tags=("jax", "flax"), repos=("jax-ml/jax", "google/flax"), packages=("jax", "flax")),
}


def subjects_of(frameworks: Iterable[str] = FRAMEWORKS) -> Subjects:
    """The subjects of ``frameworks``, in the registry's order; ValueError naming an unknown framework."""
    chosen = set(frameworks)
    unknown = chosen - set(BY_FRAMEWORK)
    if unknown:
        raise ValueError(f"no ecosystem subjects for {', '.join(sorted(unknown))}; known: {', '.join(BY_FRAMEWORK)}")
    picked = [BY_FRAMEWORK[name] for name in FRAMEWORKS if name in chosen]
    return Subjects(
        tags=tuple(t for s in picked for t in s.tags),
        repos=tuple(r for s in picked for r in s.repos),
        packages=tuple(p for s in picked for p in s.packages),
    )
