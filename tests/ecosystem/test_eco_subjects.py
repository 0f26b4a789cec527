"""Subjects per framework: read from the framework registry, in its order."""

from __future__ import annotations

import pytest

from ecosystem.subjects import REGISTRY_PACKAGES, subjects_of
from fwbench.frameworks import REGISTRY


def test_every_registered_framework_has_subjects_including_its_own_package():
    for name, entry in REGISTRY.items():
        subjects = subjects_of([name])
        assert subjects.packages[0] == entry.distributions[0]
        assert entry.distributions[0] in REGISTRY_PACKAGES[name]  # PyPI's figures cover every framework's own package


def test_subjects_follow_the_registry_order_whatever_the_order_asked():
    assert subjects_of(["jax", "torch"]).repos == ("pytorch/pytorch", "jax-ml/jax", "google/flax")
    assert subjects_of().tags == ("pytorch", "tensorflow", "keras", "jax", "flax")
    with pytest.raises(ValueError, match="mxnet"):
        subjects_of(["mxnet"])
