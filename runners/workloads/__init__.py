"""The workloads fwbench trains: name → the modules that make one, and the one factory of its trainers.

A workload is an architecture as framework-neutral data (``arch``: sizes, parameters, FLOPs per sample, initial
weights in NumPy), its recipe's learning-rate schedule (``lr_schedule``), its data (``data``) and one module per
framework holding that framework's model and ``Trainer`` (the protocol of ``runners.frameworks.trainer``).
ResNet-18 is the package ``runners.workloads.resnet18``, the GPT ``runners.workloads.gpt`` (docs/design.md,
"Workloads"); each framework's model and ``Trainer`` of a workload are in its folder, ``runners.frameworks.<name>``,
in the module named after the workload;
``lr_schedule`` is the learning-rate table both follow. Importing this package imports no framework. With
``runners.frameworks`` it is the bottom layer: it imports no other runners package, except the workloads' parity
and reference-loss checks, which train through a run (``runners.measure``: tests/runners/test_runners_layers.py).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from fwbench.workload_names import ARTICLE_WORKLOAD
from runners.frameworks import trainer
from runners.frameworks.trainer import Trainer


@dataclass(frozen=True, kw_only=True)
class Workload:
    """Where one workload's modules live and what its throughput counts."""

    name: str  # the key in ``--workload`` and in records
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

    def trainer_class(self, framework: str) -> type[Trainer]:
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


#: the workload of a configuration or record that names none: the article's
DEFAULT_WORKLOAD = ARTICLE_WORKLOAD

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            name="resnet18",
            arch="runners.workloads.resnet18.arch",
            lr_schedule="runners.workloads.lr_schedule",
            data="runners.workloads.resnet18.data",
            datasets=("synthetic", "cifar10"),
            trainers="runners.frameworks.{framework}.resnet18",
            sample="image",
            flops="flops_per_image",
            precisions=("fp32", "default", "bf16"),
            model_name="resnet18-cifar",
        ),
        Workload(
            name="gpt",
            arch="runners.workloads.gpt.arch",
            lr_schedule="runners.workloads.gpt.recipe",
            data="runners.workloads.gpt.data",
            datasets=("grammar",),
            trainers="runners.frameworks.{framework}.gpt",
            sample="token",
            flops="flops_per_token",
            # bf16: the dense layers, attention and the tied head in bfloat16; the residual stream, embeddings,
            # LayerNorms, softmax and loss in float32, alike in all four (docs/design.md, "Workloads")
            precisions=("fp32", "default", "bf16"),
            model_name="gpt-bytes-6x384",
            samples_per_item="context",
            sizes="SIZES",
            attention="runners.workloads.gpt.attention",
        ),
    )
}


def workload(name: str) -> Workload:
    """The workload named ``name``; ValueError naming the choices otherwise."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; choose from {', '.join(WORKLOADS)}")
    return WORKLOADS[name]


def make_trainer(
    name: str,
    framework: str,
    weights: dict[str, np.ndarray],
    mode: str,
    device: str = "auto",
    dtype: str = "float32",
    precision: str = "fp32",
    **options: Any,
) -> Trainer:
    """A trainer of workload ``name`` in ``framework`` holding ``weights``, made by ``runners.frameworks.trainer``'s
    ``make_trainer`` from the workload's trainer module (mode and precision checked before the framework is
    imported); ``options`` go to the workload's ``Trainer`` (the GPT's ``config`` and ``attention``:
    ``Workload.trainer_options``)."""
    spec = workload(name)
    spec.check_precision(precision)
    return trainer.make_trainer(
        framework, weights, mode, device, dtype, precision, module=spec.trainer_module(framework), **options
    )
