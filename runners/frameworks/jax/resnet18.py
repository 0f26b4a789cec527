"""Training step in JAX with Flax NNX and optax: SGD with momentum and coupled weight decay.

``optax.add_decayed_weights`` before ``optax.sgd`` is PyTorch's coupled rule (g += wd·p); the step is
a pure function of (params, batch stats, optimizer state) compiled with ``jax.jit``, the pattern of
Flax's performance guide (``nnx.split`` once, no graph traversal per step). bf16 is Flax's mixed precision: every
convolution and the classifier built with ``dtype=jnp.bfloat16`` and ``param_dtype=jnp.float32``, each batch norm
computing in float32 and returning bfloat16 (``resnet18_model``), so parameters, gradients, optimizer state and
BatchNorm statistics stay float32; the loss is taken in float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from fwbench.installed import package_versions
from runners.frameworks.jax.resnet18_model import ResNet18, export_weights, load_weights
from runners.workloads.resnet18 import recipe

# Version shim (drop with Flax < 0.12, i.e. JAX 0.4.26's set in fwbench/version_sets.json): Flax 0.12 names it
# ``nnx.as_pure`` (its ``nnx.pure`` is a deprecated alias that warns), 0.11 ``nnx.pure``; older Flax has neither and
# needs none: its ``nnx.split``/``nnx.state`` already give pytrees of plain arrays.
pure = getattr(nnx, "as_pure", None) or getattr(nnx, "pure", lambda tree: tree)


def training_device(device: str, precision: str, dtype: np.dtype) -> jax.Device:
    """The device a trainer trains on (``auto``: the accelerator, a GPU or TPU, when JAX sees one), after the
    process-wide settings of the precision (fp32: the highest matmul precision, no TF32 or single bf16 pass) and of the
    dtype (float64 needs x64); every JAX-based trainer starts here. RuntimeError for an accelerator that is not
    there: the CPU is never used in its place."""
    if precision == "fp32":  # the same in all three: true float32 matmuls and convolutions (no TF32)
        jax.config.update("jax_default_matmul_precision", "highest")  # convolutions follow it too
    jax.config.update("jax_enable_x64", dtype == np.float64)
    if device == "cpu":
        return jax.devices("cpu")[0]
    accelerators = [d for d in jax.devices() if d.platform != "cpu" and device in ("auto", d.platform)]
    if device != "auto" and not accelerators:
        raise RuntimeError(f"--device {device}: JAX sees no {device.upper()}")
    return accelerators[0] if accelerators else jax.devices("cpu")[0]


def coupled_sgd() -> optax.GradientTransformation:
    """SGD with momentum and PyTorch's coupled weight decay (g += wd·p), its learning rate an input of each step
    (``inject_hyperparams``) instead of a constant."""
    return optax.inject_hyperparams(
        lambda learning_rate: optax.chain(
            optax.add_decayed_weights(recipe.WEIGHT_DECAY), optax.sgd(learning_rate, momentum=recipe.SGD_MOMENTUM)
        )
    )(learning_rate=0.0)


def device_memory(device: jax.Device) -> dict[str, int | None]:
    """The device allocator's peak and reserved bytes since the start, where the backend reports them."""
    stats = device.memory_stats() or {}
    return {
        "allocator_peak_bytes": stats.get("peak_bytes_in_use"),
        # 0 where XLA reserves nothing ahead (preallocation is off): not a measurement, so null
        "allocator_reserved_bytes": stats.get("peak_bytes_reserved", stats.get("bytes_reserved")) or None,
    }


def device_description(device: jax.Device) -> dict:
    """What JAX says about ``device``: its kind (cpu, gpu or tpu), name and, on a GPU, the CUDA and cuDNN jaxlib
    loaded; on a TPU the chips this process sees, their topology and memory, and libtpu's version."""
    info = {"device_kind": device.platform, "device_name": None, "cuda": None, "cudnn": None, "framework_threads": None}
    if device.platform == "gpu":
        info["device_name"] = device.device_kind
        try:  # jaxlib exposes the CUDA/cuDNN versions it loaded only through this private module
            from jax._src.lib import cuda_versions

            info["cuda"] = str(cuda_versions.cuda_runtime_get_version())
            info["cudnn"] = str(cuda_versions.cudnn_get_version())
        except Exception:
            pass
    elif device.platform == "tpu":
        chips = jax.devices("tpu")
        info.update(
            device_name=device.device_kind,
            device_count=len(chips),
            tpu_topology=tpu_topology([chip.coords for chip in chips]),
            device_memory_bytes=(device.memory_stats() or {}).get("bytes_limit"),
            libtpu=package_versions(("libtpu",))["libtpu"],
        )
    return info


def tpu_topology(coords: list[tuple[int, ...]]) -> str:
    """The chips' grid as TPU slices are named (``1x1``, ``2x2``, ``2x2x2``): the extent of their coordinates, the
    third axis only where it is used."""
    extents = [max(c[axis] for c in coords) + 1 for axis in range(len(coords[0]))]
    while len(extents) > 2 and extents[-1] == 1:
        extents.pop()
    return "x".join(str(e) for e in extents)


