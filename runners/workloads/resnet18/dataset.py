"""What every ResNet-18 run reads: a data set (``Dataset``) and the framework-neutral pipeline that batches it, where
data sets are kept (``default_data_dir``) and the error when one cannot be had (``DataError``). Below the modules that
make data sets (``cifar_archive``, ``data``), so that both can use them.

All three frameworks receive bytes made here, in NumPy, from (dataset, seed, epoch, batch size):
the same order, the same augmentation (pad-4 random crop, horizontal flip), the same normalisation, with the
constants of ``runners.workloads.resnet18.recipe``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from runners.workloads.resnet18.recipe import CROP_PADDING, FLIP_PROBABILITY, MEAN, STD

DATA_DIR_ENV = "FWBENCH_DATA_DIR"


class DataError(RuntimeError):
    """A data set that cannot be found, fetched, verified or parsed; the message says what to do."""


@dataclass(frozen=True)
class Dataset:
    """Images as uint8 NHWC and int32 labels. The three methods are what ``runners.measure.run`` asks of every
    workload's data set (the GPT's: ``runners.workloads.gpt.data``)."""

    name: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray

    def train_batches(self, seed: int, epoch: int, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """One epoch's augmented images and labels (``epoch_batches``)."""
        return epoch_batches(self.train_images, self.train_labels, seed, epoch, batch_size)

    def test_batches(self, batch_size: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The test images in whole batches (``eval_batches``), placeholder labels of their shape (evaluation reads
        ``test_labels``), and the number of real images."""
        x, n = eval_batches(self.test_images, batch_size)
        return x, np.zeros(x.shape[:2], np.int32), n

    def score(self, logits: np.ndarray) -> tuple[float, float]:
        """Test loss and accuracy from the logits of ``test_batches``' images, in order, padding included."""
        return loss_and_accuracy(logits[: len(self.test_labels)], self.test_labels)


def default_data_dir() -> Path:
    """``$FWBENCH_DATA_DIR`` if set, else ``~/.cache/fwbench/data``."""
    return Path(os.environ.get(DATA_DIR_ENV) or Path.home() / ".cache" / "fwbench" / "data")


# --- The pipeline ------------------------------------------------------------------------------------


def normalize(images: np.ndarray) -> np.ndarray:
    """uint8 NHWC → float32, scaled to [0, 1] and standardised per channel."""
    return ((images.astype(np.float32) / 255.0) - MEAN) / STD


def augment(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Pad-4 random crop and random horizontal flip, vectorised over the whole set."""
    n, size = len(images), images.shape[1]
    pad = CROP_PADDING
    padded = np.pad(images, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    top = rng.integers(0, 2 * pad + 1, n)
    left = rng.integers(0, 2 * pad + 1, n)
    flip = rng.random(n) < FLIP_PROBABILITY
    offsets = np.arange(size)
    rows = top[:, None] + offsets  # n×size
    cols = left[:, None] + offsets
    cols = np.where(flip[:, None], cols[:, ::-1], cols)
    return padded[np.arange(n)[:, None, None], rows[:, :, None], cols[:, None, :]]


def _check_batch_size(batch_size: int) -> None:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch size must be a positive integer, got {batch_size!r}")


def epoch_batches(
    images: np.ndarray, labels: np.ndarray, seed: int, epoch: int, batch_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """One epoch as ``(steps, batch, 32, 32, 3)`` float32 and ``(steps, batch)`` int32, ``drop_last``.

    The order and augmentation depend on (seed, epoch) only, not on the batch size.
    """
    _check_batch_size(batch_size)
    steps = len(images) // batch_size
    if steps == 0:
        raise ValueError(f"{len(images)} images make no full batch of {batch_size}")
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(images))
    # crops and flips are drawn for every image before drop_last, so they don't depend on the batch size
    kept = steps * batch_size
    x = normalize(augment(images[order], rng)[:kept])
    return x.reshape(steps, batch_size, *x.shape[1:]), labels[order[:kept]].reshape(steps, batch_size)


def eval_batches(images: np.ndarray, batch_size: int) -> tuple[np.ndarray, int]:
    """The test set normalised, padded with zero images to whole batches (so compiled shapes never change).

    Returns the ``(steps, batch, 32, 32, 3)`` array and the number of real images; callers drop the padding.
    """
    _check_batch_size(batch_size)
    n = len(images)
    steps = -(-n // batch_size)
    x = np.zeros((steps * batch_size, *images.shape[1:]), np.float32)
    x[:n] = normalize(images)
    return x.reshape(steps, batch_size, *images.shape[1:]), n


def loss_and_accuracy(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Mean softmax cross-entropy and accuracy, computed in float64 NumPy for every framework alike."""
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[np.arange(len(labels)), labels].mean()
    return float(loss), float((logits.argmax(axis=1) == labels).mean())
