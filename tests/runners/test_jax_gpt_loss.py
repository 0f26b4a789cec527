"""The JAX GPT trainer's loss and count of right tokens from one reduction: the same as optax's loss and
``jnp.argmax``'s count, ties included, and the same gradient."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from runners.frameworks.jax.gpt import loss_and_correct


def logits_with_ties(dtype) -> tuple[jax.Array, jax.Array]:
    """(rows, vocabulary) logits and labels where some rows' maximum is shared by the label and another entry."""
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(6, 40)).astype(np.float32)
    labels = rng.integers(0, 40, 6).astype(np.int32)
    logits[0, [3, 9]] = 5.0  # label 9 ties an earlier entry: argmax says 3, not right
    labels[0] = 9
    logits[1, [7, 20]] = 5.0  # label 7 ties a later entry: argmax says 7, right
    labels[1] = 7
    logits[2, labels[2]] = 6.0  # the label alone at the top: right
    return jnp.asarray(logits, dtype), jnp.asarray(labels)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_the_count_follows_argmax_first_maximum_rule_ties_included(dtype):
    logits, labels = logits_with_ties(dtype)
    _, correct = loss_and_correct(logits.astype(jnp.float32), labels)
    assert int(correct) == int(jnp.sum(jnp.argmax(logits, axis=-1) == labels))
    assert int(correct) >= 2  # rows 1 and 2 at least; row 0 not


def test_loss_and_gradient_are_optax_s():
    logits, labels = logits_with_ties(jnp.float32)
    logits = logits.reshape(2, 3, 40)  # (batch, tokens, vocabulary), as the trainer calls it
    labels = labels.reshape(2, 3)

    def optax_loss(z):
        return optax.softmax_cross_entropy_with_integer_labels(z, labels).mean()

    ours, ours_grad = jax.value_and_grad(lambda z: loss_and_correct(z, labels)[0])(logits)
    theirs, theirs_grad = jax.value_and_grad(optax_loss)(logits)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-5, atol=1e-7)
