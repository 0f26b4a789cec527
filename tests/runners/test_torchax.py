"""PyTorch via torchax: its import shim, its bf16 autocast and its trainer on JAX's CPU backend (the parity with
PyTorch itself is in test_parity.py and test_gpt_parity.py)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import torch

from runners.frameworks.torchax import shim
from runners.frameworks.trainer import make_trainer
from runners.workloads.resnet18 import arch


def test_the_shim_stands_in_for_missing_aten_operators_only_inside_its_block():
    missing_before = list(shim.missing)
    with shim.missing_aten_operators_as_placeholders():
        stand_in = torch.ops.aten.no_such_operator_in_any_pytorch.default
        kept = torch.ops.aten.add.Tensor
        with pytest.raises(AttributeError):
            getattr(torch.ops.no_such_namespace_of_ops, "anything")  # other namespaces answer as before  # noqa: B009
    assert isinstance(stand_in, shim.MissingOperator) and stand_in != kept
    assert "aten.no_such_operator_in_any_pytorch.default" in shim.missing
    with pytest.raises(AttributeError):
        getattr(torch.ops.aten, "no_such_operator_in_any_pytorch")  # PyTorch's own lookup again  # noqa: B009
    shim.missing[:] = missing_before


def test_the_autocast_entries_are_added_for_the_block_and_removed_after_it():
    shim.torchax_environment()
    from torchax import amp

    before = dict(amp.autocast_policy)
    with shim.pytorch_autocast_entries() as added:
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


def relu_dtypes(precision: str) -> list[str]:
    """The dtype of every ReLU's output (a ``max`` of a feature map) in one training forward pass of a torchax trainer
    at ``precision``, nested programs included."""
    trainer = make_trainer("torchax", arch.init_weights(0), "compiled", "cpu", "float32", precision)
    ((x, _),) = trainer.to_device(np.zeros((1, 4, 32, 32, 3), np.float32), np.zeros((1, 4), np.int64))
    program = jax.make_jaxpr(lambda p, b, x: trainer._forward(p, b, x, True))(trainer.params, trainer.buffers, x)
    found = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "max" and eqn.outvars[0].aval.ndim == 4:
                found.append(str(eqn.outvars[0].aval.dtype))
            for param in eqn.params.values():
                inner = getattr(param, "jaxpr", None)
                if inner is not None:
                    walk(getattr(inner, "jaxpr", inner))

    walk(program.jaxpr)
    return found


@pytest.mark.slow
def test_under_bf16_every_batch_norm_returns_bfloat16_as_pytorchs_does_so_relu_and_residuals_stay_bfloat16():
    assert relu_dtypes("bf16") == ["bfloat16"] * 17  # the stem's and two per BasicBlock


@pytest.mark.slow
def test_the_trainers_batch_norm_stays_inside_its_own_trace():
    """torchax's environment is one per process: once a trainer has traced its step, another torchax program in the
    process (the reference loop a harness check measures the trainer against) gets torchax's own batch norm, whose
    float32 weight makes a bfloat16 input's output float32, not the trainer's."""
    assert "bf16" in step_program("bf16")
    env = shim.torchax_environment()
    x, weight, bias = torch.ones((4, 3, 2, 2), dtype=torch.bfloat16), torch.ones(3), torch.zeros(3)
    with env:
        out = torch.nn.functional.batch_norm(env.to_xla(x), None, None, env.to_xla(weight), env.to_xla(bias), True)
    assert out.dtype == torch.float32


def test_the_batch_norm_shim_computes_what_pytorchs_own_batch_norm_does_dtype_and_running_statistics_included():
    env = shim.torchax_environment()
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((8, 3, 5, 5)).astype(np.float32)).to(torch.bfloat16)
    weight, bias = torch.rand(3) + 0.5, torch.rand(3)
    eager_mean, eager_var = torch.zeros(3), torch.ones(3)
    expected = torch.nn.functional.batch_norm(x, eager_mean, eager_var, weight, bias, True, 0.1, 1e-5)
    mean, var = env.j2t_iso(jax.numpy.zeros(3)), env.j2t_iso(jax.numpy.ones(3))
    with env:
        got = shim.pytorch_batch_norm(env.to_xla(x), mean, var, env.to_xla(weight), env.to_xla(bias), True)
    assert got.dtype == torch.bfloat16  # torchax's own returns float32 here
    np.testing.assert_allclose(np.asarray(env.t2j_iso(got), np.float32), expected.float().numpy(), atol=2e-2)
    for shimmed, eager in ((mean, eager_mean), (var, eager_var)):  # momentum 0.1, the unbiased variance
        np.testing.assert_allclose(np.asarray(env.t2j_iso(shimmed)), eager.numpy(), rtol=1e-3)


def test_the_training_state_is_flattened_in_the_modules_order_not_sorted_by_name():
    """JAX flattens a plain dict by sorted key (``fc`` before ``stem``); the compiled TPU step then relaid the
    weights out through HBM each step. The state keeps the module's own order, for the optimizer's state too."""
    trainer = make_trainer("torchax", arch.init_weights(0), "compiled", "cpu", "float32", "fp32")
    module_order = [name for name, _ in trainer.model.named_parameters()]
    assert module_order[0].startswith("stem") and module_order != sorted(module_order)

    def flattened_names(tree) -> list[str]:
        return [
            jax.tree_util.keystr(path[-1:], simple=True) for path, _ in jax.tree_util.tree_flatten_with_path(tree)[0]
        ]

    assert flattened_names(trainer.params) == module_order
    momenta = [leaf for leaf in jax.tree_util.tree_leaves(trainer.opt_state) if leaf.ndim > 0]
    assert [m.shape for m in momenta] == [p.shape for p in trainer.params.values()]
    buffers = [name for name, _ in trainer.model.named_buffers()]
    assert flattened_names(trainer.buffers) == buffers
