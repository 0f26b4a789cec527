"""Older framework versions train the same network: a real environment of the article's JAX (0.4.26 with Flax 0.8)
is built with uv (cached in ~/.cache/fwbench/envs after the first time) and used by the parity check and by
``runners matrix --versions``.

The other pinned sets (PyTorch 2.2.1 with its 2.5 GB of CUDA wheels, TensorFlow 2.15) take the same parity check
where their environment has been built (``runners envs build``), or everywhere with FWBENCH_TEST_ALL_VERSION_SETS=1,
which builds them first.
"""

import json
import os

import pytest

from runners.cli import main as runners_main
from runners.envs import versions as envs
from runners.workloads.resnet18 import parity

BUILD_ALL = os.environ.get("FWBENCH_TEST_ALL_VERSION_SETS") == "1"
#: two SGD steps, not the parity test's three: two already check the momentum (its buffer first matters in step 2),
#: weight decay and the BN statistics
STEPS = 2
#: images per step, not the parity test's 16: JAX 0.4.26's float64 convolutions take most of the time (alone on the
#: 2-core VM the test takes about 23 s at batch 2, 20 s at batch 1), and every quantity compared is as strict at batch
#: 1: the last stage's BatchNorm still averages 16 values per channel, where a biased variance would differ by 7 %
BATCH = 1


def article_interpreter(name: str) -> str:
    """The article version's environment of ``name``: built here for JAX (and for all with BUILD_ALL)."""
    version = envs.article_version(name)
    if name == "jax" or BUILD_ALL:
        return str(envs.build(name, version, log=print))
    python = envs.built(name, version)
    if python is None:
        pytest.skip(f"{name} {version}: environment not built (runners envs build {name}={version})")
    return str(python)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(envs.version_sets()["frameworks"]))  # the frameworks with an article version
def test_the_article_version_trains_the_same_network_as_today(name, tmp_path):
    """The article's version of ``name`` against today's version of another framework, in float64."""
    reference = "jax" if name == "torch" else "torch"
    pythons = {name: article_interpreter(name)}
    wanted = parity.planned("eager", "float64", steps=STEPS, batch_size=BATCH)
    captures = parity.capture_all(wanted, tmp_path, (name, reference), pythons)
    other = reference if name == "torch" else name
    report = parity.compare(captures["torch"], captures[other], a_is_torch=True, batch_size=BATCH, steps=STEPS)
    print(f"{name} {envs.article_version(name)} vs {reference} today (float64):", report)
    assert report["logits.train"] < 1e-10 and report["logits.eval"] < 1e-10 and report["loss"] < 1e-10
    assert report["update"] < 1e-8, "the per-step parameter updates differ: optimizer semantics differ"
    assert report["running_mean"] < 1e-10 and report["running_var"] < 1e-10


@pytest.mark.slow
def test_a_matrix_runs_the_article_jax_beside_todays(tmp_path, capsys):
    article_interpreter("jax")
    out = tmp_path / "runs"
    code = runners_main(
        ["matrix", "--profile", "smoke", "--frameworks", "jax", "--versions", "jax=article,installed"]
        + ["--batch-sizes", "8", "--train-images", "16", "--test-images", "16"]  # two steps show the same network
        + ["--out", str(out), "--no-progress"]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err[-3000:]
    records = [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))]
    versions = [r["framework"]["version"] for r in records]
    assert len(records) == 2 and "0.4.26" in versions and len(set(versions)) == 2
    assert all(r["status"] == "ok" for r in records)
    old = next(r for r in records if r["framework"]["version"] == "0.4.26")
    assert old["software"]["packages"]["flax"] == "0.8.4" and old["software"]["packages"]["jaxlib"] == "0.4.26"
    losses = [r["accuracy"]["final_train_loss"] for r in records]
    assert losses[0] == pytest.approx(losses[1], rel=1e-3), "two JAX versions, one network: the same loss"
    assert "jax 0.4.26/compiled bs8 seed0" in printed.out  # the order line names the versions