class Trainer:
    """One ResNet-18 and its optimizer on one device (the protocol: ``runners.frameworks.trainer.Trainer``).

    ``mode`` is always ``compiled`` (``make_trainer`` checks it): JAX trains only through ``jax.jit``.
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
        # Shapes only: every variable is overwritten by ``restore``, and NNX's eager initialisers would
        # compile one kernel per distinct shape (about 9 s on a 2-core CPU) for values thrown away.
        compute = jnp.bfloat16 if precision == "bf16" else None  # None: the inputs' and parameters' dtype
        self.model = nnx.eval_shape(lambda: ResNet18(nnx.Rngs(0), dtype=compute))
        self.model.eval()
        self.eval_graph = nnx.graphdef(self.model)
        self.model.train()
        self.graph = nnx.graphdef(self.model)
        # inject_hyperparams makes the learning rate an input of each step instead of a constant
        self.optimizer = coupled_sgd()
        self.restore(weights)
        self.step_fn = jax.jit(self._step, donate_argnums=(0, 1, 2))
        self.logits_fn = jax.jit(self._logits, static_argnums=3)

    def _reset_optimizer(self) -> None:
        self.opt_state = jax.device_put(self.optimizer.init(self.params), self.device)

    def _step(self, params, stats, opt_state, x, y, lr):
        def loss_fn(params, stats):  # stats as an argument: BN updates them inside the grad trace
            model = nnx.merge(self.graph, params, stats)
            logits = model(x).astype(self.dtype)  # the loss in float32 (bf16: the last layer computes in bf16)
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
            return loss, (logits, pure(nnx.state(model, nnx.BatchStat)))

        (loss, (logits, new_stats)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, stats)
        opt_state.hyperparams["learning_rate"] = lr
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        correct = jnp.sum(jnp.argmax(logits, axis=1) == y)
        return params, new_stats, opt_state, loss, correct

    def _logits(self, params, stats, x, training):
        model = nnx.merge(self.graph if training else self.eval_graph, params, stats)
        return model(x).astype(self.dtype), pure(nnx.state(model, nnx.BatchStat))

    def to_device(self, images: np.ndarray, labels: np.ndarray) -> list[tuple[jax.Array, jax.Array]]:
        """Per-step (NHWC images, labels) resident on the device."""
        return [
            (jax.device_put(x.astype(self.dtype), self.device), jax.device_put(y, self.device))
            for x, y in zip(images, labels, strict=True)
        ]

    def train_step(self, x: jax.Array, y: jax.Array, lr: float) -> tuple[jax.Array, jax.Array]:
        """One SGD step at learning rate ``lr``; returns (loss, correct predictions) without syncing."""
        self.params, self.stats, self.opt_state, loss, correct = self.step_fn(
            self.params, self.stats, self.opt_state, x, y, self.dtype.type(lr)
        )
        return loss, correct

    def logits(self, x: jax.Array, training: bool = False) -> np.ndarray:
        """Forward pass only, jitted; ``training`` uses batch statistics (and updates the running ones, like
        training does)."""
        logits, self.stats = self.logits_fn(self.params, self.stats, x, training)
        return np.asarray(logits)

    def sync(self) -> None:
        """Wait until the training state is computed."""
        jax.block_until_ready((self.params, self.stats, self.opt_state))

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights and BN statistics."""
        nnx.update(self.model, self.params, self.stats)
        return export_weights(self.model)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, {k: v.astype(self.dtype) for k, v in weights.items()})
        _, params, stats = nnx.split(self.model, nnx.Param, nnx.BatchStat)
        # plain arrays, not Variables: the step merges them into fresh modules inside its own trace
        self.params, self.stats = jax.device_put(pure((params, stats)), self.device)
        self._reset_optimizer()

    def memory(self) -> dict[str, int | None]:
        """The device allocator's peak and reserved bytes since the start, where the backend reports them."""
        return device_memory(self.device)

    def reset_memory_peaks(self) -> bool:
        """False: XLA's allocator keeps its peak (``memory_stats()["peak_bytes_in_use"]``) from the start, and JAX
        has no call that resets it."""
        return False

    def device_info(self) -> dict:
        """The device, as ``device_description`` gives it."""
        return device_description(self.device)

    def precision_flags(self) -> dict:
        """The default precision of matmuls and convolutions, as JAX's configuration holds it, and the dtype the
        layers compute in (the first convolution's; None: its inputs' dtype) and the parameters' dtype."""
        compute = self.model.stem.conv.dtype
        return {
            "jax_default_matmul_precision": jax.config.jax_default_matmul_precision,
            "flax.nnx.Conv.dtype": None if compute is None else jnp.dtype(compute).name,
            "flax.nnx.Param.dtype": jax.tree.leaves(self.params)[0].dtype.name,
        }
