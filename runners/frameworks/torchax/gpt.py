"""The GPT of PyTorch (``runners.frameworks.torch.gpt``) trained through torchax: ResNet-18's torchax trainer with the
GPT's model, the weights' import and export, and the JAX trainer's optimizer (a global-norm clip, then AdamW,
decaying the parameters the recipe names): the optimizer runs in JAX here, as ResNet-18's SGD does, since
``loss.backward()`` does not work under torchax. The attention path is the PyTorch trainer's choice (``attention``);
torchax 0.0.13 runs ``scaled_dot_product_attention`` as its own reference composition of JAX operations
(``torchax.ops.jtorch._sdpa_reference``: an additive mask, the softmax in the scores' dtype), which XLA fuses as it
can: no attention kernel of its own. bf16 is torchax's autocast, PyTorch's policy (``resnet18``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch
import torch.nn.functional as F

from runners.frameworks.jax import gpt as jax_gpt
from runners.frameworks.torch import gpt as torch_gpt
from runners.frameworks.torchax import resnet18
from runners.workloads.gpt import arch
from runners.workloads.gpt.arch import GPTConfig
from runners.workloads.gpt.attention import FUSED, WRITTEN_OUT, WRITTEN_OUT_CALL, default_path

#: what each attention path calls, as the record's precision flags name it
ATTENTION_CALLS = {
    WRITTEN_OUT: WRITTEN_OUT_CALL,
    FUSED: "torch.nn.functional.scaled_dot_product_attention(is_causal=True), torchax.ops.jtorch._sdpa_reference",
}


class Trainer(resnet18.Trainer):
    """One PyTorch GPT and its AdamW as a JAX program (the protocol: ``runners.frameworks.trainer.Trainer``; ``x``
    and ``y`` are token sequences, ``correct`` counts the tokens predicted right). ``attention`` is the path (None:
    the precision's, ``attention.default_path``)."""

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        mode: str,
        device: str = "auto",
        dtype: str = "float32",
        precision: str = "fp32",
        config: GPTConfig = arch.DEFAULT,
        attention: str | None = None,
    ):
        self.config = config
        self.attention = attention or default_path(precision)
        super().__init__(weights, mode, device, dtype, precision)

    def _build_model(self, precision: str) -> torch.nn.Module:
        return torch_gpt.GPT(self.config, self.attention)

    def _build_optimizer(self) -> optax.GradientTransformation:
        # torch names its parameters otherwise: which ones AdamW decays, by the canonical names they stand for
        names = {id(p): name for name, p in self.model.named_parameters()}
        decayed = {
            names[id(torch_gpt.parameter(self.model, key)[0])]: arch.is_decayed(key)
            for key in arch.weight_names(self.config)
        }
        # the mask takes the parameters' own container (an OrderedDict: ``Trainer._on_device``)
        return jax_gpt.clipped_adamw(lambda params: type(params)((name, decayed[name]) for name in params))

    def _step(self, params, buffers, opt_state, x, y, lr):
        """ResNet-18's torchax step with PyTorch's own loss, ``F.cross_entropy`` run by torchax, as the PyTorch
        trainer and a torchax user's ``loss_fn`` compute it: on a TPU v5e at GPT-2 small, batch 8, the step took 1.31
        times as long as with optax's loss in bf16 and 1.15 times in ``default`` (91,479 → 69,959 and 64,744 → 56,055
        tokens/s, ``benchmarks/idiomatic_loop.py --device tpu``), a cost a PyTorch user on a TPU pays. ResNet-18's
        step keeps optax's loss, the same computation at 10 classes."""

        def loss_fn(params, buffers):
            logits, buffers = self._forward(params, buffers, x, training=True)
            with self.env:
                loss = F.cross_entropy(self.env.j2t_iso(logits).flatten(0, 1), self.env.j2t_iso(y).flatten())
            return self.env.t2j_iso(loss), (logits, buffers)

        (loss, (logits, buffers)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, buffers)
        opt_state.hyperparams["learning_rate"] = lr
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, buffers, opt_state, loss, jnp.sum(jnp.argmax(logits, axis=-1) == y)

    def _load(self, weights: dict[str, np.ndarray]) -> None:
        torch_gpt.load_weights(self.model, weights)

    def _export(self) -> dict[str, np.ndarray]:
        return torch_gpt.export_weights(self.model, self.config)

    def _layout(self, x: np.ndarray) -> np.ndarray:
        """Token ids as they are."""
        return x

    def precision_flags(self) -> dict:
        """ResNet-18's torchax trainer's flags (matmul precision, autocast, the parameters' dtype, the shims) and what
        the attention calls."""
        return {**super().precision_flags(), "attention": ATTENTION_CALLS[self.attention]}
