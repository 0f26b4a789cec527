"""One workload's registry entry (``Workload``): what its folder ``runners/workloads/<name>/`` declares in its
``__init__`` as ``WORKLOAD``, and ``discover``, which finds every such folder. Imports no framework and no other
module of fwbench or runners at import, so that reading the entries imports no framework and the registry no cycle:
``fwbench.workload_names`` (the names records carry) and ``runners.workloads`` (the factory of trainers) both read
the entries through ``discover``.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

#: the package holding one folder per workload
WORKLOADS_PACKAGE = "runners.workloads"
#: the article's workload, ResNet-18, and so that of a run record or configuration whose ``model`` names none (every
#: one written before the GPT)
ARTICLE_WORKLOAD = "resnet18"


@dataclass(frozen=True, kw_only=True)
class Workload:
    """Where one workload's modules live and what its throughput counts."""

    name: str  # the key in ``--workload`` and in records, and the name of its folder (``runners/workloads/<name>/``)
    arch: str  # module: sizes, ``trainable_param_count``, the FLOPs function, ``init_weights(seed)``
    #: module: ``learning_rates(batch_size, total_steps)`` and ``describe(batch_size, total_steps)`` (the recipe's
    #: schedule: the GPT's recipe module holds it, ResNet-18's is ``runners.workloads.lr_schedule``)
    lr_schedule: str
    data: str  # module: ``load(dataset, data_dir, train, test, progress)`` → a Dataset with ``train_batches``,
    #: ``test_batches`` and ``score`` (what ``runners.measure.run`` calls, the same for every workload)
    datasets: tuple[str, ...]  # the data sets it trains on (``--dataset``), the first its quick profile's
    trainers: str  # ``{framework}`` → the module holding that framework's ``Trainer``
    sample: str  # what one "sample" of a throughput figure is: ``image`` or ``token``
    flops: str  # the ``arch`` function giving forward FLOPs per sample (a training step costs three times it)
    precisions: tuple[str, ...]  # the precision policies its trainers apply
    model_name: str  # the record's ``model.name``
    #: the field of the ``arch`` sizes giving samples per item a batch holds (the GPT's context); empty: one per item
    samples_per_item: str = ""
    #: the ``arch`` mapping of the named sizes a configuration may choose (``RunConfig.size``), its first the default;
    #: empty: the workload has one size, and its ``arch`` functions take none
    sizes: str = ""
    #: the size chosen (``at``); None: the default
    size: str | None = None
    #: the module naming its attention paths (``PATHS``, ``default_path``, ``check``); empty: it has no attention
    attention: str = ""
    #: its place in tables, menus and ``--workload``'s choices, lowest first; a workload added later goes last
    display_order: int = 100
    #: how a heading names it where its tables stand beside another workload's (English, translated on the site:
    #: ``generator.catalogue`` collects it from the registry); empty: its name. The article's is never named
    words: str = ""

    @property
    def package(self) -> str:
        """Its folder as a package: its registry entry (``__init__``), its modules and its profiles
        (``profiles.json``)."""
        return f"{WORKLOADS_PACKAGE}.{self.name}"

    def trainer_module(self, framework: str) -> str:
        """The module holding framework ``framework``'s ``Trainer`` for this workload."""
        return self.trainers.format(framework=framework)

    def module(self, part: str) -> ModuleType:
        """This workload's ``arch``, ``lr_schedule``, ``data`` or ``attention`` module (imports no framework)."""
        return importlib.import_module(getattr(self, part))

    def check_precision(self, policy: str) -> None:
        """ValueError unless this workload's trainers apply precision ``policy``."""
        if policy not in self.precisions:
            raise ValueError(f"precision {policy!r}: the {self.name} trainers apply {', '.join(self.precisions)}")

    def trainer_class(self, framework: str) -> type:
        """Framework ``framework``'s ``Trainer`` class for this workload; imports that framework."""
        return importlib.import_module(self.trainer_module(framework)).Trainer

    @property
    def rate_field(self) -> str:
        """The record's ``timing`` field of its throughput: ``images_per_second`` or ``tokens_per_second``."""
        return f"{self.sample}s_per_second"

    def at(self, size: str | None) -> Workload:
        """This workload at the named ``size`` (None: its default), its ``model_name`` the size's
        (``gpt-gpt2-small``); ValueError naming the sizes it has."""
        if size is None:
            return self
        named = getattr(self.module("arch"), self.sizes) if self.sizes else {}
        if size not in named:
            raise ValueError(f"size {size!r}: {self.name} has {', '.join(named) or 'one size only'}")
        return dataclasses.replace(self, size=size, model_name=f"{self.name}-{size}")

    def arch_config(self) -> Any:
        """The sizes of the model at the chosen size (the GPT's ``GPTConfig``); None for a workload of one size."""
        if not self.sizes:
            return None
        named = getattr(self.module("arch"), self.sizes)
        return named[self.size or next(iter(named))]

    def model_options(self) -> dict[str, Any]:
        """What the ``arch`` functions, the data's ``load`` and the ``Trainer`` take to build the chosen size
        (``config``); empty for a workload of one size."""
        return {"config": self.arch_config()} if self.sizes else {}

    def samples_per(self) -> int:
        """Samples (images, tokens) in one item of a batch: 1 for an image, the context for a token sequence."""
        return getattr(self.arch_config(), self.samples_per_item) if self.samples_per_item else 1

    def trainable_params(self) -> int:
        """Trainable parameters of the model at the chosen size."""
        return self.module("arch").trainable_param_count(**self.model_options())

    def flops_per_sample(self) -> int:
        """Forward FLOPs per sample of the model at the chosen size: MFU = 3 × this × samples/s ÷ the device's
        peak."""
        return getattr(self.module("arch"), self.flops)(**self.model_options())

    def attention_path(self, asked: str | None, precision: str) -> str | None:
        """The attention path a configuration builds: the one ``asked`` for, else its precision's; None for a
        workload without attention."""
        if not self.attention:
            return None
        return asked or self.module("attention").default_path(precision)

    def check_attention(self, asked: str | None, framework: str) -> None:
        """ValueError unless ``asked`` is None or a path of this workload's that ``framework`` builds."""
        if asked is None:
            return
        if not self.attention:
            raise ValueError(f"attention {asked!r}: {self.name} has no attention")
        self.module("attention").check(asked, framework)

    def trainer_options(self, attention: str | None, precision: str) -> dict[str, Any]:
        """The ``Trainer``'s own arguments for the chosen size and attention path (``make_trainer``'s
        ``options``)."""
        path = self.attention_path(attention, precision)
        return {**self.model_options(), **({"attention": path} if path else {})}


