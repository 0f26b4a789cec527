"""One framework's registry entry (``Framework``): what its folder ``runners/frameworks/<name>/`` declares in its
``__init__`` as ``FRAMEWORK``, where ``fwbench.frameworks`` finds it. Imports nothing, so that an entry imports no
framework and the registry no cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the package holding one folder per framework
FRAMEWORKS_PACKAGE = "runners.frameworks"


@dataclass(frozen=True, kw_only=True)
class Framework:
    """Everything fwbench needs to know about one framework, under its record key ``name``."""

    name: str  # the key in records and ``--frameworks``, and the name of its folder (``runners/frameworks/<name>/``)
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
    #: the text of its out-of-memory errors, by type name or its allocator's message (``runners.measure.run``): a
    #: run failing with one is recorded as ``oom``, else as an error
    out_of_memory: tuple[str, ...]
    #: its place in tables and charts, lowest first; a framework added later goes after the others by default
    display_order: int = 100
    #: the framework whose ResNet-18 model (``resnet18_model``) it trains (empty: its own): PyTorch via torchax
    #: trains PyTorch's
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
    def package(self) -> str:
        """Its folder as a package: its registry entry (``__init__``) and its modules, one for each workload."""
        return f"{FRAMEWORKS_PACKAGE}.{self.name}"

    @property
    def trainer_module(self) -> str:
        """The module holding this framework's ResNet-18 ``Trainer``."""
        return f"{self.package}.resnet18"

    @property
    def model_module(self) -> str:
        """The module holding the ResNet-18 model it trains (another framework's where ``model_of`` names one)."""
        return f"{FRAMEWORKS_PACKAGE}.{self.model_of or self.name}.resnet18_model"
