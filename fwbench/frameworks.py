"""The one registry of the frameworks fwbench compares: every other framework table is derived from it.

Importing this module imports no framework: it only names the modules that do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Framework:
    """Everything fwbench needs to know about one framework, under its record key ``name``."""

    name: str  # the key in records, file names and ``--frameworks`` (``runners/frameworks/<name>_*.py``)
    label: str  # the display name
    colour: str  # Okabe–Ito palette: distinguishable with every common colour-vision deficiency
    marker: str  # matplotlib marker, so that charts do not rely on colour alone
    import_name: str  # the module that must be importable for the framework to run
    distributions: tuple[str, ...]  # the PyPI distributions that may provide it, the first installed wins
    training_modes: tuple[str, ...]  # JAX has no eager *training* mode: un-jitted JAX is op-by-op dispatch
    probe_modes: tuple[str, ...]  # the probes run every framework both jitted/compiled and op by op
    layer_class: str  # the class name of the dense layer the probes plant bugs in
    companions: tuple[str, ...]  # the distributions it trains through here, whose versions records carry too

    @property
    def trainer_module(self) -> str:
        """The module holding this framework's ``Trainer``."""
        return f"runners.frameworks.{self.name}_train"

    @property
    def model_module(self) -> str:
        """The module holding this framework's ResNet-18."""
        return f"runners.frameworks.{self.name}_model"


REGISTRY: dict[str, Framework] = {
    f.name: f
    for f in (
        Framework(
            "torch",
            "PyTorch",
            "#D55E00",
            "o",
            "torch",
            ("torch",),
            ("compiled", "eager"),
            ("eager", "compiled"),
            "Linear",
            ("numpy",),
        ),
        Framework(
            "tensorflow",
            "TensorFlow",
            "#009E73",
            "s",
            "tensorflow",
            ("tensorflow", "tensorflow-cpu"),
            ("compiled", "eager"),
            ("eager", "compiled"),
            "Dense",
            ("keras", "numpy"),
        ),
        Framework(
            "jax",
            "JAX",
            "#0072B2",
            "^",
            "flax.nnx",
            ("jax",),
            ("compiled",),
            ("eager", "compiled"),
            "Linear",
            ("jaxlib", "flax", "optax", "numpy"),
        ),
    )
}
#: framework keys in display order
FRAMEWORKS: tuple[str, ...] = tuple(REGISTRY)
#: every mode any framework trains in, compiled first
TRAINING_MODES: tuple[str, ...] = ("compiled", "eager")


def framework(name: str) -> Framework:
    """The registry entry of ``name``; ValueError naming the choices when unknown."""
    if name not in REGISTRY:
        raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
    return REGISTRY[name]


def label(name: str) -> str:
    """Display name of a framework key (the key itself when unknown, e.g. in an old record)."""
    return REGISTRY[name].label if name in REGISTRY else name
