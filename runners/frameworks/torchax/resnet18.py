"""Training step of PyTorch's ResNet-18 on JAX through torchax ("PyTorch via torchax"): how a PyTorch model trains
on a TPU.

torchax runs a torch module as a JAX function (``JittableModule.functional_call`` inside torchax's environment), but
``loss.backward()`` does not work there, so the step is torchax's documented functional style: the loss as a JAX
function of the parameters, ``jax.value_and_grad``, the same optax SGD with coupled weight decay as the JAX trainer,
all under one ``jax.jit`` with the state donated. torchax's batch norm returns float32 for a bfloat16 input and
does not update the running statistics, so the trainer runs PyTorch's semantics instead
(``shim.pytorch_batch_norm``: the input's dtype out, the running statistics updated in the same pass, by
PyTorch's rule). bf16 is torchax's autocast, PyTorch's policy table
(completed with the convolution and linear entries it lacks: ``shim.pytorch_autocast_entries``):
convolutions and matmuls in bfloat16; parameters, optimizer state and statistics float32; the loss in float32.
"""

from __future__ import annotations

from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch

from runners.frameworks.jax.resnet18 import (
    coupled_sgd,
    device_description,
    device_memory,
    training_device,
)
from runners.frameworks.torch.resnet18_model import ResNet18, export_weights, load_weights
from runners.frameworks.torchax import shim


