"""ResNet-18's data: the framework-neutral pipeline (``dataset``), CIFAR-10 loading and verification
(``cifar_archive``), the synthetic set (``data``).

CIFAR-10 fixtures are tiny tarballs in the real format (pickled dicts of N×3072 uint8 R/G/B planes),
built in tmp_path; downloads go to file:// URLs, a local socket or a closed port, never the network.
"""

import hashlib
import io
import os
import pickle
import socket
import tarfile
import threading
from collections import Counter

import numpy as np
import pytest

from runners.workloads.resnet18 import cifar_archive, data, recipe
from runners.workloads.resnet18.dataset import DataError, epoch_batches, eval_batches, loss_and_accuracy, normalize

TRAIN_PER_BATCH = 3
TEST_IMAGES = 2
# one marker pixel in the raw CIFAR layout: data_batch_2, its second image, green plane, row 5, column 7
MARKER_BATCH, MARKER_IMAGE, MARKER_CHANNEL, MARKER_ROW, MARKER_COL = 2, 1, 1, 5, 7
MARKER_VALUE = 255  # every other pixel is below it


def random_images(n, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)


def denormalize(x):
    """Invert ``normalize`` back to uint8 (exact: float32 error is far below half a grey level)."""
    return np.rint((x * recipe.STD + recipe.MEAN) * 255.0).astype(np.uint8)


# --- CIFAR-10 fixtures ------------------------------------------------------------------------------


def cifar_batch_blobs():
    """The six pickled batches (name → bytes) and the labels written, in file order."""
    rng = np.random.default_rng(7)
    blobs, labels = {}, {}
    for index, name in enumerate((*cifar_archive.CIFAR10_TRAIN_BATCHES, cifar_archive.CIFAR10_TEST_BATCH), start=1):
        n = TEST_IMAGES if name == cifar_archive.CIFAR10_TEST_BATCH else TRAIN_PER_BATCH
        rows = rng.integers(0, MARKER_VALUE, (n, 3072), dtype=np.uint8)  # R plane, G plane, B plane
        if index == MARKER_BATCH:
            rows[MARKER_IMAGE, MARKER_CHANNEL * 1024 + MARKER_ROW * 32 + MARKER_COL] = MARKER_VALUE
        labels[name] = [int(v) for v in rng.integers(0, 10, n)]
        batch = {
            b"batch_label": name.encode(),
            b"labels": labels[name],
            b"data": rows,
            b"filenames": [f"{name}_{i}.png".encode() for i in range(n)],
        }
        blobs[name] = pickle.dumps(batch, protocol=2)
    return blobs, labels


