"""Training step in TensorFlow/Keras 3: SGD with momentum and coupled weight decay, written out.

Keras' SGD folds the learning rate into the velocity (v = m·v − lr·g) and its ``weight_decay`` is
decoupled; PyTorch's rule is v = m·v + (g + wd·p), p −= lr·v. The step spells out PyTorch's rule so
the three frameworks make the same update even while the learning rate changes. bf16 is Keras's mixed precision:
the model built under the ``mixed_bfloat16`` dtype policy (bfloat16 compute, float32 variables, so float32
gradients and optimizer state; Keras's BatchNormalization keeps and computes its statistics in float32), the loss
taken in float32.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from fwbench.frameworks import why_not_measured
from runners.frameworks.tensorflow.resnet18_model import ResNet18, build, export_weights, load_weights
from runners.workloads.resnet18 import recipe


def training_device(device: str, precision: str) -> str:
    """The device a trainer trains on (``auto``: the GPU when TensorFlow sees one), after the precision's
    process-wide settings (fp32: TF32 off) and memory growth on every GPU; every workload's TensorFlow trainer starts
    here. RuntimeError for a GPU that is not there, and for a TPU."""
    if device == "tpu":  # never the CPU in an accelerator's place
        raise RuntimeError(f"--device tpu: {why_not_measured('tensorflow', 'tpu')}")
    if precision == "fp32":  # the same in all three: true float32 matmuls and convolutions (no TF32)
        tf.config.experimental.enable_tensor_float_32_execution(False)
    gpus = tf.config.list_physical_devices("GPU")
    if device == "gpu" and not gpus:
        raise RuntimeError("--device gpu: TensorFlow sees no GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)  # measure use, not a preallocated pool
    return "/GPU:0" if gpus and device != "cpu" else "/CPU:0"


class Trainer:
    """One ResNet-18 and its optimizer on one device (the protocol: ``runners.frameworks.trainer.Trainer``)."""

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        mode: str,
        device: str = "auto",
        dtype: str = "float32",
        precision: str = "fp32",
    ):
        self.device = training_device(device, precision)
        self.dtype = dtype  # float64 only for parity tests
        keras.config.set_floatx(dtype)
        # the global policy, which every layer built from here takes (Keras's mixed-precision recipe); otherwise
        # Keras's own default, set again so that a trainer built after a bf16 one in this process is not bf16
        keras.config.set_dtype_policy("mixed_bfloat16" if precision == "bf16" else dtype)
        with tf.device(self.device):
            self.model = build(ResNet18())
            # the optimizer's state (PyTorch's SGD, written out in ``_step``): one momentum buffer per parameter
            self.opt_state = [tf.Variable(tf.zeros_like(v), trainable=False) for v in self.model.trainable_variables]
        self.restore(weights)
        self.step_fn = tf.function(self._step, jit_compile=True) if mode == "compiled" else self._step
        # evaluation is outside the clock: plain graph mode, traced once per value of ``training``
        self.logits_fn = tf.function(self._logits)

    def _reset_optimizer(self) -> None:
        for velocity in self.opt_state:
            velocity.assign(tf.zeros_like(velocity))

    def _step(self, x: tf.Tensor, y: tf.Tensor, lr: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.GradientTape() as tape:
            logits = tf.cast(self.model(x, training=True), self.dtype)  # the loss in float32 (bf16: bf16 logits)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        params = self.model.trainable_variables
        for param, grad, velocity in zip(params, tape.gradient(loss, params), self.opt_state, strict=True):
            grad = grad + recipe.WEIGHT_DECAY * param.value  # coupled weight decay
            velocity.assign(recipe.SGD_MOMENTUM * velocity + grad)
            param.assign_sub(lr * velocity)
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1, output_type=y.dtype), y), tf.int32))
        return loss, correct

    def _logits(self, x: tf.Tensor, training: bool) -> tf.Tensor:
        return tf.cast(self.model(x, training=training), self.dtype)

    def to_device(self, images: np.ndarray, labels: np.ndarray) -> list[tuple[tf.Tensor, tf.Tensor]]:
        """Per-step (NHWC images, labels) resident on the device."""
        with tf.device(self.device):
            return [(tf.cast(x, self.dtype), tf.identity(y)) for x, y in zip(images, labels, strict=True)]

    def train_step(self, x: tf.Tensor, y: tf.Tensor, lr: float) -> tuple[tf.Tensor, tf.Tensor]:
        """One SGD step at learning rate ``lr``; returns (loss, correct predictions) without syncing."""
        return self.step_fn(x, y, tf.constant(lr, self.dtype))  # a tensor, so a new rate never retraces

    def logits(self, x: tf.Tensor, training: bool = False) -> np.ndarray:
        """Forward pass only, in graph mode; ``training`` uses batch statistics (and updates the moving ones, like
        training does)."""
        return self.logits_fn(x, training).numpy()

    def sync(self) -> None:
        """Wait for the device's queue to drain: reading a value back waits for every op queued before it."""
        if self.opt_state:
            self.opt_state[-1][0].numpy()

    def weights(self) -> dict[str, np.ndarray]:
        """The canonical weights and BN statistics."""
        return export_weights(self.model)

    def restore(self, weights: dict[str, np.ndarray]) -> None:
        """Load ``weights`` and start the optimizer afresh."""
        load_weights(self.model, weights)
        self._reset_optimizer()

    def memory(self) -> dict[str, int | None]:
        """The GPU allocator's peak since the last reset; nothing on a CPU."""
        if self.device == "/CPU:0":
            return {"allocator_peak_bytes": None, "allocator_reserved_bytes": None}
        info = tf.config.experimental.get_memory_info("GPU:0")
        return {"allocator_peak_bytes": int(info["peak"]), "allocator_reserved_bytes": None}

    def reset_memory_peaks(self) -> bool:
        """Reset the GPU allocator's peak (``tf.config.experimental.reset_memory_stats``); False on a CPU."""
        if self.device == "/CPU:0":
            return False
        tf.config.experimental.reset_memory_stats("GPU:0")
        return True

    def device_info(self) -> dict:
        """The device, the CUDA and cuDNN TensorFlow was built with, and its intra-op threads."""
        on_gpu = self.device != "/CPU:0"
        build_info = tf.sysconfig.get_build_info()
        name = None
        if on_gpu:
            gpu = tf.config.list_physical_devices("GPU")[0]
            name = tf.config.experimental.get_device_details(gpu).get("device_name")
        return {
            "device_kind": "gpu" if on_gpu else "cpu",
            "device_name": name,
            "cuda": build_info.get("cuda_version") if on_gpu else None,
            "cudnn": build_info.get("cudnn_version") if on_gpu else None,
            "framework_threads": tf.config.threading.get_intra_op_parallelism_threads() or None,
        }

    def precision_flags(self) -> dict:
        """TF32 execution as TensorFlow reports it, the model's Keras dtype policy, the dtypes its first convolution
        computes in and keeps its variables in, and Keras's float type."""
        conv = self.model.stem.conv.dtype_policy
        return {
            "tf.config.experimental.tensor_float_32_execution_enabled": (
                tf.config.experimental.tensor_float_32_execution_enabled()
            ),
            "keras.Model.dtype_policy": self.model.dtype_policy.name,
            "keras.layers.Conv2D.dtype_policy.compute_dtype": conv.compute_dtype,
            "keras.layers.Conv2D.dtype_policy.variable_dtype": conv.variable_dtype,
            "keras.config.floatx": keras.config.floatx(),
        }