def discover(path: Iterable[str] | None = None) -> dict[str, Workload]:
    """Every workload folder's entry, by name, in display order (``Workload.display_order``, then name).

    ``path``: the folders to scan, by default the package's ``__path__``, so that a folder outside the repository
    joins by being added to it (a plug-in, or a test's stand-in) before the modules that copy the names are imported
    (``runners.workloads`` passes its own while it is being imported). Only packages are entries: the modules beside
    them (the shared schedule, the parity captures) are not. ValueError when a folder's entry is named otherwise or a
    name is taken twice."""
    if path is None:
        path = importlib.import_module(WORKLOADS_PACKAGE).__path__
    entries: list[Workload] = []
    for found in pkgutil.iter_modules(list(path)):
        if not found.ispkg:
            continue
        entry = importlib.import_module(f"{WORKLOADS_PACKAGE}.{found.name}").WORKLOAD
        if entry.name != found.name:
            raise ValueError(f"{WORKLOADS_PACKAGE}.{found.name}: its entry is named {entry.name!r}")
        entries.append(entry)
    names = [entry.name for entry in entries]
    taken = sorted({name for name in names if names.count(name) > 1})
    if taken:
        raise ValueError(f"workload name {', '.join(taken)} is registered twice")
    return {entry.name: entry for entry in sorted(entries, key=lambda entry: (entry.display_order, entry.name))}