class Trainer:
    """One PyTorch ResNet-18 and its optimizer as a JAX program (the protocol: ``runners.frameworks.trainer.Trainer``).

    ``mode`` is always ``compiled`` (``make_trainer`` checks it): torchax trains through ``jax.jit``.
    """

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        mode: str,
        device: str = "auto",
        dtype: str = "float32",
        precision: str = "fp32",
    ):
        self.dtype = np.dtype(dtype)  # float64 only for parity tests
        self.device = training_device(device, precision, self.dtype)
        self.env = shim.torchax_environment()
        from torchax.interop import JittableModule

        self.model = self._build_model(precision).to(getattr(torch, dtype))
        self.module = JittableModule(self.model)
        self.autocast_dtype = torch.bfloat16 if precision == "bf16" else None
        self.optimizer = self._build_optimizer()
        self.restore(weights)
        self.step_fn = jax.jit(self._step, donate_argnums=(0, 1, 2))
        self.logits_fn = jax.jit(self._logits, static_argnums=3)

    def _reset_optimizer(self) -> None:
        self.opt_state = jax.device_put(self.optimizer.init(self.params), self.device)

    # What a workload changes (the GPT's trainer overrides these): the model, its optimizer, its weights' import and
    # export in the canonical layout, and the inputs' layout.
    def _build_model(self, precision: str) -> torch.nn.Module:
        """The workload's torch model (float32; the trainer casts it)."""
        return ResNet18()

    def _build_optimizer(self) -> optax.GradientTransformation:
        """The recipe's optimizer, as the JAX trainer of the workload builds it."""
        return coupled_sgd()

    def _load(self, weights: dict[str, np.ndarray]) -> None:
        """Canonical ``weights`` into the torch model, through its own import."""
        load_weights(self.model, weights)

    def _export(self) -> dict[str, np.ndarray]:
        """The torch model's weights in the canonical layout, through its own export."""
        return export_weights(self.model)

    def _layout(self, x: np.ndarray) -> np.ndarray:
        """One step's inputs as the model takes them: NHWC images to PyTorch's NCHW, in the trainer's dtype."""
        return x.transpose(0, 3, 1, 2).astype(self.dtype)

    def _on_device(self, tensors) -> OrderedDict[str, jax.Array]:
        """``tensors`` (``named_parameters()`` or ``named_buffers()``) as JAX arrays on the device, in the module's
        order, as PyTorch's ``state_dict`` and optimizer hold them. JAX flattens a plain dict in sorted key order
        (``fc`` first, ``stem`` last); compiled for a TPU v5e in that order, the step relaid the convolutions'
        float32 weights and momenta out through HBM: 0.53 ms of its 7.37 ms in layout copies against the minimal
        torchax loop's 0.27 of 7.06 (the chip's profile at bf16 / 256), 0.956 of that loop's speed."""
        return OrderedDict((name, jax.device_put(t.detach().cpu().numpy(), self.device)) for name, t in tensors)

    def _forward(self, params: dict, buffers: dict, x: jax.Array, training: bool) -> tuple[jax.Array, dict]:
        """The torch module's forward pass as JAX: (logits in the trainer's dtype, buffers after it), the running
        statistics updated by PyTorch's rule when ``training`` (the batch norm shim updates them in place)."""
        self.model.train(training)  # read while tracing: batch or running statistics
        torch_params, torch_buffers, torch_x = self.env.j2t_iso((params, buffers, x))
        autocast = self.env.override_property(autocast_dtype=self.autocast_dtype)
        with self.env, autocast, shim.pytorch_autocast_entries(), shim.pytorch_batch_norm_in(self.env):
            logits = self.module.functional_call("forward", torch_params, torch_buffers, torch_x)
        return self.env.t2j_iso(logits).astype(self.dtype), self.env.t2j_iso(torch_buffers)

    def _step(self, params, buffers, opt_state, x, y, lr):
        def loss_fn(params, buffers):
            logits, buffers = self._forward(params, buffers, x, training=True)
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
            return loss, (logits, buffers)

        (loss, (logits, buffers)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, buffers)
        opt_state.hyperparams["learning_rate"] = lr
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        correct = jnp.sum(jnp.argmax(logits, axis=-1) == y)
        return params, buffers, opt_state, loss, correct

    def _logits(self, params, buffers, x, training):
        return self._forward(params, buffers, x, training)

    def to_device(self, images: np.ndarray, labels: np.ndarray) -> list[tuple[jax.Array, jax.Array]]:
        """Per-step (inputs, labels) resident on the device, the inputs in the model's layout (``layout``)."""
        return [
            (jax.device_put(self._layout(x), self.device), jax.device_put(y, self.device))
            for x, y in zip(images, labels, strict=True)
        ]

    def train_step(self, x: jax.Array, y: jax.Array, lr: float) -> tuple[jax.Array, jax.Array]:
        """One SGD step at learning rate ``lr``; returns (loss, correct predictions) without syncing."""
        self.params, self.buffers, self.opt_state, loss, correct = self.step_fn(
            self.params, self.buffers, self.opt_state, x, y, self.dtype.type(lr)
        )
        return loss, correct

    def logits(self, x: jax.Array, training: bool = False) -> np.ndarray:
        """Forward pass only, jitted; ``training`` uses batch statistics (and updates the running ones, as training
        does)."""
        logits, self.buffers = self.logits_fn(self.params, self.buffers, x, training)
        return np.asarray(logits)

    def sync(self) -> None:
        """Wait until the training state is computed."""
        jax.block_until_ready((self.params, self.buffers, self.opt_state))

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights and BN statistics, through the torch module's own export."""
        with torch.no_grad():
            for name, tensor in (*self.model.named_parameters(), *self.model.named_buffers()):
                source = self.params.get(name, self.buffers.get(name))
                if source is not None:
                    tensor.copy_(torch.from_numpy(np.array(source)))
        return self._export()

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` into the torch module and take its parameters and buffers as JAX arrays on the device;
        start the optimizer afresh."""
        self._load(weights)
        self.params = self._on_device(self.model.named_parameters())
        self.buffers = self._on_device(self.model.named_buffers())
        self._reset_optimizer()

    def memory(self) -> dict[str, int | None]:
        """The device allocator's peak and reserved bytes since the start, where the backend reports them."""
        return device_memory(self.device)

    def reset_memory_peaks(self) -> bool:
        """False: XLA's allocator keeps its peak from the start, and JAX has no call that resets it."""
        return False

    def device_info(self) -> dict:
        """The device, as JAX (which runs the program) describes it."""
        return device_description(self.device)

    def precision_flags(self) -> dict:
        """JAX's default matmul precision (torchax's matmuls and convolutions are JAX's), torchax's autocast dtype,
        the parameters' dtype, and the aten operators the import shim stood in for (None where none was needed)."""
        return {
            "jax_default_matmul_precision": jax.config.jax_default_matmul_precision,
            "torchax.autocast_dtype": None if self.autocast_dtype is None else "bfloat16",
            "torch.nn.Parameter.dtype": next(iter(self.params.values())).dtype.name,
            # the shim's name and what it stood in for; None where torchax imported as it is
            shim.SHIM: ", ".join(shim.missing) or None,
            # under bf16, the autocast entries torchax's table lacks, added while the step is traced
            shim.AUTOCAST_SHIM: "aten.convolution, linear" if self.autocast_dtype is not None else None,
            # PyTorch's batch norm (its input's dtype out, the running statistics updated) in place of torchax's
            shim.BATCH_NORM_SHIM: "torch.nn.functional.batch_norm",
        }
