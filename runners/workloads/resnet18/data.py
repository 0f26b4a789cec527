"""Datasets and the framework-neutral input pipeline.

All three frameworks receive bytes made here, in NumPy, from (dataset, seed, epoch, batch size):
the same order, the same augmentation (pad-4 random crop, horizontal flip), the same normalisation, with the
constants of ``runners.workloads.resnet18.recipe``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import os
import pickle
import tarfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fwbench.progress import progress_bar
from runners.workloads.resnet18 import arch
from runners.workloads.resnet18.recipe import CROP_PADDING, FLIP_PROBABILITY, MEAN, STD

CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_FILE = "cifar-10-python.tar.gz"
CIFAR10_DIR = "cifar-10-batches-py"
CIFAR10_SIZE = 170_498_071
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST_BATCH = "test_batch"
DATA_DIR_ENV = "FWBENCH_DATA_DIR"
SYNTHETIC_SEED = 20240601  # the synthetic set is one fixed data set, like CIFAR-10; run seeds don't change it


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


# --- CIFAR-10 -------------------------------------------------------------------------------------


def file_md5(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _archive_problem(path: Path, size: int, md5: str) -> str | None:
    """Why ``path`` is not the expected archive, or None when its size and MD5 match."""
    actual_size = path.stat().st_size
    if actual_size != size:
        return f"size is {actual_size:,} bytes, expected {size:,} (truncated or wrong file)"
    actual_md5 = file_md5(path)
    if actual_md5 != md5:
        return f"MD5 is {actual_md5}, expected {md5} (corrupt or wrong file)"
    return None


def verify_archive(path: Path, size: int = CIFAR10_SIZE, md5: str = CIFAR10_MD5) -> None:
    """Raise DataError naming ``path`` unless it has the expected size and MD5."""
    problem = _archive_problem(path, size, md5)
    if problem:
        raise DataError(f"{path}: {problem}; delete it and download it again")


def download(url: str, dest: Path, size: int = CIFAR10_SIZE, md5: str = CIFAR10_MD5, progress: bool = True) -> Path:
    """Download ``url`` to ``dest`` through a temporary file, verify it, then rename: no half file is left.

    The bar (``progress``) is drawn only on a terminal.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.part")
    offline = (
        f"Put {CIFAR10_FILE} (or the extracted {CIFAR10_DIR}/) in {dest.parent}, pass --data-dir, "
        f"or use --dataset synthetic, which works offline"
    )
    try:
        with urllib.request.urlopen(url, timeout=30) as response, open(tmp, "wb") as out:
            total = int(response.headers.get("Content-Length") or size)
            with progress_bar(
                total=total, enabled=progress, unit="B", unit_scale=True, desc=f"downloading {dest.name}"
            ) as bar:
                for chunk in iter(lambda: response.read(1 << 20), b""):
                    out.write(chunk)
                    bar.update(len(chunk))
        problem = _archive_problem(tmp, size, md5)
        if problem:
            raise DataError(
                f"the file downloaded from {url} failed verification: {problem}; nothing was "
                f"saved. Try again later. {offline}"
            )
        os.replace(tmp, dest)
    except (OSError, http.client.HTTPException) as exc:  # URLError is an OSError
        raise DataError(f"could not download CIFAR-10 from {url} ({getattr(exc, 'reason', exc)}). {offline}") from exc
    finally:
        tmp.unlink(missing_ok=True)  # also on Ctrl-C; after a successful rename there is nothing to remove
    return dest


class _ArrayOnlyUnpickler(pickle.Unpickler):
    """Unpickles plain containers and NumPy arrays only: a CIFAR batch needs nothing else, and a
    pickle that asks for any other callable (code execution) is refused."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),
    }  # protocol-2 bytes

    def find_class(self, module: str, name: str):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        return super().find_class(module, name)


def _unpickle(blob: bytes, source: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        batch = _ArrayOnlyUnpickler(io.BytesIO(blob), encoding="bytes").load()
        data = np.asarray(batch[b"data"], dtype=np.uint8)
        labels = np.asarray(batch[b"labels"], dtype=np.int32)
    except Exception as exc:  # any parse failure of a verified file is a format error
        raise DataError(f"{source}: not a CIFAR-10 batch ({type(exc).__name__}: {exc})") from exc
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(labels) != len(data):
        raise DataError(f"{source}: expected N×3072 'data' and N 'labels', got {data.shape} and {labels.shape}")
    # rows hold the R, G and B planes one after another: N×3×32×32 → NHWC
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy(), labels


def parse_archive(path: Path) -> Dataset:
    """Parse the verified tarball's pickled batches (nothing else in it is read or executed)."""
    batches: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    try:
        with tarfile.open(path, "r:gz") as tar:
            for member in tar.getmembers():
                stem = Path(member.name).name
                if member.isfile() and stem in (*CIFAR10_TRAIN_BATCHES, CIFAR10_TEST_BATCH):
                    batches[stem] = _unpickle(tar.extractfile(member).read(), f"{path}:{member.name}")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise DataError(f"{path}: unreadable tar.gz archive ({exc}); delete it and download it again") from exc
    return _assemble(batches, str(path))


def parse_directory(directory: Path) -> Dataset:
    """Parse an extracted ``cifar-10-batches-py`` directory."""
    batches = {
        name: _unpickle((directory / name).read_bytes(), str(directory / name))
        for name in (*CIFAR10_TRAIN_BATCHES, CIFAR10_TEST_BATCH)
        if (directory / name).is_file()
    }
    return _assemble(batches, str(directory))


def _assemble(batches: dict[str, tuple[np.ndarray, np.ndarray]], source: str) -> Dataset:
    missing = [n for n in (*CIFAR10_TRAIN_BATCHES, CIFAR10_TEST_BATCH) if n not in batches]
    if missing:
        raise DataError(f"{source}: missing CIFAR-10 batches {', '.join(missing)}")
    train = [batches[n] for n in CIFAR10_TRAIN_BATCHES]
    return Dataset(
        "cifar10",
        np.concatenate([x for x, _ in train]),
        np.concatenate([y for _, y in train]),
        *batches[CIFAR10_TEST_BATCH],
    )


def load_cifar10(
    data_dir: Path | None = None,
    *,
    allow_download: bool = True,
    url: str = CIFAR10_URL,
    size: int = CIFAR10_SIZE,
    md5: str = CIFAR10_MD5,
    progress: bool = True,
) -> Dataset:
    """Find CIFAR-10 under ``data_dir`` (extracted directory or verified tarball), downloading it if absent."""
    data_dir = Path(data_dir) if data_dir else default_data_dir()
    extracted = data_dir / CIFAR10_DIR
    if extracted.is_dir():
        return parse_directory(extracted)
    archive = data_dir / CIFAR10_FILE
    if not archive.exists():
        if not allow_download:
            raise DataError(f"CIFAR-10 not found in {data_dir}: put {CIFAR10_FILE} there, or use --dataset synthetic")
        download(url, archive, size, md5, progress)
    verify_archive(archive, size, md5)
    return parse_archive(archive)


# --- Synthetic CIFAR-shaped data -------------------------------------------------------------------


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
