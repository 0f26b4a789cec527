"""The workloads fwbench trains: one folder each, found by scanning, and the one factory of their trainers.

A workload is one folder, ``runners/workloads/<name>/``, whose ``__init__`` declares its entry (``WORKLOAD``, a
``fwbench.workload_entry.Workload``: the modules that make it, what a sample is, its display order and heading words)
and imports nothing else; ``profiles.json`` beside it, where it has one, holds its profiles
(``runners.measure.profile_loading``). ``WORKLOADS`` is every such folder on this package's path; nothing else
lists them.
A workload is an architecture as framework-neutral data (``arch``: sizes, parameters, FLOPs per sample, initial
weights in NumPy), its recipe's learning-rate schedule (``lr_schedule``), its data (``data``) and one module per
framework holding that framework's model and ``Trainer`` (the protocol of ``runners.frameworks.trainer``).
ResNet-18 is the folder ``runners.workloads.resnet18``, the GPT ``runners.workloads.gpt`` (docs/design.md,
"Workloads"); each framework's model and ``Trainer`` of a workload are in its folder, ``runners.frameworks.<name>``,
in the module named after the workload;
``lr_schedule`` is the learning-rate table both follow. Importing this package imports no framework. With
``runners.frameworks`` it is the bottom layer: it imports no other runners package, except the workloads' parity
and reference-loss checks, which train through a run (``runners.measure``: tests/runners/test_runners_layers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fwbench.workload_entry import ARTICLE_WORKLOAD, Workload, discover

if TYPE_CHECKING:
    import numpy as np

    from runners.frameworks.trainer import Trainer


#: the workload of a configuration or record that names none: the article's
DEFAULT_WORKLOAD = ARTICLE_WORKLOAD

#: every workload folder's entry, by name, in display order (``fwbench.workload_entry.discover``)
WORKLOADS: dict[str, Workload] = discover(__path__)


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
    from runners.frameworks import trainer  # imports numpy: not needed to read the entries

    spec = workload(name)
    spec.check_precision(precision)
    return trainer.make_trainer(
        framework, weights, mode, device, dtype, precision, module=spec.trainer_module(framework), **options
    )
