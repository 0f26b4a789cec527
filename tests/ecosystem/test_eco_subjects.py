"""Subjects per framework: derived from the framework registry, in its order."""

from __future__ import annotations

import pytest

from ecosystem.subjects import BY_FRAMEWORK, subjects_of
from fwbench.frameworks import FRAMEWORKS, framework


def test_every_registered_framework_has_subjects_including_its_own_package():
    assert tuple(BY_FRAMEWORK) == FRAMEWORKS
    for name, subjects in BY_FRAMEWORK.items():
        assert subjects.packages[0] == framework(name).distributions[0]
        assert subjects.tags and subjects.repos


def test_subjects_follow_the_registry_order_whatever_the_order_asked():
    assert subjects_of(["jax", "torch"]).repos == ("pytorch/pytorch", "jax-ml/jax", "google/flax")
    with pytest.raises(ValueError, match="mxnet"):
        subjects_of(["mxnet"])
