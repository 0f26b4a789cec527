"""CIFAR-10 from its archive: found in the data directory (extracted or as the tarball), else downloaded, verified
by size and MD5, and its pickled batches read without running any code they hold."""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import pickle
import tarfile
import urllib.request
from pathlib import Path

import numpy as np

from fwbench.progress import progress_bar
from runners.workloads.resnet18.dataset import DataError, Dataset, default_data_dir

CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_FILE = "cifar-10-python.tar.gz"
CIFAR10_DIR = "cifar-10-batches-py"
CIFAR10_SIZE = 170_498_071
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST_BATCH = "test_batch"


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
