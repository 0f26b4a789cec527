"""`make setup` on the machines users have: the cpu extra with constraints.txt resolves (uv, from PyPI, nothing
installed) on x86-64 Linux, Apple silicon and Arm Linux, to the releases the committed records ran, with TensorFlow's
CPU-only build where it has wheels (x86-64) and its one build elsewhere; the article's TensorFlow set, as an Arm
machine's version environment installs it, resolves there too."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from runners.envs import versions as envs
from runners.envs.build import uv_binary

REPOSITORY = Path(__file__).resolve().parents[1]
ARM = ["aarch64-apple-darwin", "aarch64-unknown-linux-gnu"]


def pinned() -> dict[str, str]:
    """constraints.txt as {distribution: version}."""
    lines = (REPOSITORY / "constraints.txt").read_text().splitlines()
    return dict(line.split("==", 1) for line in lines if "==" in line and not line.startswith("#"))


def resolve(platform: str, *wanted: str) -> dict[str, str]:
    """What uv resolves ``wanted`` (``uv pip compile`` arguments) to on ``platform`` (uv's target triple), for
    Python 3.11: {distribution: version}."""
    done = subprocess.run(
        [uv_binary(), "pip", "compile", "--quiet", "--no-header", "--python-version", "3.11"]
        + ["--python-platform", platform, *wanted],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=300,
        # torch's macOS wheels are built for macOS 14 (uv's default target is 13.0)
        env={**os.environ, "MACOSX_DEPLOYMENT_TARGET": "14.0"},
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split("==", 1) for line in done.stdout.splitlines() if "==" in line and not line.startswith(" "))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("platform", "tensorflow"),
    [("x86_64-unknown-linux-gnu", "tensorflow-cpu"), *((arm, "tensorflow") for arm in ARM)],
)
def test_the_cpu_set_up_resolves_to_the_pinned_releases(platform, tensorflow):
    """Network: PyPI."""
    resolved = resolve(platform, "--constraint", "constraints.txt", "--extra", "cpu", "pyproject.toml")
    pins = pinned()
    for name in ("torch", tensorflow, "keras", "jax", "jaxlib", "flax", "optax", "numpy"):
        assert resolved.get(name) == pins[name], f"{platform}: {name} {resolved.get(name)}, pinned {pins[name]}"
    other = {"tensorflow-cpu", "tensorflow"} - {tensorflow}
    assert not other & set(resolved), f"{platform}: both TensorFlow builds"


@pytest.mark.slow
@pytest.mark.parametrize("platform", ARM)
def test_the_article_tensorflow_set_resolves_on_arm(platform, tmp_path):
    """Network: the article's TensorFlow 2.15 with Keras 3.3.3, as an Arm machine builds it, resolves from PyPI (a
    Mac through tensorflow-macos, Arm Linux through AWS's CPU build)."""
    spec = envs.version_set("tensorflow", "2.15.0")
    wanted, overrides = tmp_path / "requirements.in", tmp_path / "overrides.txt"
    wanted.write_text("\n".join(envs.for_this_machine(p, "aarch64") for p in spec.packages) + "\n")
    overrides.write_text("\n".join(spec.overrides) + "\n")
    resolved = resolve(platform, "--override", str(overrides), str(wanted))
    assert resolved["tensorflow"] == "2.15.0" and resolved["keras"] == "3.3.3"
