"""PyTorch via torchax: its import shim, its bf16 autocast and its trainer on JAX's CPU backend (the parity with
PyTorch itself is in test_parity.py and test_gpt_parity.py)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import torch

from runners.frameworks import torchax_shim
from runners.frameworks.trainer import make_trainer
from runners.workloads.resnet18 import arch


def test_the_shim_stands_in_for_missing_aten_operators_only_inside_its_block():
    missing_before = list(torchax_shim.missing)
    with torchax_shim.missing_aten_operators_as_placeholders():
        stand_in = torch.ops.aten.no_such_operator_in_any_pytorch.default
        kept = torch.ops.aten.add.Tensor
        with pytest.raises(AttributeError):
            getattr(torch.ops.no_such_namespace_of_ops, "anything")  # other namespaces answer as before  # noqa: B009
    assert isinstance(stand_in, torchax_shim.MissingOperator) and stand_in != kept
    assert "aten.no_such_operator_in_any_pytorch.default" in torchax_shim.missing
    with pytest.raises(AttributeError):
        getattr(torch.ops.aten, "no_such_operator_in_any_pytorch")  # PyTorch's own lookup again  # noqa: B009
    torchax_shim.missing[:] = missing_before


def test_the_autocast_entries_are_added_for_the_block_and_removed_after_it():
    torchax_shim.torchax_environment()
    from torchax import amp

    before = dict(amp.autocast_policy)
    with torchax_shim.pytorch_autocast_entries() as added:
        assert amp.autocast_policy[torch.ops.aten.convolution.default] == amp.CastPolicy.LOWER_PRECISION_FP
    assert added and amp.autocast_policy == before


def step_program(precision: str) -> str:
    """The jaxpr of one ResNet-18 training forward pass of a torchax trainer at ``precision``."""
    trainer = make_trainer("torchax", arch.init_weights(0), "compiled", "cpu", "float32", precision)
    ((x, _),) = trainer.to_device(np.zeros((1, 4, 32, 32, 3), np.float32), np.zeros((1, 4), np.int64))
    return str(jax.make_jaxpr(lambda p, b, x: trainer._forward(p, b, x, True))(trainer.params, trainer.buffers, x))


@pytest.mark.slow
@pytest.mark.parametrize("precision, in_bf16", [("bf16", 21), ("fp32", 0)])
def test_bf16_runs_every_convolution_and_the_classifier_in_bfloat16_and_fp32_none(precision, in_bf16):
    products = [
        line
        for line in step_program(precision).splitlines()
        if "conv_general_dilated[" in line or "dot_general[" in line
    ]
    assert len(products) == 21  # 20 convolutions and the classifier
    assert sum("bf16" in line for line in products) == in_bf16


@pytest.mark.slow
def test_the_trainer_carries_batch_norm_statistics_as_pytorch_updates_them():
    weights = arch.init_weights(0, random_bn=True)
    rng = np.random.default_rng(0)
    images, labels = rng.standard_normal((1, 4, 32, 32, 3)), rng.integers(0, 10, (1, 4))
    after = {}
    for name, mode in (("torchax", "compiled"), ("torch", "eager")):
        trainer = make_trainer(name, weights, mode, "cpu", "float64", "fp32")
        ((x, y),) = trainer.to_device(images, labels)
        trainer.train_step(x, y, 0.0)  # learning rate 0: only the running statistics move
        trainer.sync()
        after[name] = trainer.weights()
    statistics = [key for key in weights if key.endswith((".mean", ".var"))]
    assert not np.allclose(after["torchax"]["stem.bn.mean"], weights["stem.bn.mean"])
    for key in statistics:  # momentum 0.1 and the unbiased batch variance, as PyTorch's BatchNorm
        np.testing.assert_allclose(after["torchax"][key], after["torch"][key], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(after["torchax"]["fc.kernel"], weights["fc.kernel"])
