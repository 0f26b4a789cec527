"""The one registry of the frameworks fwbench compares: every other framework table is derived from it.

Importing this module imports no framework: it only names the modules that do. Adding a framework is one
``Framework`` entry here plus its files under ``runners/frameworks/`` and ``runners/workloads/`` (docs/design.md,
"Adding a framework").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Framework:
    """Everything fwbench needs to know about one framework, under its record key ``name``."""

    name: str  # the key in records, file names and ``--frameworks`` (``runners/frameworks/<name>_train.py``)
    label: str  # the display name
    aliases: tuple[str, ...] = ()  # other names ``--frameworks`` accepts for it (the project's own name for itself)
    colour: str  # Okabe–Ito palette: distinguishable with every common colour-vision deficiency
    marker: str  # matplotlib marker, so that charts do not rely on colour alone
    import_name: str  # the module that must be importable for the framework to run
    distributions: tuple[str, ...]  # the PyPI distributions that may provide it, the first installed wins
    training_modes: tuple[str, ...]  # JAX has no eager *training* mode: un-jitted JAX is op-by-op dispatch
    probe_modes: tuple[str, ...]  # the probes run every framework both jitted/compiled and op by op
    layer_class: str  # the class name of the dense layer the probes plant bugs in
    companions: tuple[str, ...]  # the distributions it trains through here, whose versions records carry too
    # The ecosystem collectors' subjects: the framework's own first, then the library most of its users train
    # with (Keras on TensorFlow, Flax on JAX), since questions, stars and downloads go to that library too.
    stackoverflow_tags: tuple[str, ...]
    github_repos: tuple[str, ...]  # owner/name
    pypi_packages: tuple[str, ...]
    #: its folders under a run's compile-cache directory (``runners.measure.compile_cache``), where it keeps compiled
    #: code between runs: a run that finds a file in one compiles warm. Required, so that a framework cannot read as
    #: cold by omission; empty only for a framework that keeps no compiled code between runs
    compile_cache: tuple[str, ...]
    package: str = "runners.frameworks"  # where its ``<name>_train`` module lives
    #: where its ``<name>_resnet`` module lives: the ResNet-18 models belong to their workload, as the GPT's do
    model_package: str = "runners.workloads.resnet18"
    #: the framework whose ``<name>_resnet`` module it trains (empty: its own): PyTorch via torchax trains PyTorch's
    model_of: str = ""
    #: the devices fwbench measures it on (``--device``); a matrix on another device leaves it out, and a page of
    #: that device says why (``not_measured``)
    devices: tuple[str, ...] = ("cpu", "gpu")
    #: device → why fwbench does not measure it there (shown on that device's tables)
    not_measured: tuple[tuple[str, str], ...] = ()
    #: its CUDA environment (``runners.envs.gpu``): the ``pyproject.toml`` extra with its GPU companions, and the
    #: extra of its own distribution that brings its CUDA build (``{cuda}``: the CUDA major chosen for the driver;
    #: empty: its wheel is a CUDA build). None: it has none, and building one is an error
    cuda_build: tuple[str, str] | None = None

    @property
    def trainer_module(self) -> str:
        """The module holding this framework's ``Trainer``."""
        return f"{self.package}.{self.name}_train"

    @property
    def model_module(self) -> str:
        """The module holding this framework's ResNet-18."""
        return f"{self.model_package}.{self.model_of or self.name}_resnet"


REGISTRY: dict[str, Framework] = {
    f.name: f
    for f in (
        Framework(
            name="torch",
            label="PyTorch",
            aliases=("pytorch",),
            colour="#D55E00",
            marker="o",
            import_name="torch",
            distributions=("torch",),
            training_modes=("compiled", "eager"),
            probe_modes=("eager", "compiled"),
            layer_class="Linear",
            companions=("numpy",),
            stackoverflow_tags=("pytorch",),
            github_repos=("pytorch/pytorch",),
            pypi_packages=("torch",),
            cuda_build=("gpu-torch", ""),
            compile_cache=("inductor", "triton"),
            not_measured=(("tpu", "PyTorch reaches a TPU through torchax: see PyTorch via torchax"),),
        ),
        Framework(
            name="tensorflow",
            label="TensorFlow",
            aliases=("tf",),
            colour="#009E73",
            marker="s",
            import_name="tensorflow",
            distributions=("tensorflow", "tensorflow-cpu"),
            training_modes=("compiled", "eager"),
            probe_modes=("eager", "compiled"),
            layer_class="Dense",
            companions=("keras", "numpy"),
            stackoverflow_tags=("tensorflow", "keras"),
            github_repos=("tensorflow/tensorflow", "keras-team/keras"),
            pypi_packages=("tensorflow",),
            cuda_build=("gpu-tensorflow", "and-cuda"),
            compile_cache=("tensorflow",),
            not_measured=(
                (
                    "tpu",
                    "TensorFlow reaches a TPU only through its separate TPU build (tensorflow-tpu, several hundred "
                    "megabytes), which fwbench's TPU set-up does not install",
                ),
            ),
        ),
        Framework(
            name="jax",
            label="JAX",
            colour="#0072B2",
            marker="^",
            import_name="flax.nnx",
            distributions=("jax",),
            training_modes=("compiled",),
            probe_modes=("eager", "compiled"),
            layer_class="Linear",
            # the CUDA plugin is a release of its own (jax[cuda13] / jax[cuda12]): a GPU record names it
            companions=("jaxlib", "jax-cuda13-plugin", "jax-cuda12-plugin", "flax", "optax", "numpy"),
            stackoverflow_tags=("jax", "flax"),
            github_repos=("jax-ml/jax", "google/flax"),
            pypi_packages=("jax", "flax"),
            cuda_build=("gpu-jax", "cuda{cuda}"),
            compile_cache=("jax",),
            devices=("cpu", "gpu", "tpu"),
        ),
        Framework(
            # PyTorch's model and recipe run as a JAX program (torchax, from the PyTorch/XLA project): how PyTorch
            # trains on a TPU. Its trainer is functional (jax.value_and_grad, optax), since loss.backward() does not
            # work under torchax; runners/frameworks/torchax_shim.py lets torchax 0.0.13 import on PyTorch >= 2.13.
            name="torchax",
            label="PyTorch via torchax",
            colour="#E69F00",
            marker="D",
            import_name="torchax",
            distributions=("torchax",),
            training_modes=("compiled",),
            probe_modes=(),
            layer_class="Linear",
            companions=("torch", "jax", "jaxlib", "libtpu", "optax", "numpy"),
            stackoverflow_tags=(),
            github_repos=(),
            pypi_packages=("torchax",),
            compile_cache=("jax",),  # it compiles through JAX: its cache is JAX's
            model_of="torch",
            devices=("tpu",),
        ),
    )
}
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


def register(entry: Framework) -> None:
    """Add ``entry`` to the registry, after the others (a plug-in framework, or a test's stand-in).

    Modules copy ``FRAMEWORKS`` when they are imported, so this must run before the rest of fwbench is imported:
    in a fresh process, first thing. ValueError when the name or an alias is taken.
    """
    global FRAMEWORKS
    taken = {n for f in REGISTRY.values() for n in (f.name, *f.aliases)}
    clash = taken & {entry.name, *entry.aliases}
    if clash:
        raise ValueError(f"framework name {', '.join(sorted(clash))} is already registered")
    REGISTRY[entry.name] = entry
    FRAMEWORKS = tuple(REGISTRY)


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