def write_tarball(path, blobs):
    with tarfile.open(path, "w:gz") as tar:
        for name, blob in blobs.items():
            info = tarfile.TarInfo(f"{cifar_archive.CIFAR10_DIR}/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    return path


def size_and_md5(path):
    raw = path.read_bytes()
    return len(raw), hashlib.md5(raw).hexdigest()


@pytest.fixture
def cifar(tmp_path):
    """A CIFAR-format tarball outside any data dir, with its size, MD5 and the labels in it."""
    blobs, labels = cifar_batch_blobs()
    archive = write_tarball(tmp_path / cifar_archive.CIFAR10_FILE, blobs)
    size, md5 = size_and_md5(archive)
    return {"archive": archive, "blobs": blobs, "labels": labels, "size": size, "md5": md5}


def data_dir_with(tmp_path, raw):
    """A fresh data dir holding ``raw`` bytes as the CIFAR-10 archive."""
    directory = tmp_path / "data"
    directory.mkdir()
    (directory / cifar_archive.CIFAR10_FILE).write_bytes(raw)
    return directory


def check_parsed(dataset, labels):
    train_labels = [v for name in cifar_archive.CIFAR10_TRAIN_BATCHES for v in labels[name]]
    assert dataset.name == "cifar10"
    assert dataset.train_images.shape == (5 * TRAIN_PER_BATCH, 32, 32, 3)
    assert dataset.train_images.dtype == np.uint8
    assert dataset.test_images.shape == (TEST_IMAGES, 32, 32, 3)
    assert dataset.train_labels.dtype == dataset.test_labels.dtype == np.int32
    assert dataset.train_labels.tolist() == train_labels
    assert dataset.test_labels.tolist() == labels[cifar_archive.CIFAR10_TEST_BATCH]
    # the marker lands at NHWC (image, row, col, channel), and nowhere else
    image = (MARKER_BATCH - 1) * TRAIN_PER_BATCH + MARKER_IMAGE
    assert dataset.train_images[image, MARKER_ROW, MARKER_COL, MARKER_CHANNEL] == MARKER_VALUE
    assert np.argwhere(dataset.train_images == MARKER_VALUE).tolist() == [
        [image, MARKER_ROW, MARKER_COL, MARKER_CHANNEL]
    ]


def test_verified_tarball_is_found_parsed_and_batched(cifar, tmp_path):
    directory = data_dir_with(tmp_path, cifar["archive"].read_bytes())
    dataset = cifar_archive.load_cifar10(
        directory, allow_download=False, size=cifar["size"], md5=cifar["md5"], progress=False
    )
    check_parsed(dataset, cifar["labels"])
    x, y = epoch_batches(dataset.train_images, dataset.train_labels, seed=0, epoch=0, batch_size=4)
    assert x.shape == (3, 4, 32, 32, 3) and x.dtype == np.float32
    assert y.shape == (3, 4) and not Counter(y.ravel().tolist()) - Counter(dataset.train_labels.tolist())


def test_extracted_directory_is_found(cifar, tmp_path):
    extracted = tmp_path / "data" / cifar_archive.CIFAR10_DIR
    extracted.mkdir(parents=True)
    for name, blob in cifar["blobs"].items():
        (extracted / name).write_bytes(blob)
    dataset = cifar_archive.load_cifar10(tmp_path / "data", allow_download=False, progress=False)
    check_parsed(dataset, cifar["labels"])


def test_wrong_checksum_names_the_archive(cifar, tmp_path):
    directory = data_dir_with(tmp_path, cifar["archive"].read_bytes())
    with pytest.raises(DataError, match="MD5") as caught:
        cifar_archive.load_cifar10(directory, allow_download=False, size=cifar["size"], md5="0" * 32, progress=False)
    assert str(directory / cifar_archive.CIFAR10_FILE) in str(caught.value)


def test_truncated_tarball_fails_to_parse_when_its_checksum_matches(cifar, tmp_path):
    directory = data_dir_with(tmp_path, cifar["archive"].read_bytes()[: cifar["size"] // 2])
    size, md5 = size_and_md5(directory / cifar_archive.CIFAR10_FILE)
    with pytest.raises(DataError, match="unreadable tar.gz") as caught:
        cifar_archive.load_cifar10(directory, allow_download=False, size=size, md5=md5, progress=False)
    assert str(directory / cifar_archive.CIFAR10_FILE) in str(caught.value)


def test_truncated_tarball_fails_verification_against_the_expected_size(cifar, tmp_path):
    directory = data_dir_with(tmp_path, cifar["archive"].read_bytes()[: cifar["size"] // 2])
    with pytest.raises(DataError, match="truncated") as caught:
        cifar_archive.load_cifar10(
            directory, allow_download=False, size=cifar["size"], md5=cifar["md5"], progress=False
        )
    assert str(directory / cifar_archive.CIFAR10_FILE) in str(caught.value)
    assert f"{cifar['size']:,}" in str(caught.value)


def test_missing_data_without_download_says_what_to_do(tmp_path):
    with pytest.raises(DataError, match="--dataset synthetic") as caught:
        cifar_archive.load_cifar10(tmp_path, allow_download=False, progress=False)
    assert str(tmp_path) in str(caught.value)


# --- downloads ----------------------------------------------------------------------------------------


def assert_download_left_nothing(directory):
    assert not list(directory.glob("*.part")) and not list(directory.glob(".*.part"))
    assert not (directory / cifar_archive.CIFAR10_FILE).exists()


def test_download_is_verified_then_kept(cifar, tmp_path):
    directory = tmp_path / "data"
    dataset = cifar_archive.load_cifar10(
        directory, url=cifar["archive"].as_uri(), size=cifar["size"], md5=cifar["md5"], progress=False
    )
    check_parsed(dataset, cifar["labels"])
    assert size_and_md5(directory / cifar_archive.CIFAR10_FILE) == (cifar["size"], cifar["md5"])
    assert sorted(p.name for p in directory.iterdir()) == [cifar_archive.CIFAR10_FILE]


def test_download_with_wrong_checksum_keeps_nothing(cifar, tmp_path):
    directory = tmp_path / "data"
    url = cifar["archive"].as_uri()
    with pytest.raises(DataError, match="failed verification") as caught:
        cifar_archive.load_cifar10(directory, url=url, size=cifar["size"], md5="0" * 32, progress=False)
    assert url in str(caught.value) and "--dataset synthetic" in str(caught.value)
    assert_download_left_nothing(directory)


def test_unreachable_url_names_it_and_suggests_synthetic(tmp_path):
    url = "http://127.0.0.1:9/cifar.tar.gz"  # the discard port: nothing listens, the connection is refused
    with pytest.raises(DataError) as caught:
        cifar_archive.load_cifar10(tmp_path / "data", url=url, progress=False)
    message = str(caught.value)
    assert url in message and "--dataset synthetic" in message and "offline" in message
    assert_download_left_nothing(tmp_path / "data")


def test_connection_cut_mid_download_keeps_no_half_file(cifar, tmp_path):
    raw = cifar["archive"].read_bytes()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)

    def serve_half():
        connection, _ = server.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(raw) + raw[: len(raw) // 2])

    thread = threading.Thread(target=serve_half, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/{cifar_archive.CIFAR10_FILE}"
    try:
        with pytest.raises(DataError) as caught:
            cifar_archive.load_cifar10(tmp_path / "data", url=url, size=cifar["size"], md5=cifar["md5"], progress=False)
    finally:
        thread.join(10)
        server.close()
    assert url in str(caught.value) and "--dataset synthetic" in str(caught.value)
    assert_download_left_nothing(tmp_path / "data")


# --- the pipeline --------------------------------------------------------------------------------------


def test_batches_depend_on_seed_and_epoch_only():
    images, labels = random_images(100), np.arange(100, dtype=np.int32)
    x, y = epoch_batches(images, labels, seed=3, epoch=1, batch_size=32)
    x_again, y_again = epoch_batches(images, labels, seed=3, epoch=1, batch_size=32)
    assert x.tobytes() == x_again.tobytes() and y.tobytes() == y_again.tobytes()
    for seed, epoch in [(4, 1), (3, 2)]:
        x_other, y_other = epoch_batches(images, labels, seed=seed, epoch=epoch, batch_size=32)
        assert not np.array_equal(y_other, y), "another seed or epoch must shuffle differently"
        assert x_other.tobytes() != x.tobytes()


def test_order_and_augmentation_do_not_depend_on_batch_size():
    # 100 images: batch size 32 keeps 96, batch size 64 keeps 64, so drop_last differs
    images, labels = random_images(100), np.arange(100, dtype=np.int32)
    x32, y32 = epoch_batches(images, labels, seed=1, epoch=0, batch_size=32)
    x64, y64 = epoch_batches(images, labels, seed=1, epoch=0, batch_size=64)
    np.testing.assert_array_equal(y32[:2].reshape(64), y64[0])
    assert x32[:2].reshape(64, 32, 32, 3).tobytes() == x64[0].tobytes()


def test_drop_last_shapes_and_dtypes():
    images, labels = random_images(100), np.arange(100, dtype=np.int32)
    x, y = epoch_batches(images, labels, seed=0, epoch=0, batch_size=32)
    assert x.shape == (3, 32, 32, 32, 3) and x.dtype == np.float32
    assert y.shape == (3, 32) and y.dtype == np.int32
    assert len(set(y.ravel().tolist())) == 96, "each image at most once per epoch"


def test_normalisation_matches_the_cifar_statistics():
    white = np.full((4, 32, 32, 3), 255, np.uint8)
    x, _ = epoch_batches(white, np.zeros(4, np.int32), seed=0, epoch=0, batch_size=4)
    # (1 - mean) / std for white, (0 - mean) / std for the zero padding that crops bring in
    np.testing.assert_allclose(x.max(axis=(0, 1, 2, 3)), [2.059109, 2.126489, 2.115826], rtol=1e-5)
    np.testing.assert_allclose(x.min(axis=(0, 1, 2, 3)), [-1.989474, -1.980287, -1.706804], rtol=1e-5)
    gray, n = eval_batches(np.full((1, 32, 32, 3), 51, np.uint8), batch_size=1)  # 51 / 255 = 0.2
    np.testing.assert_allclose(
        gray[0, 0, 0, 0], [(0.2 - 0.4914) / 0.2470, (0.2 - 0.4822) / 0.2435, (0.2 - 0.4465) / 0.2616], rtol=1e-5
    )


def find_window(image, original):
    """The (top, left, flipped) windows of the zero-padded original that equal ``image``."""
    pad = recipe.CROP_PADDING
    padded = np.pad(original, ((pad, pad), (pad, pad), (0, 0)))
    offsets = range(2 * pad + 1)
    matches = []
    for top in offsets:
        for left in offsets:
            window = padded[top : top + 32, left : left + 32]
            matches += [
                (top, left, flipped)
                for flipped, candidate in ((False, window), (True, window[:, ::-1]))
                if np.array_equal(image, candidate)
            ]
    return matches


def test_augmentation_crops_and_flips_windows_of_the_padded_original():
    images, labels = random_images(64, seed=5), np.arange(64, dtype=np.int32)
    x, y = epoch_batches(images, labels, seed=2, epoch=0, batch_size=64)
    windows = []
    for image, label in zip(denormalize(x[0]), y[0], strict=True):
        matches = find_window(image, images[label])
        assert len(matches) == 1, f"image {label} is not one crop/flip of its padded original: {matches}"
        windows.append(matches[0])
    tops, lefts, flips = zip(*windows, strict=True)
    assert any(flips) and not all(flips), "about half the images should be flipped"
    assert len(set(tops)) > 3 and len(set(lefts)) > 3, "crops should move around the padded image"
    identity = (recipe.CROP_PADDING, recipe.CROP_PADDING, False)
    assert sum(w == identity for w in windows) < len(windows) // 4, "mostly not identity"


def test_eval_batches_pad_to_whole_batches_and_report_the_real_count():
    images = random_images(70)
    x, n = eval_batches(images, batch_size=32)
    assert n == 70 and x.shape == (3, 32, 32, 32, 3) and x.dtype == np.float32
    flat = x.reshape(96, 32, 32, 3)
    np.testing.assert_array_equal(flat[:70], normalize(images))
    assert not flat[70:].any(), "padding is zeros"
    x_exact, n_exact = eval_batches(images[:64], batch_size=32)
    assert n_exact == 64 and x_exact.shape[0] == 2, "no padding batch when the count divides"


@pytest.mark.parametrize("batch_size", [0, -32, 2.5, True])
def test_bad_batch_size_raises_value_error(batch_size):
    images, labels = random_images(8), np.zeros(8, np.int32)
    with pytest.raises(ValueError, match="batch size must be a positive integer"):
        epoch_batches(images, labels, seed=0, epoch=0, batch_size=batch_size)
    with pytest.raises(ValueError, match="batch size must be a positive integer"):
        eval_batches(images, batch_size=batch_size)


def test_batch_larger_than_the_data_raises_value_error():
    with pytest.raises(ValueError, match="8 images make no full batch of 32"):
        epoch_batches(random_images(8), np.zeros(8, np.int32), seed=0, epoch=0, batch_size=32)


# --- the synthetic set and the metrics ---------------------------------------------------------------


def test_synthetic_set_is_deterministic_and_cifar_shaped():
    first, again = data.synthetic(300, 100), data.synthetic(300, 100)
    for field in ("train_images", "train_labels", "test_images", "test_labels"):
        assert getattr(first, field).tobytes() == getattr(again, field).tobytes(), field
    assert first.name == "synthetic"
    assert first.train_images.shape == (300, 32, 32, 3) and first.test_images.shape == (100, 32, 32, 3)
    assert first.train_images.dtype == first.test_images.dtype == np.uint8
    assert first.train_labels.dtype == first.test_labels.dtype == np.int32
    assert set(first.train_labels.tolist()) == set(range(10))
    assert first.test_labels.min() >= 0 and first.test_labels.max() <= 9
    assert data.synthetic(300, 100, seed=1).train_images.tobytes() != first.train_images.tobytes()
    loaded = data.load("synthetic", None, 300, 100)
    assert loaded.train_images.tobytes() == first.train_images.tobytes()


def test_synthetic_set_is_learnable_by_nearest_class_mean():
    dataset = data.synthetic(500, 200)
    train = normalize(dataset.train_images).reshape(500, -1)
    test = normalize(dataset.test_images).reshape(200, -1)
    means = np.stack([train[dataset.train_labels == c].mean(axis=0) for c in range(10)])
    distances = ((test[:, None, :] - means[None]) ** 2).sum(axis=2)
    accuracy = (distances.argmin(axis=1) == dataset.test_labels).mean()
    assert accuracy > 0.5, f"nearest-class-mean accuracy {accuracy:.2f}: the synthetic set is not learnable"


def test_unknown_dataset_is_rejected():
    with pytest.raises(DataError, match="unknown dataset 'imagenet'"):
        data.load("imagenet", None, None, None)


def test_loss_and_accuracy_match_a_hand_computed_example():
    logits = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    labels = np.array([0, 2])
    loss, accuracy = loss_and_accuracy(logits, labels)
    # row 1: log(e² + e + 1) − 2 = 0.407606; row 2: log 3 = 1.098612 (argmax ties go to class 0: wrong)
    assert loss == pytest.approx(0.7531091, abs=1e-6)
    assert accuracy == 0.5
    big_loss, big_accuracy = loss_and_accuracy(np.array([[1000.0, 0.0]]), np.array([1]))
    assert big_loss == pytest.approx(1000.0) and big_accuracy == 0.0, "no overflow for large logits"


def test_a_pickle_that_would_run_code_is_refused(tmp_path):
    import pickle

    class Exploit:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    directory = tmp_path / cifar_archive.CIFAR10_DIR
    directory.mkdir()
    for name in (*cifar_archive.CIFAR10_TRAIN_BATCHES, cifar_archive.CIFAR10_TEST_BATCH):
        (directory / name).write_bytes(pickle.dumps({b"data": Exploit(), b"labels": [0]}))
    with pytest.raises(DataError, match="refusing to load"):
        cifar_archive.load_cifar10(tmp_path)
    assert not (tmp_path / "pwned").exists()


def test_synthetic_set_is_learned_through_the_augmented_pipeline_in_a_few_hundred_steps():
    """Softmax regression trained by SGD on the pipeline's augmented batches (300 steps of 32) beats 50%."""
    dataset = data.synthetic(1024, 256)
    rng = np.random.default_rng(0)
    weights, bias = rng.normal(0, 0.01, (3 * 8 * 8, 10)), np.zeros(10)

    def features(x):  # 4×4 average pooling keeps the coarse class pattern
        return x.reshape(len(x), 8, 4, 8, 4, 3).mean(axis=(2, 4)).reshape(len(x), -1)

    steps = 0
    for epoch in range(10):
        images, labels = epoch_batches(dataset.train_images, dataset.train_labels, 0, epoch, 32)
        for x, y in zip(images, labels, strict=True):
            f = features(x)
            logits = f @ weights + bias
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(y)), y] -= 1
            weights -= 0.05 * f.T @ p / len(y)
            bias -= 0.05 * p.mean(axis=0)
            steps += 1
    test_x, n = eval_batches(dataset.test_images, 256)
    logits = features(test_x.reshape(-1, 32, 32, 3)[:n]) @ weights + bias
    _, accuracy = loss_and_accuracy(logits, dataset.test_labels)
    assert steps == 320 and accuracy > 0.5, f"accuracy {accuracy:.2f} after {steps} steps"


def test_a_large_synthetic_set_is_kept_once_drawn_and_drawn_again_when_unreadable(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "KEEP_SYNTHETIC_FROM", 300)
    drawn = data.synthetic(300, 100)
    first = data.load("synthetic", tmp_path, 300, 100)
    (kept,) = tmp_path.glob("synthetic-*-300-100.npz")
    with monkeypatch.context() as kept_only:
        kept_only.setattr(data, "synthetic", lambda *_args: pytest.fail("drawn again although kept"))
        again = data.load("synthetic", tmp_path, 300, 100)
    for name in data.KEPT_ARRAYS:
        assert np.array_equal(getattr(first, name), getattr(drawn, name))
        assert np.array_equal(getattr(again, name), getattr(drawn, name))
    kept.write_bytes(b"not an npz")
    assert np.array_equal(data.load("synthetic", tmp_path, 300, 100).train_images, drawn.train_images)
    assert kept.read_bytes() != b"not an npz"  # drawn again, and kept again
    assert not list(tmp_path.glob("*.partial"))


def test_a_synthetic_set_that_cannot_be_kept_is_still_returned(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "KEEP_SYNTHETIC_FROM", 300)
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would go")
    dataset = data.load("synthetic", blocked / "data", 300, 100)
    assert np.array_equal(dataset.train_images, data.synthetic(300, 100).train_images)
