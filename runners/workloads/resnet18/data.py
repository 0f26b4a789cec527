"""The ResNet-18 workload's data entry (``load``): CIFAR-10 from its archive (``cifar_archive``), or a synthetic
CIFAR-shaped set drawn here, each a ``dataset.Dataset``."""

from __future__ import annotations

import contextlib
import os
import zipfile
from pathlib import Path

import numpy as np

from runners.workloads.resnet18 import arch
from runners.workloads.resnet18.cifar_archive import load_cifar10
from runners.workloads.resnet18.dataset import DataError, Dataset, default_data_dir

SYNTHETIC_SEED = 20240601  # the synthetic set is one fixed data set, like CIFAR-10; run seeds don't change it


def synthetic(train_size: int, test_size: int, seed: int = SYNTHETIC_SEED) -> Dataset:
    """A deterministic, learnable CIFAR-shaped set: each class is a smooth colour pattern plus noise.

    The patterns are coarse (8×8 upsampled), so random crops and flips keep the class visible; the
    noise keeps it from being trivial. Labelled ``synthetic`` everywhere; never compared to CIFAR-10.
    """
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 255, (arch.NUM_CLASSES, 8, 8, 3))
    prototypes = coarse.repeat(4, axis=1).repeat(4, axis=2)  # 10×32×32×3

    def draw(n: int) -> tuple[np.ndarray, np.ndarray]:
        labels = rng.integers(0, arch.NUM_CLASSES, n).astype(np.int32)
        noise = rng.normal(0.0, 60.0, (n, 32, 32, 3))
        return np.clip(0.6 * prototypes[labels] + 0.4 * 128 + noise, 0, 255).astype(np.uint8), labels

    return Dataset("synthetic", *draw(train_size), *draw(test_size))


#: a synthetic set of this many training images or more is kept on disk once drawn (``kept_synthetic``)
KEEP_SYNTHETIC_FROM = 10_000


def kept_synthetic(train_size: int, test_size: int, directory: Path) -> Dataset:
    """``synthetic``, kept in ``directory`` once drawn: drawing a TPU profile's 32,768 images takes 7 s, in every
    run of a matrix. A kept file that cannot be read is drawn again; one that cannot be written is not kept."""
    path = directory / f"synthetic-{SYNTHETIC_SEED}-{train_size}-{test_size}.npz"
    with contextlib.suppress(OSError, ValueError, KeyError, zipfile.BadZipFile), np.load(path) as kept:
        return Dataset("synthetic", *(kept[name] for name in KEPT_ARRAYS))
    dataset = synthetic(train_size, test_size)
    with contextlib.suppress(OSError):
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")  # runs of a matrix may draw it at once
        with partial.open("wb") as out:
            np.savez(out, **{name: getattr(dataset, name) for name in KEPT_ARRAYS})
        os.replace(partial, path)
    return dataset


#: the arrays of a kept synthetic set, in ``Dataset``'s order
KEPT_ARRAYS = ("train_images", "train_labels", "test_images", "test_labels")


def load(
    name: str, data_dir: Path | None, train_size: int | None, test_size: int | None, progress: bool = True
) -> Dataset:
    """The named dataset, cut to the first ``train_size``/``test_size`` images when given."""
    if name == "synthetic":
        train_size, test_size = train_size or 50_000, test_size or 10_000
        if train_size >= KEEP_SYNTHETIC_FROM:
            return kept_synthetic(train_size, test_size, data_dir or default_data_dir())
        return synthetic(train_size, test_size)
    if name != "cifar10":
        raise DataError(f"unknown dataset {name!r}; use cifar10 or synthetic")
    full = load_cifar10(data_dir, progress=progress)
    return Dataset(
        full.name,
        full.train_images[:train_size],
        full.train_labels[:train_size],
        full.test_images[:test_size],
        full.test_labels[:test_size],
    )
