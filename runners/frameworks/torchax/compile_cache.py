"""PyTorch via torchax compiles through JAX: its compile cache is JAX's, set by the same variables."""

from __future__ import annotations

from runners.frameworks.jax.compile_cache import variables

__all__ = ["variables"]
