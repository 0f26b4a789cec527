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


#: per framework, its distributions as PyPI names them: the framework and the libraries most of its users train with
REGISTRY_PACKAGES = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "keras"),
    "jax": ("jax", "jaxlib", "flax", "optax"),
    "torchax": ("torchax",),  # PyTorch on a TPU, through JAX
}
#: a build a user installs instead of another, not beside it: a framework's platforms are those of the others
ALTERNATIVE_BUILDS = {"tensorflow-cpu": "tensorflow"}
#: accelerator builds no resolved stack below pulls in: the TPU ones (the CUDA ones come from the GPU stacks)
TPU_PACKAGES = {"jax": ("libtpu",), "torchax": ("libtpu",)}
#: per framework, the requirements of its whole stack for a CPU and for an NVIDIA GPU on Linux x86-64, as
#: pyproject.toml's extras install them (torchax is a TPU stack: none)
STACKS = {
    "torch": {"cpu": ("torch",), "gpu": ("torch",)},
    "tensorflow": {"cpu": ("tensorflow-cpu", "keras"), "gpu": ("tensorflow[and-cuda]", "keras")},
    "jax": {"cpu": ("jax", "flax", "optax"), "gpu": ("jax[cuda13]", "flax", "optax")},
}
#: the CUDA wheels of a GPU stack, by name: NVIDIA's libraries, its Python bindings, JAX's CUDA plugins
CUDA_PREFIXES = ("nvidia-", "cuda-", "jax-cuda")
#: why a stack's CPU set is what it is, where a user would not guess it
STACK_CAVEATS = {
    "torch": "PyPI's torch for Linux x86-64 is the CUDA build and pulls in the CUDA libraries on a CPU too; the "
    "CPU-only build is on PyTorch's own index (download.pytorch.org), which is not PyPI",
}
