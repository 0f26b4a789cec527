"""The JAX ResNet-18's batch norm under bf16 computes in float32 and returns its input's dtype, as Flax linen's does
(``runners.frameworks.jax.resnet18_model.BatchNorm``), not as NNX's ``dtype=bfloat16`` does (scale and bias cast to
bfloat16, whose gradients a TPU's compiled step then reduces apart)."""

from __future__ import annotations

import numpy as np
import pytest

jnp = pytest.importorskip("jax.numpy")
nnx = pytest.importorskip("flax.nnx")

from runners.frameworks.jax.resnet18_model import BatchNorm  # noqa: E402

CHANNELS = 8


def normed(norm, x):
    """``norm``'s training-mode output for ``x``, its scale and bias far from 1 and 0 so that their rounding shows."""
    norm.scale[...] = jnp.linspace(0.5, 3.0, CHANNELS, dtype=jnp.float32) * (1 + 2**-10)
    norm.bias[...] = jnp.linspace(-1.0, 1.0, CHANNELS, dtype=jnp.float32) + 2**-12
    return norm(x)


@pytest.fixture
def activations():
    return jnp.asarray(np.random.default_rng(0).standard_normal((4, 6, 6, CHANNELS)), jnp.bfloat16)


def test_a_bf16_input_comes_out_bf16_as_its_float32_normalisation_rounded(activations):
    out = normed(BatchNorm(CHANNELS, rngs=nnx.Rngs(0)), activations)
    in_float32 = normed(BatchNorm(CHANNELS, rngs=nnx.Rngs(0)), activations.astype(jnp.float32))
    assert out.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(out), np.asarray(in_float32.astype(jnp.bfloat16)))


def test_nnx_own_bf16_batch_norm_rounds_its_scale_and_bias_first(activations):
    """The difference the class exists for: NNX's ``dtype=bfloat16`` does not give the float32 normalisation."""
    nnx_own = normed(nnx.BatchNorm(CHANNELS, dtype=jnp.bfloat16, rngs=nnx.Rngs(0)), activations)
    ours = normed(BatchNorm(CHANNELS, rngs=nnx.Rngs(0)), activations)
    assert np.any(np.asarray(nnx_own) != np.asarray(ours))


def test_float32_parameters_and_statistics_stay_float32(activations):
    norm = BatchNorm(CHANNELS, rngs=nnx.Rngs(0))
    norm(activations)
    assert {v[...].dtype for v in (norm.scale, norm.bias, norm.mean, norm.var)} == {jnp.dtype(jnp.float32)}
